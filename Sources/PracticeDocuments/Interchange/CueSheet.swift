// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

extension Interchange {
    /// CUE sheets: one `TRACK` per marker, `INDEX 01 mm:ss:ff` at 75 frames per second.
    enum Cue {
        /// 75 frames per second: a CD sector, 13.33 ms.
        static let framesPerSecond = 75

        /// Commands we know and skip (disc data, CD-TEXT, flags, gaps).
        static let skipped: Set<String> = [
            "REM", "CATALOG", "CDTEXTFILE", "PERFORMER", "SONGWRITER", "COMPOSER", "ARRANGER", "MESSAGE",
            "FLAGS", "ISRC", "PREGAP", "POSTGAP", "DISC_ID", "GENRE", "TOC_INFO1", "TOC_INFO2", "UPC_EAN", "SIZE_INFO",
        ]

        /// A `TRACK` as read: its number, its TITLE, and its INDEX 01 with the FILE it belongs to.
        private struct Track {
            var number: Int
            var title: String?
            var start: Double?
            var file = 0
        }

        /// Reads one point per TRACK with an INDEX 01, from the first FILE only.
        static func read(_ lines: [TextLine]) throws(InterchangeError) -> Reading {
            var tracks: [Track] = [], files = 0, pregaps = 0, subIndexes = 0, unknownLines: [Int] = []
            for line in lines {
                let text = line.text.trimmingWhitespace()
                if text.isEmpty { continue }
                let word = text.prefix { $0 != " " && $0 != "\t" }
                let keyword = word.uppercased()
                let rest = text.dropFirst(word.count).trimmingWhitespace()
                switch keyword {
                case "FILE":
                    files += 1
                case "TRACK":
                    let number = rest.prefix { $0 != " " && $0 != "\t" }
                    guard isDigits(number), let n = Int(number) else {
                        throw InterchangeError(line: line.number, message: "bad TRACK number \(quoted(number))")
                    }
                    tracks.append(Track(number: n))
                case "TITLE":
                    if !tracks.isEmpty { tracks[tracks.count - 1].title = unquoted(rest) }   // before any TRACK: the disc's
                case "INDEX":
                    let fields = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
                    guard fields.count >= 2, isDigits(fields[0]), let index = Int(fields[0]) else {
                        throw InterchangeError(line: line.number, message: "bad INDEX line")
                    }
                    let time = try self.time(fields[1], line: line.number)
                    guard !tracks.isEmpty else { throw InterchangeError(line: line.number, message: "INDEX outside a TRACK") }
                    switch index {
                    case 0: pregaps += 1
                    case 1:
                        guard tracks[tracks.count - 1].start == nil else {
                            throw InterchangeError(line: line.number, message: "second INDEX 01 in a track")
                        }
                        tracks[tracks.count - 1].start = time
                        tracks[tracks.count - 1].file = files
                    default: subIndexes += 1
                    }
                default:
                    if !skipped.contains(keyword) { unknownLines.append(line.number) }
                }
            }
            if tracks.isEmpty, let first = unknownLines.first {
                throw InterchangeError(line: first, message: "not a CUE sheet")
            }

            var reading = Reading(), withoutStart = 0, otherFiles = 0
            for track in tracks {
                guard let start = track.start else { withoutStart += 1; continue }
                guard track.file <= 1 else { otherFiles += 1; continue }   // 0: an INDEX before any FILE
                let number = track.number < 10 ? "0\(track.number)" : "\(track.number)"
                reading.entries.append(InterchangeEntry(name: track.title ?? "Track \(number)", start: start))
            }
            if !unknownLines.isEmpty { reading.notes.append("skipped \(counted(unknownLines.count, "unknown line"))") }
            if pregaps > 0 { reading.notes.append("ignored \(counted(pregaps, "pregap")) (INDEX 00)") }
            if subIndexes > 0 { reading.notes.append("ignored \(counted(subIndexes, "sub-index", "sub-indexes")) (INDEX 02 and up)") }
            if withoutStart > 0 { reading.notes.append("skipped \(counted(withoutStart, "track")) without INDEX 01") }
            if otherFiles > 0 { reading.notes.append("read the first FILE only: left out \(counted(otherFiles, "track")) of other files") }
            return reading
        }

