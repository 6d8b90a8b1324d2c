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
        guard unicodeScalars.contains(where: shown) else { return self }
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
