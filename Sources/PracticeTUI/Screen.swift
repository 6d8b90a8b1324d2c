// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeControl

/// Everything the practice screen shows: the player's state plus what the session keeps.
public struct ScreenState: Sendable, Equatable {
    public var player: PlayerState
    /// Markers by time.
    public var markers: [MarkerRow]
    /// A loop end set before the other one (the loop itself is `player.loop`).
    public var pendingStart: Double?
    public var pendingEnd: Double?
    /// The loop's ends as shown: the player's loop, else what waits for its other end.
    var loopStart: Double? { player.loop?.start ?? pendingStart }
    var loopEnd: Double? { player.loop?.end ?? pendingEnd }
    var looping: Bool { player.loop?.isOn == true }
    /// The loop end that the nudge keys move.
    public var selectedEnd = LoopEnd.end
    /// One line of feedback ("added marker 'Verse' at 0:12.500", or an error).
    public var message: String?
    /// A line being edited, such as a marker's name: its label and text.
    public var prompt: Prompt?
    public var showHelp = false
    /// The phone remote's panel (its address and pairing code), while it is open.
    public var remotePanel: [String]?
    /// The marker list (`M`) is open, with this row picked.
    public var markerList: Int?
    /// The track's lyrics (times already shifted by the sidecar's tweak), and the full view when open.
    public var lyrics: Lyrics?
    public var lyricsView: LyricsView?
    /// Count-in, gaps and trainer that loops get; the song's tempo when known.
    public var rehearsal = Rehearsal()
    public var bpm: Double?
    public var bindings = KeyBindings.defaults
    /// Why the sidecar could not be read, shown in place of the markers' heading.
    public var sidecarProblem: String?
    /// The loops saved in the sidecar, listed under the markers.
    public var loops: [SidecarView.NamedLoop] = []
    /// The beat grid: the count is shown while it plays.
    public var beats: BeatGrid?

    public enum LoopEnd: Sendable, Equatable { case start, end }

    public struct MarkerRow: Sendable, Equatable {
        public var name: String
        public var time: Double
        /// The marker's id, which edits from the screen name it by (names may be shared after a merge).
        public var id: String
        /// Made on another copy of the song, in music this copy does not have (shown at the cut).
        public var notInThisCopy: Bool
        public init(name: String, time: Double, id: String? = nil, notInThisCopy: Bool = false) {
            self.name = name; self.time = time; self.id = id ?? name; self.notInThisCopy = notInThisCopy
        }
    }
    public struct Prompt: Sendable, Equatable {
        public var label: String
        public var text: String
        /// The text is a suggestion: the first key typed replaces it, Enter alone keeps it, an
        /// editing key (← → Home End) keeps it for editing.
        public var isSuggestion: Bool
        /// Where typing goes, in characters from the start.
        public var cursor: Int
        public init(label: String, text: String, isSuggestion: Bool = false) {
            self.label = label; self.text = text; self.isSuggestion = isSuggestion; cursor = text.count
        }

        /// Applies one key to the text as a shell's line editor does (Enter, Esc and Tab are the
        /// caller's): characters insert at the cursor; Backspace, Ctrl-U (to the start) and
        /// Ctrl-W (the word before) delete; ← → Home End move.
        mutating func edit(_ key: Key) {
            var chars = Array(text)
            cursor = min(max(cursor, 0), chars.count)
            switch key {
            case .character(let c):
                if isSuggestion { chars = []; cursor = 0 }
                chars.insert(c, at: cursor)
                cursor += 1
            case .backspace:
                if isSuggestion { chars = []; cursor = 0 } else if cursor > 0 { chars.remove(at: cursor - 1); cursor -= 1 }
            case .ctrlU:
                chars.removeFirst(isSuggestion ? chars.count : cursor)
                cursor = 0
            case .ctrlW:
                var k = isSuggestion ? chars.count : cursor
                while k > 0, chars[k - 1] == " " { k -= 1 }
                while k > 0, chars[k - 1] != " " { k -= 1 }
                chars.removeSubrange(k..<(isSuggestion ? chars.count : cursor))
                cursor = k
            case .left: cursor = max(cursor - 1, 0)
            case .right: cursor = min(cursor + 1, chars.count)
            case .home: cursor = 0
            case .end: cursor = chars.count
            default: return
            }
            text = String(chars)
            isSuggestion = false
        }

