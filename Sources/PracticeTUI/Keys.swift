// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
/// A key press as the terminal sends it.
public enum Key: Hashable, Sendable {
    case character(Character)
    case left, right, up, down
    case shiftLeft, shiftRight, shiftUp, shiftDown
    case home, end, pageUp, pageDown
    case enter, escape, backspace, tab
    case ctrlC, ctrlU, ctrlW
    /// A press of the left mouse button, at a column and row counted from 1.
    case click(column: Int, row: Int)
}

/// Turns the bytes a terminal sends into keys: UTF-8 text, the xterm escape sequences for arrows
/// (with the shift modifier), Home, End, PgUp and PgDn, and control characters.
public struct KeyDecoder {
    private var pending: [UInt8] = []

    public init() {}

    /// Adds bytes read from the terminal; returns the keys they complete. A lone ESC is held until
    /// `flush()` (called when no more bytes follow shortly), since it may begin a sequence.
    public mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while let (key, used) = Self.decode(pending) {
            pending.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// The keys held back waiting for more bytes (a lone ESC, an unfinished sequence).
    public mutating func flush() -> [Key] {
        defer { pending.removeAll() }
        return pending.first == 0x1B ? [.escape] : []
    }

    /// One key from the start of `b` and how many bytes it used; nil if more bytes are needed.
    /// A used count with a nil key skips bytes we do not understand.
    static func decode(_ b: [UInt8]) -> (Key?, Int)? {
        guard let first = b.first else { return nil }
        switch first {
        case 0x03: return (.ctrlC, 1)
        case 0x15: return (.ctrlU, 1)
        case 0x17: return (.ctrlW, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x1B:
            guard b.count >= 2 else { return nil }
            guard b[1] == UInt8(ascii: "[") || b[1] == UInt8(ascii: "O") else { return (.escape, 1) }
            // CSI: parameters, then a final byte in 0x40…0x7E.
            var i = 2
            while i < b.count, !(0x40...0x7E).contains(b[i]) { i += 1 }
            guard i < b.count else { return b.count > 16 ? (nil, b.count) : nil }
            let params = String(decoding: b[2..<i], as: UTF8.self)
            // A terminal without SGR mouse (GNU screen, the Linux console) sends ESC [ M and three
            // raw bytes (button, column, row): skipped whole, never read as keys.
            if i == 2, b[i] == UInt8(ascii: "M"), b[1] == UInt8(ascii: "[") {
                guard b.count >= i + 4 else { return nil }
                return (nil, i + 4)
            }
            // SGR mouse: ESC [ < button ; column ; row, then M (press) or m (release).
            if params.hasPrefix("<") {
                let n = params.dropFirst().split(separator: ";").compactMap { Int($0) }
                guard n.count == 3, b[i] == UInt8(ascii: "M"), n[0] == 0 else { return (nil, i + 1) }
                return (.click(column: n[1], row: n[2]), i + 1)
            }
            let shift = params.hasSuffix(";2")
            let key: Key?
            switch b[i] {
            case UInt8(ascii: "D"): key = shift ? .shiftLeft : .left
            case UInt8(ascii: "C"): key = shift ? .shiftRight : .right
            case UInt8(ascii: "A"): key = shift ? .shiftUp : .up
            case UInt8(ascii: "B"): key = shift ? .shiftDown : .down
            case UInt8(ascii: "H"): key = .home
            case UInt8(ascii: "F"): key = .end
            case UInt8(ascii: "~"):
                switch params {
                case "1", "7": key = .home
                case "4", "8": key = .end
                case "5": key = .pageUp
                case "6": key = .pageDown
                default: key = nil
                }
            default: key = nil
            }
            return (key, i + 1)
        case 0x00..<0x20: return (nil, 1)
        default:
            // A UTF-8 character: its length from the lead byte.
            let length = first < 0x80 ? 1 : first < 0xE0 ? 2 : first < 0xF0 ? 3 : 4
            guard b.count >= length else { return nil }
            guard let s = String(validating: b[0..<length], as: UTF8.self), let c = s.first else { return (nil, 1) }
            return (.character(c), length)
        }
    }
}

extension Key {
    /// The names `keys.conf` uses: a character as itself, and `space`, `left`, `right`, `up`,
    /// `down`, `shift-left` … `shift-down`, `home`, `end`, `enter`, `tab`, `backspace`, `escape`
    /// and `sharp` (`#` begins a comment).
    static let names: [String: Key] = [
        "space": .character(" "), "sharp": .character("#"),
        "left": .left, "right": .right, "up": .up, "down": .down,
        "shift-left": .shiftLeft, "shift-right": .shiftRight, "shift-up": .shiftUp, "shift-down": .shiftDown,
        "home": .home, "end": .end, "page-up": .pageUp, "page-down": .pageDown, "enter": .enter, "tab": .tab, "backspace": .backspace, "escape": .escape,
    ]

    /// A key from its name in `keys.conf`, or nil.
    public init?(name: String) {
        if let k = Self.names[name.lowercased()] { self = k; return }
        guard name.count == 1, let c = name.first, !c.isWhitespace, c != "#" else { return nil }
        self = .character(c)
    }

    /// How the screen and `keys.conf` write the key: a character as itself, arrows as arrows.
    public var label: String {
        switch self {
        case .character(" "): "space"
        case .character(let c): String(c)
        case .left: "←"
        case .right: "→"
        case .up: "↑"
        case .down: "↓"
        case .shiftLeft: "⇧←"
        case .shiftRight: "⇧→"
        case .shiftUp: "⇧↑"
        case .shiftDown: "⇧↓"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "backspace"
        case .tab: "Tab"
        case .ctrlC: "Ctrl-C"
        case .ctrlU: "Ctrl-U"
        case .ctrlW: "Ctrl-W"
        case .click: "click"
        }
    }
}

extension KeyDecoder {
    /// Reads what the terminal on `fd` has sent (after poll said it is readable) and decodes it;
    /// a lone ESC waits 20 ms for the rest of a sequence, else it is Esc. Nil: the terminal went away.
    public mutating func read(from fd: Int32) -> [Key]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return nil }
        var keys = feed(Array(buffer[0..<n]))
        if keys.isEmpty {
            var more = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&more, 1, 20) > 0 {
                let m = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if m > 0 { keys = feed(Array(buffer[0..<m])) }
            }
            if keys.isEmpty { keys = flush() }
        }
        return keys
    }
}
