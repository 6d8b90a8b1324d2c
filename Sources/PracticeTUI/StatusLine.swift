// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeControl

/// The one-line status shown while playing on a terminal: a pure function of the player's state.
public enum StatusLine {
    /// `'Title' — artist: playing 0:39.6 / 0:53.3 at 0.8×, loop 0:29.300–0:38.900 (pass 2), pid 123`
    public static func summary(_ status: StateMessage) -> String {
        let s = status.state
        var out = "'\((s.title.isEmpty ? "?" : s.title).terminalSafe)'"
        if let artist = s.tags["artist"] { out += " — \(artist.terminalSafe)" }
        let state = s.isFinished ? "finished" : s.isPlaying ? "playing" : "paused"
        out += ": \(state) \(Timecode.format(s.position, decimals: 1)) / \(Timecode.format(s.duration, decimals: 1))"
        out += " at \(shortNumber(s.rate))×"
        if s.pitch != 0 { out += ", pitch \(s.pitch > 0 ? "+" : "")\(shortNumber(s.pitch))" }
        if let l = s.loop, l.isOn {
            let name = l.name.map { "'\($0.terminalSafe)' " } ?? ""
            out += ", loop \(name)\(Timecode.format(l.start, decimals: 3))–\(Timecode.format(l.end, decimals: 3)) (pass \(l.pass)\(l.passes.map { " of \($0)" } ?? ""))"
        }
        if let pid = status.process?.pid { out += ", pid \(pid)" }
        return out
    }

    /// Renders `state` to at most `width` columns (the title is shortened first).
    public static func render(_ state: PlayerState, width: Int) -> String {
        let symbol = state.isFinished ? "■" : state.isPlaying ? "▶" : "⏸"
        var right = "\(Timecode.format(state.position)) / \(Timecode.format(state.duration))  \(formatRate(state.rate))"
        if state.pitch != 0 { right += "  \(state.pitch > 0 ? "+" : "")\(shortNumber(state.pitch)) st" }
        if state.underruns > 0 { right += "  \(state.underruns) underrun\(state.underruns == 1 ? "" : "s")" }
        let room = width - right.count - 4
        var title = state.title.terminalSafe
        if room < 1 { title = "" } else if title.count > room { title = String(title.prefix(max(room - 1, 0))) + "…" }
        let line = title.isEmpty ? "\(symbol) \(right)" : "\(symbol) \(title)  \(right)"
        return String(line.prefix(width))
    }

    /// `0.80×`
    public static func formatRate(_ rate: Double) -> String {
        let hundredths = Int((rate * 100).rounded())
        let frac = hundredths % 100
        return "\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac)×"
    }
}
