// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeControl

/// What a key on the practice screen does. The raw values are the names `keys.conf` uses.
public enum Action: String, CaseIterable, Sendable {
    case playPause = "play-pause"
    case back = "back", forward = "forward", backFine = "back-fine", forwardFine = "forward-fine", toStart = "to-start"
    case backMore = "back-30", forwardMore = "forward-30", goTo = "go-to"
    case faster = "faster", slower = "slower", fasterFine = "faster-fine", slowerFine = "slower-fine", speedReset = "speed-reset"
    case pitchUp = "pitch-up", pitchDown = "pitch-down", formant = "formant"
    case addMarker = "add-marker", markerList = "marker-list", previousMarker = "previous-marker", nextMarker = "next-marker"
    case jump1 = "jump-1", jump2 = "jump-2", jump3 = "jump-3", jump4 = "jump-4", jump5 = "jump-5"
    case jump6 = "jump-6", jump7 = "jump-7", jump8 = "jump-8", jump9 = "jump-9"
    case loopStart = "loop-start", loopEnd = "loop-end", loopToggle = "loop-toggle", nextLoop = "next-loop", saveLoop = "save-loop"
    case loopSection = "loop-section", passes = "passes"
    case nudgeEarlier = "nudge-earlier", nudgeLater = "nudge-later"
    case nudgeEarlierMore = "nudge-earlier-more", nudgeLaterMore = "nudge-later-more", switchEnd = "switch-end"
    case tapTempo = "tap-tempo", tempoOctave = "tempo-octave", countIn = "count-in"
    case lyricsView = "lyrics", lyricsEarlier = "lyrics-earlier", lyricsLater = "lyrics-later"
    case previousCount = "previous-eight", nextCount = "next-eight", loopCount = "loop-eight", growLoop = "loop-grow", shrinkLoop = "loop-shrink"
    case note = "note"
    case remote = "remote"
    case mirror = "mirror", video = "video", fullScreen = "fullscreen"
    case help = "help", quit = "quit", detach = "detach"

    /// Marker N (1–9) for `jump-N`.
    var jumpNumber: Int? {
        rawValue.hasPrefix("jump-") ? Int(rawValue.dropFirst(5)) : nil
    }
}

/// Which key does what: the defaults, changed by `$XDG_CONFIG_HOME/practice/keys.conf`.
///
/// The file has one binding a line, `KEY ACTION` (as mpv's input.conf): `x loop-toggle`,
/// `shift-up nudge-later-more`, `q ignore` to unbind, `mouse off` to leave clicks to the terminal.
/// `#` starts a comment. A key may have one
/// action; an action may have several keys. Ctrl-C always quits.
public struct KeyBindings: Sendable, Equatable {
    public private(set) var actions: [Key: Action]
    /// Clicks on the seek bar, a marker or a loop (`mouse off` in keys.conf leaves the mouse to
    /// the terminal, for selecting text).
    public private(set) var mouse = true

