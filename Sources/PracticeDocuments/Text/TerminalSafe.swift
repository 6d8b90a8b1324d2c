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
        let clean = utf8.withContiguousStorageIfAvailable { $0.isPrintableASCII || !Self.holds(shown, utf8: $0) } ?? !unicodeScalars.contains(where: shown)
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

    /// Whether the UTF-8 `bytes` hold a scalar `shown` picks, decoding only those that may steer:
    /// every one `steers` names is a single byte below 0x80 or starts with C2 (U+0080–U+00BF) or
    /// E2 (U+2000–U+2FFF). In valid UTF-8 a lead byte is never a continuation byte.
    static func holds(_ shown: (Unicode.Scalar) -> Bool, utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        var i = 0
        while i < n {
            let b = bytes[i]
            var v: UInt32?
            if b < 0x20 || b == 0x7F {
                v = UInt32(b)
            } else if b == 0xC2, i + 1 < n {
                v = 0x80 | UInt32(bytes[i + 1] & 0x3F)
            } else if b == 0xE2, i + 2 < n {
                v = 0x2000 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
            }
            if let v, let u = Unicode.Scalar(v), shown(u) { return true }
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

extension String {
    /// Whether every byte is printable ASCII (0x20–0x7E): one terminal column each, nothing that
    /// steers it.
    public var isPrintableASCII: Bool {
        utf8.withContiguousStorageIfAvailable(\.isPrintableASCII) ?? utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether every byte is printable ASCII (0x20–0x7E), looked at eight at a time: in a word, a
    /// byte from 0x80 up sets its own top bit, one below 0x20 the top bit of `word - 0x20 × ones`
    /// where the word's is clear, one of 0x7F that of `d - ones` for `d = word ^ 0x7F × ones`
    /// (the bit tricks of "has a byte less than n" and "has a zero byte"). A table measures every
    /// cell and every shown string is checked, most of them paths and titles in plain ASCII.
    public var isPrintableASCII: Bool {
        guard let base = baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= count {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let d = x ^ (0x7F &* ones)
            if (x | ((x &- 0x20 &* ones) & ~x) | ((d &- ones) & ~d)) & high != 0 { return false }
            i += 8
        }
        while i < count {
            if base[i] < 0x20 || base[i] >= 0x7F { return false }
            i += 1
        }
        return true
    }
}
