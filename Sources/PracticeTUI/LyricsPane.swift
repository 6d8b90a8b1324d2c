// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeControl

/// The full-lyrics view (`y`): which line is picked, and what Enter does with it.
public struct LyricsView: Sendable, Equatable {
    /// The picked line (index into the synced lines).
    public var selected: Int
    /// On: Enter jumps to the picked line and plays. Off: Enter closes the view. `Tab` toggles.
    public var seekMode: Bool
    /// The pick follows the heard line until ↑ or ↓ moves it.
    public var following: Bool
    public init(selected: Int, seekMode: Bool, following: Bool = true) {
        self.selected = selected; self.seekMode = seekMode; self.following = following
    }
}

extension Screen {
    static let lyricsHintSeek = "↑↓ pick  Enter jump  Tab: Enter closes  a b loop lines  < > ±50 ms  Esc back"
    static let lyricsHintClose = "↑↓ pick  Enter close  Tab: Enter jumps  a b loop lines  < > ±50 ms  Esc back"

    /// The line being sung and the next, under the seek bar; the words sung so far stand out
    /// when the file has word stamps. Nothing without lyrics.
    static func lyricLines(_ s: ScreenState, color: Bool) -> [String] {
        guard let lyrics = s.lyrics else { return [] }
        guard lyrics.isSynced else {
            return lyrics.plain.isEmpty ? [] : ["Lyrics: not synced (\(s.bindings.label(.lyricsView)) shows them)"]
        }
        let t = s.player.position
        let current = lyrics.lineIndex(at: t)
        let next = current.map { $0 + 1 } ?? 0
        var out: [String] = []
        if let c = current {
            out.append("♪ " + sung(lyrics, line: c, at: t, color: color))
        } else {
            out.append("♪ …")
        }
        if next < lyrics.lines.count {
            let text = "  " + lyrics.lines[next].text.terminalSafe
            out.append(color ? dim(text) : text)
        } else {
            out.append("")
        }
        return out
    }

    /// Line `i` with its sung words bold (colour) or the current word in ‹ › (no colour).
    static func sung(_ lyrics: Lyrics, line i: Int, at t: Double, color: Bool) -> String {
        let line = lyrics.lines[i]
        guard !line.words.isEmpty, let w = lyrics.wordIndex(inLine: i, at: t) else { return color ? bold(line.text.terminalSafe) : line.text.terminalSafe }
        if color {
            let done = line.words[...w].map(\.text.terminalSafe).joined(), rest = line.words[(w + 1)...].map(\.text.terminalSafe).joined()
            return bold(cyan(done)) + rest
        }
        return line.words.enumerated().map { k, word in
            let text = word.text.terminalSafe
            guard k == w else { return text }
            let core = text.trimmingWhitespace()
            return text.replacing(core, with: "‹\(core)›")
        }.joined()
    }

    /// The full-lyrics view in `room` rows: the picked line in the middle, the heard one marked.
    static func lyricsRows(_ s: ScreenState, view: LyricsView, room: Int, color: Bool) -> [String] {
        guard let lyrics = s.lyrics, room > 0 else { return [] }
        var rows = ["Lyrics (\(view.seekMode ? "Enter jumps" : "Enter closes"))"]
        guard lyrics.isSynced else {
            return rows + lyrics.plain.prefix(room - 1).map { "   " + $0 }
        }
        let heard = lyrics.lineIndex(at: s.player.position)
        let shown = markerWindow(count: lyrics.lines.count, current: view.selected, room: room - 1)
        let digits = String(lyrics.lines.count).count
        for k in shown {
            let l = lyrics.lines[k]
            // Numbered as `--loop "line 5"` counts them.
            let number = String(repeating: " ", count: digits - String(k + 1).count) + String(k + 1)
            let row = "\(k == heard ? "▸" : " ")\(k == view.selected ? "›" : " ") \(number)  \(Timecode.format(l.time, decimals: 2))  \(l.text.terminalSafe)"
            if color && k == view.selected { rows.append(reverse(row)) } else if color && k == heard { rows.append(bold(row)) } else { rows.append(row) }
        }
        return rows
    }
}
