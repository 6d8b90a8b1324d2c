import Foundation
import PracticeCore

/// Everything the practice screen shows: the player's state plus what the session keeps.
public struct ScreenState: Sendable, Equatable {
    public var player: PlayerState
    /// Markers by time.
    public var markers: [MarkerRow]
    /// The A–B the user set with `a` / `b` (either may be missing), and whether it loops.
    public var loopStart: Double?
    public var loopEnd: Double?
    public var looping: Bool
    /// One line of feedback ("added marker 'Verse' at 0:12.500", or an error).
    public var message: String?
    /// A line being edited, such as a marker's name: its label and text.
    public var prompt: Prompt?
    public var showHelp = false

    public struct MarkerRow: Sendable, Equatable {
        public var name: String
        public var time: Double
        public init(name: String, time: Double) { self.name = name; self.time = time }
    }
    public struct Prompt: Sendable, Equatable {
        public var label: String
        public var text: String
        public init(label: String, text: String) { self.label = label; self.text = text }
    }

    public init(player: PlayerState, markers: [MarkerRow] = [], loopStart: Double? = nil, loopEnd: Double? = nil,
                looping: Bool = false, message: String? = nil, prompt: Prompt? = nil) {
        self.player = player; self.markers = markers; self.loopStart = loopStart; self.loopEnd = loopEnd
        self.looping = looping; self.message = message; self.prompt = prompt
    }
}

/// The full-screen practice view: a pure function from state to lines, so it can be tested as
/// snapshots at any size. Lines are at most `width` columns; there are exactly `height` of them.
public enum Screen {
    static let hint = "space play  ←→ seek  [ ] speed  m mark  1-9 jump  a b l loop  ? keys  q quit"

    static let help: [String] = [
        "Keys",
        "",
        "  space        play / pause",
        "  ← →          back / forward 5 s (shift: 1 s)      Home  to the start",
        "  [ ]          speed −0.1 / +0.1 ({ }: ±0.01)       0 or backspace  speed 1.0",
        "  - +          pitch −1 / +1 semitone",
        "  m            marker at the heard position (type a name, Enter)",
        "  1 … 9        jump to marker N and play            , .  previous / next marker",
        "  a b          loop start / end at the heard position",
        "  l            loop on / off                        L  the next named loop",
        "  s            save the loop (a to b) under a name",
        "  q            quit (markers are saved as you make them)",
        "",
        "Press any key to go back.",
    ]

    public static func render(_ s: ScreenState, width: Int, height: Int, color: Bool = false) -> [String] {
        let w = max(width, 20)
        var lines: [String] = []
        func add(_ line: String) { lines.append(fit(line, w)) }
        let p = s.player
        add(color ? bold(p.title) : p.title)
        let byline = [p.tags["artist"], p.tags["album"]].compactMap { $0 }.joined(separator: " · ")
        add(byline)
        if s.showHelp {
            lines.append("")
            for line in help { add(line) }
            return pad(lines, w, height)
        }
        lines.append("")
        let state = p.isFinished ? "■ Stopped" : p.isPlaying ? "▶ Playing" : "⏸ Paused"
        var right = "speed \(StatusLine.formatRate(p.rate))"
        if p.pitch != 0 { right += "  pitch \(p.pitch > 0 ? "+" : "")\(StatusLine.formatNumber(p.pitch)) st" }
        add(spread("\(state)   \(Timecode.format(p.position)) / \(Timecode.format(p.duration))", right, w))
        add(seekBar(s, width: w, color: color))
        add(loopLine(s))
        lines.append("")
        let fixed = lines.count + 3   // the marker heading, the message and the hint
        let room = max(height - fixed - (s.prompt == nil ? 0 : 1), 0)
        if room > 0 {
            add(s.markers.isEmpty ? "Markers: none yet (m drops one where you are)" : "Markers")
            let current = s.markers.lastIndex { $0.time <= p.position + 0.0005 }
            let shown = markerWindow(count: s.markers.count, current: current, room: room - 1)
            for k in shown {
                let m = s.markers[k]
                let key = k < 9 ? "\(k + 1)" : " "
                let pointer = k == current ? "▸" : " "
                let row = "\(pointer) \(key)  \(Timecode.format(m.time, decimals: 3))  \(m.name)"
                add(k == current && color ? bold(row) : row)
            }
        }
        lines = pad(lines, w, height - 2 - (s.prompt == nil ? 0 : 1))
        if let prompt = s.prompt { add("\(prompt.label): \(prompt.text)█") }
        add(s.message ?? "")
        add(color ? dim(hint) : hint)
        return Array(lines.prefix(height))
    }