    public static let defaults = KeyBindings(actions: [
        .character(" "): .playPause,
        .left: .back, .right: .forward, .shiftLeft: .backFine, .shiftRight: .forwardFine, .home: .toStart,
        .pageUp: .backMore, .pageDown: .forwardMore, .character("g"): .goTo,
        .character("]"): .faster, .character("["): .slower, .character("}"): .fasterFine, .character("{"): .slowerFine,
        .character("0"): .speedReset, .backspace: .speedReset,
        .character("+"): .pitchUp, .character("="): .pitchUp, .character("-"): .pitchDown, .character("F"): .formant,
        .character("m"): .addMarker, .character("M"): .markerList, .character(","): .previousMarker, .character("."): .nextMarker,
        .character("1"): .jump1, .character("2"): .jump2, .character("3"): .jump3, .character("4"): .jump4, .character("5"): .jump5,
        .character("6"): .jump6, .character("7"): .jump7, .character("8"): .jump8, .character("9"): .jump9,
        .character("a"): .loopStart, .character("b"): .loopEnd, .character("l"): .loopToggle,
        .character("L"): .nextLoop, .character("s"): .saveLoop, .character("o"): .loopSection, .character("p"): .passes,
        .down: .nudgeEarlier, .up: .nudgeLater, .shiftDown: .nudgeEarlierMore, .shiftUp: .nudgeLaterMore, .tab: .switchEnd,
        .character("t"): .tapTempo, .character("T"): .tempoOctave, .character("c"): .countIn,
        .character("y"): .lyricsView, .character("<"): .lyricsEarlier, .character(">"): .lyricsLater,
        .character("("): .previousCount, .character(")"): .nextCount, .character("e"): .loopCount,
        .character("E"): .growLoop, .character("z"): .shrinkLoop,
        .character("n"): .note, .character("R"): .remote, .character("x"): .mirror, .character("v"): .video, .character("f"): .fullScreen, .character("?"): .help, .character("q"): .quit, .character("Q"): .quit, .character("d"): .detach,
    ])

    /// The named keys `keys.conf` knows, for help texts.
    public static let keyNames = ["space", "left", "right", "up", "down", "shift-left", "shift-right", "shift-up", "shift-down",
                                  "home", "end", "page-up", "page-down", "enter", "tab", "backspace", "escape", "sharp"]

    public subscript(key: Key) -> Action? { key == .ctrlC ? .quit : actions[key] }

    /// The keys bound to `action`, in a stable order (characters first, as typed).
    public func keys(for action: Action) -> [Key] {
        actions.filter { $0.value == action }.map(\.key).sorted { Self.order($0) < Self.order($1) }
    }

    /// The first key's label, or "–" when the action has no key.
    func label(_ action: Action) -> String { keys(for: action).first?.label ?? "–" }

    private static func order(_ k: Key) -> String {
        if case .character(let c) = k { return "0" + (c.isLetter && c.isUppercase ? "1" : "0") + String(c) }
        return "1" + k.label
    }

    /// The config file's place: `$XDG_CONFIG_HOME/practice/keys.conf`, else `~/.config/practice/keys.conf`.
    public static func configPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (FileManager.default.homeDirectoryForCurrentUser.path + "/.config")
        return base + "/practice/keys.conf"
    }

    /// The defaults with `path`'s bindings applied; the defaults alone if the file does not exist.
    /// A line that cannot be read is an error naming the file, the line and what is wrong (exit 78).
    public static func load(_ path: String) throws(PracticeError) -> KeyBindings {
        guard FileManager.default.fileExists(atPath: path) else { return defaults }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PracticeError(.config, "\(path): cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PracticeError(.config, "\(path): not UTF-8 text")
        }
        var b = defaults
        try b.apply(text, file: path)
        return b
    }

    /// Applies the lines of a `keys.conf`.
    public mutating func apply(_ text: String, file: String) throws(PracticeError) {
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if words.isEmpty { continue }
            func fail(_ what: String) -> PracticeError { PracticeError(.config, "\(file):\(n + 1): \(what)") }
            guard words.count == 2 else { throw fail("expected 'KEY ACTION', such as 'x loop-toggle' (got '\(line.trimmingWhitespace())')") }
            if words[0] == "mouse" {
                guard words[1] == "on" || words[1] == "off" else { throw fail("'mouse' is 'on' or 'off' (got '\(words[1])')") }
                mouse = words[1] == "on"
                continue
            }
            guard let key = Key(name: words[0]) else {
                throw fail("unknown key '\(words[0])' (a character, or \(Self.keyNames.joined(separator: ", ")))")
            }
            if words[1] == "ignore" { actions[key] = nil; continue }
            guard let action = Action(rawValue: words[1]) else {
                throw fail("unknown action '\(words[1])' (see 'practice play --help' for the list)")
            }
            actions[key] = action
        }
    }
}