        /// The text before the cursor, and from it on.
        var split: (String, String) {
            let chars = Array(text), k = min(max(cursor, 0), chars.count)
            return (String(chars[..<k]), String(chars[k...]))
        }
    }

    public init(player: PlayerState, markers: [MarkerRow] = [], pendingStart: Double? = nil, pendingEnd: Double? = nil,
                message: String? = nil, prompt: Prompt? = nil) {
        self.player = player; self.markers = markers; self.pendingStart = pendingStart; self.pendingEnd = pendingEnd
        self.message = message; self.prompt = prompt
    }
}

/// The full-screen practice view: a pure function from state to lines, so it can be tested as
/// snapshots at any size. Lines are at most `width` columns; there are exactly `height` of them.
public enum Screen {
    /// The one-line key hint, with the keys as bound.
    static func hint(_ b: KeyBindings) -> String {
        let jumps = b.label(.jump1) == "1" && b.label(.jump9) == "9" ? "1-9" : "\(b.label(.jump1))…\(b.label(.jump9))"
        return "\(b.label(.playPause)) play  \(b.label(.back))\(b.label(.forward)) seek  \(b.label(.slower)) \(b.label(.faster)) speed  "
            + "\(b.label(.addMarker)) mark  \(jumps) jump  \(b.label(.loopStart)) \(b.label(.loopEnd)) \(b.label(.loopToggle)) loop  "
            + "\(b.label(.help)) keys  \(b.label(.quit)) quit"
    }

    /// The marker list's hint (⇧←→ nudges 100 ms; the help and the README say so).
    static func markerListHint(_ b: KeyBindings) -> String {
        "↑↓ pick  ←→ nudge 10 ms  \(b.label(.loopStart)) \(b.label(.loopEnd)) loop ends  r rename  d delete  Enter jump  Esc back"
    }

    /// The help page's entries: the actions (their keys are shown) and what they do.
    static let helpEntries: [([Action], String)] = [
        ([.playPause], "play / pause"),
        ([.back, .forward], "back / forward 5 s"),
        ([.backFine, .forwardFine], "back / forward 1 s"),
        ([.backMore, .forwardMore], "back / forward 30 s"),
        ([.goTo], "go to a time or marker"),
        ([.toStart], "to the start (or A)"),
        ([.slower, .faster], "speed −0.1 / +0.1"),
        ([.slowerFine, .fasterFine], "speed −0.01 / +0.01"),
        ([.speedReset], "speed 1.0"),
        ([.pitchDown, .pitchUp, .formant], "pitch −1 / +1 / formant"),
        ([.addMarker], "marker where you are"),
        ([.jump1, .jump9], "jump to marker N"),
        ([.previousMarker, .nextMarker], "previous / next marker"),
        ([.markerList], "rename, nudge, delete"),
        ([.loopStart, .loopEnd], "loop start / end here"),
        ([.loopSection], "loop this section"),
        ([.passes], "passes: then 1–9, 0"),
        ([.loopToggle], "loop on / off"),
        ([.nextLoop], "the next saved loop"),
        ([.saveLoop], "save the loop by name"),
        ([.switchEnd], "nudge A or B"),
        ([.nudgeEarlier, .nudgeLater], "nudge it −10 / +10 ms"),
        ([.nudgeEarlierMore, .nudgeLaterMore], "nudge it −100 / +100 ms"),
        ([.tapTempo, .tempoOctave], "tap / other tempo (bpm)"),
        ([.lyricsView], "all the lyrics"),
        ([.lyricsEarlier, .lyricsLater], "lyrics −50 / +50 ms"),
        ([.countIn], "count-in (as --count-in)"),
        ([.previousCount, .nextCount, .loopCount], "eight: back / next / loop"),
        ([.growLoop, .shrinkLoop], "loop one more / fewer"),
        ([.note, .remote], "note / phone remote"),
        ([.video, .fullScreen, .mirror], "video / full / mirror"),
        ([.help], "these keys"),
        ([.quit], "quit (edits are saved)"),
        ([.detach], "detach: it plays on"),
    ]