    /// Which markers fit in `room` rows, keeping the current one in view.
    static func markerWindow(count: Int, current: Int?, room: Int) -> Range<Int> {
        guard count > room, room > 0 else { return 0..<min(count, max(room, 0)) }
        let first = min(max((current ?? 0) - room / 2, 0), count - room)
        return first..<(first + room)
    }

    /// `|────━━━━●───│──═════──|`: played part, playhead, marker ticks and the loop span.
    static func seekBar(_ s: ScreenState, width: Int, color: Bool) -> String {
        let n = max(width - 2, 4)
        let d = max(s.player.duration, 0.001)
        func column(_ t: Double) -> Int { min(max(Int((t / d * Double(n - 1)).rounded()), 0), n - 1) }
        var cells = [String](repeating: "─", count: n)
        let head = column(s.player.position)
        for i in 0..<head { cells[i] = "━" }
        if let a = s.loopStart, let b = s.loopEnd {
            for i in column(a)...max(column(a), column(b)) { cells[i] = color ? yellow("═") : "═" }
        }
        for m in s.markers { cells[column(m.time)] = "│" }
        if let a = s.loopStart { cells[column(a)] = color ? yellow("[") : "[" }
        if let b = s.loopEnd { cells[column(b)] = color ? yellow("]") : "]" }
        cells[head] = color ? cyan("●") : "●"
        return "▕" + cells.joined() + "▏"
    }

    static func loopLine(_ s: ScreenState) -> String {
        guard s.loopStart != nil || s.loopEnd != nil || s.player.loop != nil else { return "Loop: none (a and b set its ends)" }
        let a = s.loopStart.map { Timecode.format($0, decimals: 3) } ?? "?"
        let b = s.loopEnd.map { Timecode.format($0, decimals: 3) } ?? "?"
        var line = "Loop: \(a) – \(b)"
        if let name = s.player.loop?.name { line += " (\(name))" }
        if s.looping, let l = s.player.loop {
            line += "  on, pass \(l.pass)\(l.passes.map { "/\($0)" } ?? "")"
        } else {
            line += s.looping ? "  on" : "  off (l turns it on)"
        }
        return line
    }

    // MARK: Text helpers

    /// `left` and `right` on one line of `width`, with spaces between.
    static func spread(_ left: String, _ right: String, _ width: Int) -> String {
        let gap = width - Table.width(of: left) - Table.width(of: right)
        return gap >= 2 ? left + String(repeating: " ", count: gap) + right : left + "  " + right
    }

    /// Cuts a line to `width` columns (escape sequences take none), ending in "…" when cut.
    static func fit(_ line: String, _ width: Int) -> String {
        var out = "", columns = 0, inEscape = false
        for ch in line {
            if inEscape { out.append(ch); if ch == "m" { inEscape = false }; continue }
            if ch == "\u{1B}" { inEscape = true; out.append(ch); continue }
            let w = Table.width(of: String(ch))
            if columns + w > width {
                while let last = out.last, Table.width(of: String(last)) > 0, columns >= width { out.removeLast(); columns -= 1 }
                out.append("…")
                if line.contains("\u{1B}") { out += "\u{1B}[0m" }
                return out
            }
            out.append(ch)
            columns += w
        }
        return out
    }

    static func pad(_ lines: [String], _ width: Int, _ height: Int) -> [String] {
        lines.count >= height ? Array(lines.prefix(max(height, 0))) : lines + Array(repeating: "", count: height - lines.count)
    }

    static func bold(_ s: String) -> String { "\u{1B}[1m\(s)\u{1B}[0m" }
    static func dim(_ s: String) -> String { "\u{1B}[2m\(s)\u{1B}[0m" }
    static func cyan(_ s: String) -> String { "\u{1B}[36m\(s)\u{1B}[0m" }
    static func yellow(_ s: String) -> String { "\u{1B}[33m\(s)\u{1B}[0m" }
}