        /// Parses `mm:ss:ff` (minutes may pass 99) into seconds.
        static func time(_ text: Substring, line: Int) throws(InterchangeError) -> Double {
            if text.hasPrefix("-") { throw InterchangeError(line: line, message: "negative time") }
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ isDigits($0) }) else {
                throw InterchangeError(line: line, message: "not a CUE time (mm:ss:ff): \(quoted(text))")
            }
            guard let minutes = Int(parts[0]), let seconds = Int(parts[1]), let frames = Int(parts[2]) else {
                throw InterchangeError(line: line, message: "time out of range")   // digits that do not fit an Int
            }
            guard seconds < 60, frames < framesPerSecond else {
                throw InterchangeError(line: line, message: "not a CUE time (mm:ss:ff): \(quoted(text))")
            }
            guard minutes <= 24 * 60 else { throw InterchangeError(line: line, message: "time out of range") }
            let total = (minutes * 60 + seconds) * framesPerSecond + frames
            return try checkedTime(Double(total) / Double(framesPerSecond), line: line)
        }

        /// A TITLE or FILE argument: inside quotes when quoted (a missing closing quote is forgiven).
        /// The quotes are found among the scalars: a title that starts with a combining mark makes
        /// one Character of the opening quote and the mark.
        static func unquoted(_ text: String) -> String {
            let scalars = text.unicodeScalars
            guard scalars.first == "\"" else { return text }
            return String(String.UnicodeScalarView(scalars.dropFirst().prefix { $0 != "\"" }))
        }

        /// Writes `TITLE`, `FILE "name" WAVE` and a TRACK per entry (regions as their start).
        static func write(_ entries: [InterchangeEntry], audioFileName: String, title: String?, notes: inout [String], leftOut: inout Int) -> String {
            var text = CueText()
            var out = ""
            if let title { out += "TITLE \"\(text.clean(title))\"\n" }
            var fileName = audioFileName, fileChanged = 0
            fileName = singleLine(fileName, changed: &fileChanged)
            if let changed = fileName.replacingScalar("\"", with: "'") { fileName = changed; fileChanged += 1 }
            out += "FILE \"\(fileName)\" WAVE\n"

            var tracks: [(name: String, frame: Int)] = [], regions = 0, sameFrame = 0, rounded = false
            for entry in entries {
                if entry.end != nil { regions += 1 }
                rounded = rounded || needsRounding(entry.start, unitsPerSecond: Double(framesPerSecond))
                let frame = Int((entry.start * Double(framesPerSecond)).rounded())   // 12.5 s = 937.5 → 938
                if let last = tracks.last, last.frame == frame { sameFrame += 1; continue }
                tracks.append((entry.name, frame))
            }
            let tooMany = max(0, tracks.count - 99)
            leftOut += sameFrame + tooMany
            for (i, track) in tracks.prefix(99).enumerated() {
                let number = i + 1 < 10 ? "0\(i + 1)" : "\(i + 1)"
                out += "  TRACK \(number) AUDIO\n"
                out += "    TITLE \"\(text.clean(track.name))\"\n"
                out += "    INDEX 01 \(msf(track.frame))\n"
            }

            if regions > 0 {
                notes.append("CUE sheets hold points only: " + (regions == 1 ? "1 loop kept as its start point" : "\(regions) loops kept as their start points"))
            }
            if rounded { notes.append("times rounded to CUE frames (1/75 s)") }
            if sameFrame > 0 { notes.append("left out \(counted(sameFrame, "marker")) on the same CUE frame as the one before") }
            if tooMany > 0 { notes.append("CUE sheets hold 99 tracks: left out the last \(counted(tooMany, "marker"))") }
            if text.quotes > 0 { notes.append("\" replaced with ' in \(counted(text.quotes, "title"))") }
            if text.shortened > 0 { notes.append("shortened \(counted(text.shortened, "title")) to 80 characters") }
            if text.lineBreaks > 0 { notes.append("tabs and line breaks in \(counted(text.lineBreaks, "title")) replaced with spaces") }
            if fileChanged > 0 { notes.append("the FILE name had quotes or line breaks, replaced") }
            return out
        }

        /// `mm:ss:ff` from a frame count; minutes pass 99 for long files.
        static func msf(_ frame: Int) -> String {
            let minutes = frame / (60 * framesPerSecond), seconds = frame / framesPerSecond % 60, frames = frame % framesPerSecond
            func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
            return "\(two(minutes)):\(two(seconds)):\(two(frames))"
        }

        /// Makes TITLE text legal (no `"`, no line break, ≤ 80 characters) and counts the changes.
        private struct CueText {
            var quotes = 0, shortened = 0, lineBreaks = 0

            mutating func clean(_ text: String) -> String {
                var out = singleLine(text, changed: &lineBreaks)
                // Among scalars: a quote carrying a combining mark is a quote to a reader.
                if let changed = out.replacingScalar("\"", with: "'") { out = changed; quotes += 1 }
                if out.count > 80 { out = String(out.prefix(80)); shortened += 1 }
                return out
            }
        }
    }
}