    /// The help page: the keys as bound, in two columns when there is room.
    static func help(_ b: KeyBindings, width: Int) -> [String] {
        let cells = helpEntries.map { actions, text -> String in
            let keys: String
            if actions == [.jump1, .jump9] {
                keys = b.label(.jump1) == "1" && b.label(.jump9) == "9" ? "1…9" : "\(b.label(.jump1))…\(b.label(.jump9))"
            } else if actions.count == 1 {
                let all = b.keys(for: actions[0]).map(\.label)
                keys = all.isEmpty ? "–" : all.joined(separator: " ")
            } else {
                keys = actions.map { b.label($0) }.joined(separator: " ")
            }
            return "  " + keys + String(repeating: " ", count: max(13 - Table.width(of: keys), 1)) + text
        }
        var lines = ["Keys", ""]
        if width >= 80 {
            let half = (cells.count + 1) / 2
            for i in 0..<half {
                let left = cells[i]
                guard i + half < cells.count else { lines.append(left); continue }
                lines.append(left + String(repeating: " ", count: max(width / 2 - Table.width(of: left), 1)) + cells[i + half])
            }
        } else {
            lines += cells
        }
        lines += ["", "Change keys in $XDG_CONFIG_HOME/practice/keys.conf. Press any key to go back."]
        return lines
    }

    public static func render(_ s: ScreenState, width: Int, height: Int, color: Bool = false) -> [String] {
        compose(s, width: width, height: height, color: color).lines
    }

    /// What a click at `column`, `row` (from 1, as the terminal counts) on the screen as drawn
    /// at this size would touch: a place on the seek bar, a marker row, a saved loop's row.
    public static func hit(_ s: ScreenState, width: Int, height: Int, column: Int, row: Int) -> Hit? {
        guard let hit = compose(s, width: width, height: height, color: false).hits[row - 1] else { return nil }
        if case .seekBar(let cells, _) = hit {
            // The bar is "▕", its cells from column 2, then "▏".
            let cell = column - 2
            guard cell >= 0, cell < cells else { return nil }
            // A cell's left edge, so the last cell is still inside the track (not its end).
            return .seekBar(cells: cells, time: Double(cell) / Double(cells) * s.player.duration)
        }
        return hit
    }

    /// What a row of the screen stands for, for clicks.
    public enum Hit: Equatable, Sendable {
        /// The seek bar: its cells, and (from `hit`) the time under the click.
        case seekBar(cells: Int, time: Double)
        case marker(Int)
        case loop(Int)
    }

