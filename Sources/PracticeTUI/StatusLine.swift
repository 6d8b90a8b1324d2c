// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeControl

/// The one-line status shown while playing on a terminal: a pure function of the player's state.
public enum StatusLine {
    /// Renders `state` to at most `width` columns (the title is shortened first).
    public static func render(_ state: PlayerState, width: Int) -> String {
        let symbol = state.isFinished ? "■" : state.isPlaying ? "▶" : "⏸"
        var right = "\(Timecode.format(state.position)) / \(Timecode.format(state.duration))  \(formatRate(state.rate))"
        if state.pitch != 0 { right += "  \(state.pitch > 0 ? "+" : "")\(formatNumber(state.pitch)) st" }
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

    public static func formatNumber(_ v: Double) -> String {
        if v == v.rounded() { return String(Int(v)) }
        var text = cFormat("%.2f", v)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }   // 2.001 → "2"
        return text
    }
}
