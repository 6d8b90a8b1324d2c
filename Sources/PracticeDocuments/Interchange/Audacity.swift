// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

extension Interchange {
    /// Audacity label tracks: `start⇥end⇥text` per line, seconds written with 6 decimals.
    enum Audacity {
        /// Reads labels; the end may be missing, a non-number second field is the text, and
        /// `\` lines (frequency ranges) are skipped.
        static func read(_ lines: [TextLine]) throws(InterchangeError) -> Reading {
            var reading = Reading(), frequencyLines = 0
            for line in lines {
                if line.text.hasPrefix("\\") { frequencyLines += 1; continue }
                if isBlank(line.text) { continue }
                let fields = line.text.split(separator: "\t", omittingEmptySubsequences: false)
                let first = fields[0].trimmingWhitespace()
                guard let startValue = decimal(first) else {
                    throw InterchangeError(line: line.number, message: "not a time: \(quoted(first))")
                }
                let start = try checkedTime(startValue, line: line.number)
                var end: Double?
                var text = fields.dropFirst()
                if let second = text.first?.trimmingWhitespace() {
                    if let endValue = decimal(second) {
                        end = try checkedTime(endValue, line: line.number)
                        text = text.dropFirst()
                    } else if second.isEmpty, text.count > 1 {
                        text = text.dropFirst()   // `12.5⇥⇥Verse`: an empty end
                    }
                }
                if let end, end < start { throw InterchangeError(line: line.number, message: "end before start") }
                reading.entries.append(InterchangeEntry(name: text.joined(separator: " "), start: start, end: end == start ? nil : end))
            }
            if frequencyLines > 0 { reading.notes.append("skipped \(counted(frequencyLines, "Audacity frequency line"))") }
            return reading
        }

        /// Writes one label per entry; a point has start == end.
        static func write(_ entries: [InterchangeEntry], notes: inout [String]) -> String {
            var out = "", changed = 0, rounded = false
            for entry in entries {
                let end = entry.end ?? entry.start
                rounded = rounded || needsRounding(entry.start, unitsPerSecond: 1e6) || needsRounding(end, unitsPerSecond: 1e6)
                out += "\(seconds(entry.start))\t\(seconds(end))\t\(singleLine(entry.name, changed: &changed))\n"
            }
            if changed > 0 { notes.append("tabs and line breaks in \(counted(changed, "name")) replaced with spaces") }
            if rounded { notes.append("times rounded to microseconds") }
            return out
        }

        /// `12.500000`: seconds with 6 decimals, rounded to the nearest microsecond.
        static func seconds(_ t: Double) -> String {
            let micro = Int64((t * 1_000_000).rounded())   // t is within 0…86400 (see `prepared`)
            let fraction = String(micro % 1_000_000)
            return "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        }
    }
}
