// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

extension Interchange {
    /// ffmpeg's metadata file: `;FFMETADATA1`, global `key=value` lines, `[CHAPTER]` sections.
    enum FFMetadata {
        /// A `[CHAPTER]` section as read, with the line of each value for messages.
        private struct Chapter {
            var line: Int
            var timebase: (num: Int64, den: Int64) = (1, 1000)   // milliseconds when TIMEBASE is absent
            var start: (value: Int64, line: Int)?
            var end: (value: Int64, line: Int)?
            var title: String?
        }

        /// Reads every chapter as a region; one without END, or with END ≤ START, is a point.
        static func read(_ lines: [TextLine]) throws(InterchangeError) -> Reading {
            guard let header = lines.first, header.text.hasPrefix(";FFMETADATA") else {
                throw InterchangeError(line: 1, message: "missing ;FFMETADATA1 header")
            }
            var chapters: [Chapter] = [], inChapter = false, notKeyValue = 0
            var i = 1
            while i < lines.count {
                let number = lines[i].number
                var text = lines[i].text
                i += 1
                // Scalars throughout, as ffmpeg reads bytes: a combining mark after `;`, `=` or `\`
                // makes one Character with it, which hid the delimiter.
                if text.unicodeScalars.first == ";" || text.unicodeScalars.first == "#" { continue }
                while endsWithEscape(text), i < lines.count {   // backslash-newline: the value goes on
                    text += "\n" + lines[i].text
                    i += 1
                }
                if isBlank(text) { continue }
                if text.unicodeScalars.first == "[" {
                    inChapter = text.trimmingWhitespace().uppercased() == "[CHAPTER]"
                    if inChapter { chapters.append(Chapter(line: number)) }
                    continue   // other sections ([STREAM], [PROGRAM]) hold no chapters
                }
                guard let (key, value) = keyValue(text) else { notKeyValue += 1; continue }
                guard inChapter, !chapters.isEmpty else { continue }   // global tags
                let last = chapters.count - 1
                switch key.uppercased() {
                case "TIMEBASE": chapters[last].timebase = try timebase(value, line: number)
                case "START": chapters[last].start = (try integer(value, key: "START", line: number), number)
                case "END": chapters[last].end = (try integer(value, key: "END", line: number), number)
                case "TITLE": chapters[last].title = value
                default: break
                }
            }

            var reading = Reading(), endsBefore = 0
            for (n, chapter) in chapters.enumerated() {
                guard let start = chapter.start else { throw InterchangeError(line: chapter.line, message: "chapter without START") }
                let startTime = try checkedTime(seconds(start.value, chapter.timebase), line: start.line)
                var endTime: Double?
                if let end = chapter.end {
                    let t = try checkedTime(seconds(end.value, chapter.timebase), line: end.line)
                    if t > startTime { endTime = t } else if t < startTime { endsBefore += 1 }
                }
                var changed = 0
                let name = chapter.title.map { singleLine($0, changed: &changed) } ?? "Chapter \(n + 1)"
                reading.entries.append(InterchangeEntry(name: name, start: startTime, end: endTime))
            }
            if notKeyValue > 0 { reading.notes.append("skipped \(counted(notKeyValue, "line")) without key=value") }
            if endsBefore > 0 { reading.notes.append("read \(counted(endsBefore, "chapter")) ending before the start as " + (endsBefore == 1 ? "a point" : "points")) }
            return reading
        }

        /// `value × num ÷ den` seconds, in integers while they fit (1/1000000000 stays exact).
        static func seconds(_ value: Int64, _ timebase: (num: Int64, den: Int64)) -> Double {
            let (product, overflow) = value.multipliedReportingOverflow(by: timebase.num)
            guard !overflow else { return Double(value) * Double(timebase.num) / Double(timebase.den) }
            let (whole, rest) = product.quotientAndRemainder(dividingBy: timebase.den)
            return Double(whole) + Double(rest) / Double(timebase.den)
        }

        /// True when the line ends in an unescaped backslash (an odd run of them).
        static func endsWithEscape(_ text: String) -> Bool {
            text.unicodeScalars.reversed().prefix { $0 == "\\" }.count % 2 == 1
        }

        /// Splits at the first unescaped `=` and removes the escapes; nil without one.
        /// Spaces around `=` belong to the key or value, as in ffmpeg.
        static func keyValue(_ text: String) -> (key: String, value: String)? {
            var key = String.UnicodeScalarView(), value = String.UnicodeScalarView(), inValue = false, escaped = false
            for c in text.unicodeScalars {
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                    continue
                } else if c == "=", !inValue {
                    inValue = true
                    continue
                }
                if inValue { value.append(c) } else { key.append(c) }
            }
            return inValue ? (String(key), String(value)) : nil
        }

        /// Parses `TIMEBASE=num/den` with both parts positive.
        static func timebase(_ text: String, line: Int) throws(InterchangeError) -> (num: Int64, den: Int64) {
            let parts = text.trimmingWhitespace().split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, isDigits(parts[0]), isDigits(parts[1]),
                  let num = Int64(parts[0]), let den = Int64(parts[1]), num > 0, den > 0 else {
                throw InterchangeError(line: line, message: "bad TIMEBASE \(quoted(text))")
            }
            return (num, den)
        }

        /// Parses START or END: an integer in TIMEBASE units.
        static func integer(_ text: String, key: String, line: Int) throws(InterchangeError) -> Int64 {
            switch Interchange.integer(text.trimmingWhitespace()) {
            case .value(let v): return v
            case .tooLarge: throw InterchangeError(line: line, message: "time out of range")
            case .notInteger: throw InterchangeError(line: line, message: "chapter \(key) is not an integer: \(quoted(text))")
            }
        }

        /// Writes `;FFMETADATA1`, the title, and a millisecond chapter per entry; a point ends at
        /// the next later start or at `duration`.
        static func write(_ entries: [InterchangeEntry], duration: Double, title: String?, notes: inout [String]) -> String {
            var out = ";FFMETADATA1\n"
            if let title { out += "title=\(escaped(title))\n" }
            let ends = regionEnds(entries, duration: duration)
            var points = 0, rounded = false
            for (entry, end) in zip(entries, ends) {
                let start = milliseconds(entry.start)
                if entry.end == nil, end > entry.start { points += 1 }
                rounded = rounded || needsRounding(entry.start, unitsPerSecond: 1000) || needsRounding(end, unitsPerSecond: 1000)
                out += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(start)\nEND=\(max(start, milliseconds(end)))\n"
                out += "title=\(escaped(entry.name))\n"
            }
            if points > 0 { notes.append("chapters are regions: \(counted(points, "marker")) end at the next marker or the track end") }
            if rounded { notes.append("times rounded to milliseconds") }
            return out
        }

        /// Whole milliseconds, rounded to nearest (times are within 0…24 h here).
        static func milliseconds(_ t: Double) -> Int64 { Int64((t * 1000).rounded()) }

        /// Escapes `=`, `;`, `#`, `\` and line breaks with a backslash.
        static func escaped(_ text: String) -> String {
            var out = ""
            for c in text {
                if c.isNewline { out += "\\\n"; continue }   // a line break carries no mark
                for u in c.unicodeScalars {
                    if u == "=" || u == ";" || u == "#" || u == "\\" { out.unicodeScalars.append("\\") }
                    out.unicodeScalars.append(u)
                }
            }
            return out
        }
    }
}
