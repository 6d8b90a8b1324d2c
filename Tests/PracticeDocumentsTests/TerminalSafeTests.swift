// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeDocuments

@Suite struct TerminalSafeTests {
    /// What steers a terminal, written out here as the rule says it (not as the code finds it):
    /// C0 controls, DEL and C1 controls, and the bidirectional marks, embeddings, overrides and
    /// isolates; with `keepingLayout`, line breaks and tabs stay.
    static func reference(_ text: String, keepingLayout: Bool) -> String {
        var out = ""
        for u in text.unicodeScalars {
            let v = u.value
            let steers = v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x200E || v == 0x200F
                || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            if steers && !(keepingLayout && (v == 0x0A || v == 0x09)) {
                out += "\\u{\(String(v, radix: 16))}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// Every scalar there is, 24 at a time between ASCII letters (a steering one at a string's
    /// very start and end too): text is read from its UTF-8 bytes first, and only what holds a
    /// steering scalar is rewritten, so a form the byte reading missed (a C1 control is two bytes,
    /// a bidirectional override three) would come out unchanged and differ here.
    @Test(arguments: [false, true])
    func everyScalarIsShownAsTheRuleSays(keepingLayout: Bool) {
        let scalars = (0...0x10FFFF).compactMap(Unicode.Scalar.init(_:) as (UInt32) -> Unicode.Scalar?)
        var mismatches: [String] = []
        var start = 0
        while start < scalars.count {
            var text = "a"
            for u in scalars[start..<min(start + 24, scalars.count)] { text.unicodeScalars.append(u); text += "b" }
            if text.terminalSafe(keepingLayout: keepingLayout) != Self.reference(text, keepingLayout: keepingLayout) {
                mismatches.append(String(scalars[start].value, radix: 16))
            }
            start += 24
        }
        for v: UInt32 in [0x00, 0x09, 0x0A, 0x1B, 0x7F, 0x80, 0x9F, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069] {
            let u = Unicode.Scalar(v)!
            for text in [String(Character(u)), "x" + String(Character(u)), String(Character(u)) + "x"] {
                if text.terminalSafe(keepingLayout: keepingLayout) != Self.reference(text, keepingLayout: keepingLayout) {
                    mismatches.append("alone \(String(v, radix: 16))")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    /// The neighbours of the steering forms steer nothing: a no-break space (C2 A0), the joiners
    /// (E2 80 8C–8D), a narrow no-break space (E2 80 AF), U+206A (E2 81 AA).
    @Test func theirNeighboursAreLeftAlone() {
        let text = "a\u{A0}b\u{200C}\u{200D}c\u{202F}d\u{206A}é漢🎸"
        #expect(text.terminalSafe == text)
        #expect("a\u{202E}b".terminalSafe == "a\\u{202e}b")
        #expect("\u{85}".terminalSafe == "\\u{85}")
        #expect("tab\there\n".terminalSafe(keepingLayout: true) == "tab\there\n")
        #expect("tab\there\n".terminalSafe == "tab\\u{9}here\\u{a}")
    }

    /// The eight-at-a-time check of printable ASCII against the rule byte by byte: every byte
    /// value at every place of buffers from 0 to 24 bytes (each lane of a word and the tail), and
    /// two at once (a borrow from one lane must not hide or fake another).
    @Test func printableASCIIIsCheckedAsByteByByte() {
        func rule(_ b: [UInt8]) -> Bool { b.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
        for length in 0...24 {
            for place in 0..<max(length, 1) {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    if place < length { bytes[place] = UInt8(value) }
                    let got = bytes.withUnsafeBufferPointer(\.isPrintableASCII)
                    if got != rule(bytes) { Issue.record("\(bytes): \(got)"); return }
                }
            }
        }
        for (a, b) in [(0x1F, 0x80), (0x00, 0x7F), (0x20, 0x7E), (0x7F, 0x21), (0x10, 0x30), (0xFF, 0x00)] as [(UInt8, UInt8)] {
            for i in 0..<16 {
                for j in 0..<16 where j != i {
                    var bytes = [UInt8](repeating: UInt8(ascii: "~"), count: 16)
                    bytes[i] = a
                    bytes[j] = b
                    #expect(bytes.withUnsafeBufferPointer(\.isPrintableASCII) == rule(bytes), "\(bytes)")
                }
            }
        }
    }
}
