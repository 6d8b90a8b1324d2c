// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

extension Interchange {
    /// WebVTT chapters: `WEBVTT`, a blank line, then cues of an optional id, a timing line and a title.
    enum WebVTT {
        /// Reads each cue as a region (a cue of zero length as a point); NOTE, STYLE and REGION
        /// blocks are skipped, and so are cue settings after the end time.
        static func read(_ lines: [TextLine]) throws(InterchangeError) -> Reading {
            guard let header = lines.first, startsWithWord("WEBVTT", header.text) else {
                throw InterchangeError(line: 1, message: "missing WEBVTT header")
            }
            var reading = Reading(), withoutTiming = 0
            var i = 1
            // The header block (old files add `Kind: chapters` and the like) ends at a blank line.
            while i < lines.count, !isBlank(lines[i].text), !lines[i].text.contains("-->") { i += 1 }
            while i < lines.count {
                if isBlank(lines[i].text) { i += 1; continue }
                var block: [TextLine] = []
                while i < lines.count, !isBlank(lines[i].text) { block.append(lines[i]); i += 1 }
                let first = block[0].text
                if startsWithWord("NOTE", first) || startsWithWord("STYLE", first) || startsWithWord("REGION", first) { continue }
                guard let timing = block.prefix(2).firstIndex(where: { $0.text.contains("-->") }) else {
                    withoutTiming += 1
                    continue
                }
                let line = block[timing]
                let (start, end) = try times(line.text, line: line.number)
                guard end >= start else { throw InterchangeError(line: line.number, message: "end before start") }
                let title = block[(timing + 1)...].map { plainText($0.text) }.joined(separator: " ")
                reading.entries.append(InterchangeEntry(name: title.trimmingWhitespace(), start: start, end: end > start ? end : nil))
            }
            if withoutTiming > 0 { reading.notes.append("skipped \(counted(withoutTiming, "block")) without a cue timing line") }
            return reading
        }

        /// True when `text` is `word`, or `word` followed by a space or tab.
        static func startsWithWord(_ word: String, _ text: String) -> Bool {
            guard text.hasPrefix(word) else { return false }
            let next = text.dropFirst(word.count).first
            return next == nil || next == " " || next == "\t"
        }

        /// Parses `start --> end [settings]` into seconds.
        static func times(_ text: String, line: Int) throws(InterchangeError) -> (Double, Double) {
            guard let arrow = text.firstRange(of: "-->") else { throw InterchangeError(line: line, message: "missing -->") }
            let left = text[..<arrow.lowerBound].trimmingWhitespace()
            let right = text[arrow.upperBound...].trimmingWhitespace()
            let endText = right.prefix { $0 != " " && $0 != "\t" }   // cue settings follow
            return (try time(Substring(left), line: line), try time(endText, line: line))
        }

        /// Parses `[hh:]mm:ss.ttt` (hours optional and of any width) into seconds.
        static func time(_ text: Substring, line: Int) throws(InterchangeError) -> Double {
            if text.hasPrefix("-") { throw InterchangeError(line: line, message: "negative time") }
            let bad = InterchangeError(line: line, message: "not a WebVTT time (hh:mm:ss.ttt): \(quoted(text))")
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), let last = parts.last else { throw bad }
            let secondParts = last.split(separator: ".", omittingEmptySubsequences: false)
            guard secondParts.count == 2 else { throw bad }
            let minutesText = parts[parts.count - 2], secondsText = secondParts[0], millisText = secondParts[1]
            guard minutesText.count == 2, secondsText.count == 2, millisText.count == 3,
                  isDigits(minutesText), isDigits(secondsText), isDigits(millisText),
                  let minutes = Int(minutesText), let seconds = Int(secondsText), let millis = Int(millisText),
                  minutes < 60, seconds < 60 else { throw bad }
            var hours = 0
            if parts.count == 3 {
                guard isDigits(parts[0]) else { throw bad }
                guard let h = Int(parts[0]), h <= 24 else { throw InterchangeError(line: line, message: "time out of range") }
                hours = h
            }
            let total = ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
            return try checkedTime(Double(total) / 1000, line: line)
        }

        /// Cue text as plain text: tags such as `<b>` removed, character references decoded. By
        /// scalar, as WebVTT is read: a combining mark after `>` or `;` is not part of the markup.
        static func plainText(_ text: String) -> String {
            var out = String.UnicodeScalarView(), rest = Substring(text).unicodeScalars
            while let c = rest.first {
                if c == "<", let close = rest.firstIndex(of: ">") {
                    rest = rest[rest.index(after: close)...]
                } else if c == "&", let semicolon = rest.prefix(12).firstIndex(of: ";"),
                          let decoded = reference(Substring(rest[rest.index(after: rest.startIndex)..<semicolon])) {
                    out.append(decoded)
                    rest = rest[rest.index(after: semicolon)...]
                } else {
                    out.append(c)
                    rest = rest.dropFirst()
                }
            }
            return String(out)
        }

        /// The character for `amp`, `lt`, `#233`, `#xE9`…; nil for names we do not know.
        static func reference(_ name: Substring) -> Unicode.Scalar? {
            switch name {
            case "amp": return "&"
            case "lt": return "<"
            case "gt": return ">"
            case "quot": return "\""
            case "apos": return "'"
            case "nbsp": return "\u{A0}"
            case "lrm": return "\u{200E}"
            case "rlm": return "\u{200F}"
            default:
                guard name.hasPrefix("#") else { return nil }
                let digits = name.dropFirst()
                let hex = digits.first == "x" || digits.first == "X"
                guard let value = UInt32(hex ? String(digits.dropFirst()) : String(digits), radix: hex ? 16 : 10),
                      value != 0, let scalar = Unicode.Scalar(value) else { return nil }
                return scalar
            }
        }

        /// Writes `WEBVTT` and a cue per entry; a point ends at the next later start or at `duration`.
        static func write(_ entries: [InterchangeEntry], duration: Double, notes: inout [String]) -> String {
            var out = "WEBVTT\n\n", points = 0, rounded = false, changed = 0
            let ends = regionEnds(entries, duration: duration)
            for (entry, end) in zip(entries, ends) {
                if entry.end == nil, end > entry.start { points += 1 }
                rounded = rounded || needsRounding(entry.start, unitsPerSecond: 1000) || needsRounding(end, unitsPerSecond: 1000)
                let start = FFMetadata.milliseconds(entry.start)
                out += "\(timestamp(start)) --> \(timestamp(max(start, FFMetadata.milliseconds(end))))\n"
                out += "\(escaped(singleLine(entry.name, changed: &changed)))\n\n"
            }
            if points > 0 { notes.append("WebVTT cues are regions: \(counted(points, "marker")) end at the next marker or the track end") }
            if rounded { notes.append("times rounded to milliseconds") }
            if changed > 0 { notes.append("tabs and line breaks in \(counted(changed, "name")) replaced with spaces") }
            return out
        }

        /// `mm:ss.ttt`, or `hh:mm:ss.ttt` from an hour on.
        static func timestamp(_ milliseconds: Int64) -> String {
            func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let seconds = milliseconds / 1000, millis = milliseconds % 1000
            let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
            let minutesAndSeconds = "\(two(seconds / 60 % 60)):\(two(seconds % 60)).\(ms)"
            return seconds >= 3600 ? "\(two(seconds / 3600)):\(minutesAndSeconds)" : minutesAndSeconds
        }

        /// Escapes `&`, `<` and `>` as character references.
        static func escaped(_ text: String) -> String { text.markupEscaped }
    }
}
