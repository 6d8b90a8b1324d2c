// SPDX-License-Identifier: GPL-3.0-or-later
extension String {
    /// The text with everything that could steer a terminal shown instead: C0 and C1 control
    /// characters (ESC, BEL, CR, TAB… : `ESC ] 0 ; title BEL` retitles a terminal, `ESC [ 2 J`
    /// clears it), DEL, and the bidirectional overrides that reorder what is shown, each as
    /// `\u{…}`. Tags, file names, marker names, lyrics and network text pass through this before
    /// any of them reaches a terminal, on the screen and in plain output; `keepingLayout` keeps
    /// line breaks and tabs for multi-line output.
    public func terminalSafe(keepingLayout: Bool = false) -> String {
        func shown(_ u: Unicode.Scalar) -> Bool { Self.steers(u) && !(keepingLayout && (u == "\n" || u == "\t")) }
        // Most text steers nothing: that is read from its UTF-8 bytes, a scalar decoded only where
        // one does (decoding every path and title was a twentieth of a library search's work).
        let clean = utf8.withContiguousStorageIfAvailable { !Self.steers(utf8: $0, keepingLayout: keepingLayout) }
            ?? !unicodeScalars.contains(where: shown)
        if clean { return self }
        var out = String.UnicodeScalarView()
        for u in unicodeScalars {
            if shown(u) {
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// The text made safe for one line of a terminal (`terminalSafe()`).
    public var terminalSafe: String { terminalSafe() }

    /// Whether the UTF-8 `bytes` hold a scalar that `steers` (but a line break or tab with
    /// `keepingLayout`). In valid UTF-8 a lead byte is never a continuation byte, so each form is
    /// found where it starts: C0 controls and DEL are one byte; C1 controls U+0080–U+009F are
    /// C2 80–C2 9F; U+200E–U+200F are E2 80 8E–8F, U+202A–U+202E are E2 80 AA–AE, and
    /// U+2066–U+2069 are E2 81 A6–A9.
    static func steers(utf8 bytes: UnsafeBufferPointer<UInt8>, keepingLayout: Bool) -> Bool {
        let n = bytes.count
        var i = 0
        while i < n {
            let b = bytes[i]
            if b < 0x20 || b == 0x7F {
                if !(keepingLayout && (b == 0x0A || b == 0x09)) { return true }
            } else if b == 0xC2 {
                if i + 1 < n, (0x80...0x9F).contains(bytes[i + 1]) { return true }
            } else if b == 0xE2, i + 2 < n {
                let b1 = bytes[i + 1], b2 = bytes[i + 2]
                if b1 == 0x80, b2 == 0x8E || b2 == 0x8F || (0xAA...0xAE).contains(b2) { return true }
                if b1 == 0x81, (0xA6...0xA9).contains(b2) { return true }
            }
            i += 1
        }
        return false
    }

    /// Whether `u` steers a terminal (and is shown as `\u{…}` by `terminalSafe`, escaped by our
    /// JSON writer).
    static func steers(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true   // bidi marks, embeddings, overrides, isolates
        default: return false
        }
    }
}
