// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

extension Interchange {
    /// LRC lyrics as markers: each stamped line is a point named by its text (see `LRC`).
    enum LyricLines {
        /// Reads the stamped lines as points, the file's offset applied. Lines without text (the
        /// breaks some files mark) are left out; a file without stamps is an error.
        static func read(_ lines: [TextLine]) throws(InterchangeError) -> Reading {
            let (lyrics, warnings) = LRC.read(lines)
            // Header tags alone (what an export of no markers writes) hold no markers; text without stamps is an error.
            if !lyrics.isSynced, lyrics.plain.allSatisfy({ $0.allSatisfy(\.isBlank) }) { return Reading() }
            guard lyrics.isSynced else { throw InterchangeError(line: nil, message: "no time stamps (unsynced lyrics)") }
            var reading = Reading()
            var empty = 0
            for line in lyrics.lines {
                if line.text.allSatisfy(\.isBlank) { empty += 1; continue }
                reading.entries.append(InterchangeEntry(name: line.text, start: line.time))
            }
            reading.notes = warnings.map { "line \($0.line): \($0.message)" }
            if empty > 0 { reading.notes.append("left out \(counted(empty, "line")) without text") }
            return reading
        }

        /// Writes a `[ti:]` tag (when given) and a `[mm:ss.xx]name` line per entry; a region keeps its start.
        /// A name holding what reads as a word stamp (`<00:37.70>`) has its `<` written `‹`: LRC has no
        /// escape, and the stamp would be read as timing, leaving the name out.
        /// A marker without a name is left out (and counted in `leftOut`): a line without text is a
        /// break, which readers (ours too) skip.
        static func write(_ entries: [InterchangeEntry], title: String?, notes: inout [String], leftOut: inout Int) -> String {
            var changed = 0, angled = 0, unnamed = 0
            let lines = entries.compactMap { entry -> Lyrics.Line? in
                if entry.name.allSatisfy(\.isBlank) { unnamed += 1; return nil }
                var text = singleLine(entry.name, changed: &changed)
                if !LRC.wordsOf(text, lineTime: 0).words.isEmpty {
                    text = text.replacingScalar("<", with: "‹") ?? text   // by scalar, as stamps are found
                    angled += 1
                }
                return Lyrics.Line(time: entry.start, text: text)
            }
            leftOut += unnamed
            let regions = entries.filter { $0.end != nil }.count
            if regions > 0 {
                notes.append("LRC files hold points only: " + (regions == 1 ? "1 loop kept as its start point" : "\(regions) loops kept as their start points"))
            }
            if entries.contains(where: { needsRounding($0.start, unitsPerSecond: 100) }) { notes.append("times rounded to hundredths of a second") }
            if changed > 0 { notes.append("tabs and line breaks in \(counted(changed, "name")) replaced with spaces") }
            if angled > 0 { notes.append("< written ‹ in \(counted(angled, "name")) where it would read as a word stamp") }
            if unnamed > 0 { notes.append("left out \(counted(unnamed, "marker")) without a name (an LRC line without text is a break)") }
            return LRC.write(Lyrics(lines: lines, tags: title.map { ["ti": $0] } ?? [:]))
        }
    }
}