    static func compose(_ s: ScreenState, width: Int, height: Int, color: Bool) -> (lines: [String], hits: [Int: Hit]) {
        let w = max(width, 20)
        if height < 10 || width < 30 { return (compact(s, width: w, height: max(height, 1)), [:]) }
        var lines: [String] = []
        var hits: [Int: Hit] = [:]
        func add(_ line: String, _ hit: Hit? = nil) {
            if let hit { hits[lines.count] = hit }
            lines.append(fit(line, w))
        }
        let p = s.player
        add(color ? bold(p.title.terminalSafe) : p.title.terminalSafe)
        let byline = [p.tags["artist"], p.tags["album"]].compactMap { $0?.terminalSafe }.joined(separator: " · ")
        add(byline)
        if s.showHelp {
            lines.append("")
            for line in help(s.bindings, width: w) { add(line) }
            return (pad(lines, w, height), [:])
        }
        if let panel = s.remotePanel {
            lines.append("")
            // Not cut to the width: a QR code cut is no code (it is 33 columns).
            for line in panel { lines.append(line) }
            return (pad(lines, w, height), [:])
        }
        lines.append("")
        let state = p.deviceLost != nil ? "⏸ No sound" : p.isFinished ? "■ Stopped" : p.isPlaying ? "▶ Playing" : "⏸ Paused"
        var right = "speed \(StatusLine.formatRate(p.rate))"
        if p.pitch != 0 { right += "  pitch \(p.pitch > 0 ? "+" : "")\(shortNumber(p.pitch)) st" }
        if let bpm = s.bpm { right += "  \(shortNumber(bpm)) bpm" }
        add(spread("\(state)   \(heardPlace(p)) / \(Timecode.format(p.duration))", right, w))
        add(seekBar(s, width: w, color: color), .seekBar(cells: max(w - 2, 4), time: 0))
        add(loopLine(s))
        for line in countLines(s, color: color, large: height >= 24) { add(line) }
        for line in rehearsalLines(s) { add(line) }
        if s.lyricsView == nil { for line in lyricLines(s, color: color) { add(line) } }
        lines.append("")
        let fixed = lines.count + 3   // the marker heading, the message and the hint
        let room = max(height - fixed - (s.prompt == nil ? 0 : 1), 0)
        if let view = s.lyricsView {
            for row in lyricsRows(s, view: view, room: room, color: color) { add(row) }
        } else if room > 0 {
            let editing = s.markerList != nil
            if let problem = s.sidecarProblem {
                add("Markers unreadable: \(problem.terminalSafe) (left as it is; reloads when fixed)")
            } else {
                add(s.markers.isEmpty ? "Markers: none yet (\(s.bindings.label(.addMarker)) drops one where you are)"
                    : editing ? "Markers (editing)" : "Markers")
            }
            let current = s.markers.lastIndex { $0.time <= p.position + 0.0005 }
            let focus = s.markerList ?? current
            // Saved loops get a third of the room (a heading and a row each), the markers the rest.
            let loopRows = s.loops.isEmpty || room < 4 ? 0 : min(s.loops.count + 1, max(room / 3, 2))
            let shown = markerWindow(count: s.markers.count, current: focus, room: room - 1 - loopRows)
            for k in shown {
                let m = s.markers[k]
                let key = k < 9 ? "\(k + 1)" : " "
                let pointer = editing ? (k == s.markerList ? "›" : " ") : (k == current ? "▸" : " ")
                let row = "\(pointer) \(key)  \(Timecode.format(m.time, decimals: 3))  \(m.name.terminalSafe)\(m.notInThisCopy ? "  (not in this copy)" : "")"
                if editing { add(k == s.markerList && color ? reverse(row) : row, .marker(k)) } else { add(k == current && color ? bold(row) : row, .marker(k)) }
            }
            if loopRows > 0 {
                add("Loops (\(s.bindings.label(.nextLoop)) plays the next)")
                let playing = s.loops.firstIndex { $0.name == p.loop?.name && $0.start == p.loop?.start && $0.end == p.loop?.end }
                for k in markerWindow(count: s.loops.count, current: playing, room: loopRows - 1) {
                    let l = s.loops[k]
                    let row = "\(k == playing ? "▸" : " ")    \(Timecode.format(l.start, decimals: 3)) – \(Timecode.format(l.end, decimals: 3))  \(l.name.terminalSafe)"
                    add(k == playing && color ? bold(row) : row, .loop(k))
                }
            }
        }
        lines = pad(lines, w, height - 2 - (s.prompt == nil ? 0 : 1))
        hits = hits.filter { $0.key < lines.count }
        if let prompt = s.prompt {
            let (before, after) = prompt.split
            let safe = prompt.text.terminalSafe
            let text = !prompt.isSuggestion ? before.terminalSafe + "█" + after.terminalSafe : (color ? reverse(safe) : "‹\(safe)›") + "█"
            add("\(prompt.label.terminalSafe): \(text)")
        }
        add(fitMessage((s.message ?? "").terminalSafe, w))
        let hintLine = s.lyricsView.map { $0.seekMode ? lyricsHintSeek : lyricsHintClose }
            ?? (s.markerList != nil ? markerListHint(s.bindings) : hint(s.bindings))
        add(color ? dim(hintLine) : hintLine)
        return (Array(lines.prefix(height)), hits)
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

    /// The heard position, or during a count-in the click being heard.
    static func heardPlace(_ p: PlayerState) -> String {
        if let c = p.loop?.countIn { return "count-in \(c.beat) of \(c.of)" }
        return Timecode.format(p.position)
    }

    /// A terminal too small for the full screen (down to 20×5): what matters while drilling, the
    /// position and the speed first, then the loop, the prompt and the message.
    static func compact(_ s: ScreenState, width w: Int, height: Int) -> [String] {
        let p = s.player
        let symbol = p.isFinished ? "■" : p.isPlaying ? "▶" : "⏸"
        var lines = [fit("\(symbol) \(heardPlace(p)) \(StatusLine.formatRate(p.rate))\(p.pitch != 0 ? " \(p.pitch > 0 ? "+" : "")\(shortNumber(p.pitch))st" : "")", w)]
        if let l = p.loop {
            lines.append(fit("loop \(l.isOn ? "\(l.pass)\(l.passes.map { "/\($0)" } ?? "")" : "off") \(Timecode.format(l.start))–\(Timecode.format(l.end))", w))
        }
        if let prompt = s.prompt {
            let (before, after) = prompt.split
            lines.append(fit("\(prompt.isSuggestion ? "‹\(prompt.text.terminalSafe)›" : before.terminalSafe)█\(prompt.isSuggestion ? "" : after.terminalSafe)", w))
        }
        if let m = s.message { lines.append(fitMessage(m.terminalSafe, w)) }
        if lines.count < height { lines.insert(fit(p.title.terminalSafe, w), at: 1) }
        return pad(Array(lines.prefix(height)), w, height)
    }

    /// `Eight 3   1  2 ‹3› 4 …`: the count heard (from the beat grid), the beat marked; with
    /// `large`, the beat's number three rows tall beside it, to be read from across a room.
    static func countLines(_ s: ScreenState, color: Bool, large: Bool) -> [String] {
        guard let g = s.beats, let here = g.beat(at: s.player.position) else { return [] }
        let beats = (1...g.meter).map { n -> String in
            n == here.beat ? (color ? reverse(" \(n) ") : "‹\(n)›") : " \(n) "
        }.joined()
        // The other reading of the tempo, and the key that switches to it: "96 bpm (or 48: T)".
        let other = g.otherTempo.map { "   \(shortNumber(g.tempo)) bpm (or \(shortNumber($0)): \(s.bindings.label(.tempoOctave)))" } ?? ""
        let line = "\(g.countName.capitalized) \(here.group)  " + beats + other
        guard large, let glyph = bigDigits[here.beat] else { return [line] }
        let pad = String(repeating: " ", count: max(Table.width(of: withoutStyle(line)), 0))
        return [line + "   " + glyph[0], pad + "   " + glyph[1], pad + "   " + glyph[2]]
    }

    /// 1 to 9, three rows tall, in half blocks.
    static let bigDigits: [Int: [String]] = [
        1: ["▄█ ", " █ ", "▄█▄"], 2: ["▀▀█", "█▀▀", "▀▀▀"], 3: ["▀▀█", " ▀█", "▀▀▀"],
        4: ["█ █", "▀▀█", "  ▀"], 5: ["█▀▀", "▀▀█", "▀▀▀"], 6: ["█▀▀", "█▀█", "▀▀▀"],
        7: ["▀▀█", "  █", "  ▀"], 8: ["█▀█", "█▀█", "▀▀▀"], 9: ["█▀█", "▀▀█", "▀▀▀"],
    ]

    static func loopLine(_ s: ScreenState) -> String {
        guard s.loopStart != nil || s.loopEnd != nil || s.player.loop != nil else { return "Loop: none (\(s.bindings.label(.loopStart)) and \(s.bindings.label(.loopEnd)) set its ends)" }
        let a = s.loopStart.map { Timecode.format($0, decimals: 3) } ?? "?"
        let b = s.loopEnd.map { Timecode.format($0, decimals: 3) } ?? "?"
        var line = "Loop: \(a) – \(b)"
        if let name = s.player.loop?.name { line += " (\(name.terminalSafe))" }
        if s.looping, let l = s.player.loop {
            line += "  on, pass \(l.pass)\(l.passes.map { "/\($0)" } ?? "")"
            if let c = l.countIn { line += ", count-in \(c.beat) of \(c.of)" }
        } else if s.player.loop != nil {
            line += "  off (\(s.bindings.label(.loopToggle)) turns it on)"
        } else {
            line += "  (\(s.bindings.label(s.pendingStart == nil ? .loopStart : .loopEnd)) sets the other end)"
        }
        if s.loopStart != nil && s.loopEnd != nil {
            line += "  \(s.bindings.label(.nudgeEarlier))\(s.bindings.label(.nudgeLater)) nudge \(s.selectedEnd == .start ? "A" : "B")"
        }
        return line
    }

    /// What loops get besides their passes: count-in, gap and pre-roll on one line, the trainer on
    /// another (none when there is nothing to say).
    static func rehearsalLines(_ s: ScreenState) -> [String] {
        let r = s.rehearsal
        var parts: [String] = []
        if r.countIn > 0 {
            let tempo = (r.bpm ?? s.bpm).map { "at \(shortNumber($0)) bpm" } ?? "(no tempo: tap it)"
            parts.append("count-in \(r.countIn) \(tempo) \(r.countInEvery ? "before each pass" : "before the first pass")")
        }
        if r.gap > 0 { parts.append("gap \(shortNumber(r.gap)) s") }
        if r.preRoll > 0 { parts.append("pre-roll \(shortNumber(r.preRoll)) s") }
        var lines = parts.isEmpty ? [] : ["Rehearsal: " + parts.joined(separator: " · ")]
        if let t = r.trainer {
            var text = "Trainer: \(StatusLine.formatRate(t.from)) → \(StatusLine.formatRate(t.to)), "
                + "\(t.to >= t.from ? "+" : "−")\(shortNumber(t.step)) every \(t.every == 1 ? "pass" : "\(t.every) passes")"
            if let l = s.player.loop, s.looping { text += "; next pass \(StatusLine.formatRate(t.rate(forPass: l.pass)))" }
            lines.append(text)
        }
        return lines
    }

    // MARK: Text helpers

    /// `left` and `right` on one line of `width`, with spaces between.
    static func spread(_ left: String, _ right: String, _ width: Int) -> String {
        let gap = width - columns(of: left) - columns(of: right)
        return gap >= 2 ? left + String(repeating: " ", count: gap) + right : left + "  " + right
    }

    /// The columns a line of ours takes on the terminal: its text, not its SGR sequences.
    static func columns(of line: String) -> Int { Table.width(of: withoutStyle(line)) }

    /// A line without its CSI sequences (`ESC [` … a letter), which take no columns.
    static func withoutStyle(_ line: String) -> String {
        guard line.contains("\u{1B}") else { return line }
        var out = "", inEscape = false
        for ch in line {
            if inEscape { if ch.isLetter { inEscape = false }; continue }
            if ch == "\u{1B}" { inEscape = true; continue }
            out.append(ch)
        }
        return out
    }

    /// Cuts a line to `width` columns (escape sequences take none and are never cut into), ending
    /// in "…" when cut.
    /// A message (plain text) in `width` columns: one too long keeps its start and its end, where
    /// the reason is ("…: Read-only file system"), with "…" for what is left out between.
    static func fitMessage(_ text: String, _ width: Int) -> String {
        guard width > 8, columns(of: text) > width else { return fit(text, width) }
        let headRoom = (width - 1) * 2 / 5
        var head = "", used = 0
        for ch in text {
            let w = Table.width(of: String(ch))
            if used + w > headRoom { break }
            head.append(ch); used += w
        }
        var tail: [Character] = [], tailUsed = 0
        for ch in text.reversed() {
            let w = Table.width(of: String(ch))
            if used + 1 + tailUsed + w > width { break }
            tail.append(ch); tailUsed += w
        }
        return head + "…" + String(tail.reversed())
    }

    static func fit(_ line: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(of: line) > width else { return line }
        // Pieces: a character and its columns, or a whole escape sequence (no columns).
        var pieces: [(text: String, columns: Int)] = [], escape = ""
        var used = 0
        for ch in line {
            if !escape.isEmpty {
                escape.append(ch)
                if ch.isLetter { pieces.append((escape, 0)); escape = "" }
                continue
            }
            if ch == "\u{1B}" { escape = "\u{1B}"; continue }
            let w = Table.width(of: String(ch))
            if used + w > width - 1 { break }   // room for the "…"
            pieces.append((String(ch), w))
            used += w
        }
        return pieces.map(\.text).joined() + "…" + (line.contains("\u{1B}") ? "\u{1B}[0m" : "")
    }

    static func pad(_ lines: [String], _ width: Int, _ height: Int) -> [String] {
        lines.count >= height ? Array(lines.prefix(max(height, 0))) : lines + Array(repeating: "", count: height - lines.count)
    }

    static func bold(_ s: String) -> String { "\u{1B}[1m\(s)\u{1B}[0m" }
    static func dim(_ s: String) -> String { "\u{1B}[2m\(s)\u{1B}[0m" }
    static func reverse(_ s: String) -> String { "\u{1B}[7m\(s)\u{1B}[0m" }
    static func cyan(_ s: String) -> String { "\u{1B}[36m\(s)\u{1B}[0m" }
    static func yellow(_ s: String) -> String { "\u{1B}[33m\(s)\u{1B}[0m" }
}
