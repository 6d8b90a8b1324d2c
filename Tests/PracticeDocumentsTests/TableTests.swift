// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeDocuments

@Suite struct TableTests {
    /// Terminal columns: printable ASCII by its bytes, anything else character by character (a
    /// CR LF is one character, a combining mark rides on the letter before it, a wide character or
    /// an emoji takes two).
    @Test(arguments: [("Verse 2", 7), ("", 0), ("\r\n", 1), ("tab\there", 8), ("e\u{301}cole", 5),
                      ("漢字", 4), ("a漢", 3), ("🎸 solo", 7)])
    func widthCountsColumns(text: String, columns: Int) {
        #expect(Table.width(of: text) == columns, "\(text.debugDescription)")
    }

    /// Text of Latin letters and common punctuation is measured scalar by scalar, without breaking
    /// it into characters: every scalar it takes that way is a character of one column, and a
    /// string holding any other falls back to the characters (a combining mark after such a
    /// letter, a wide character, an emoji sequence joined by U+200D).
    @Test func latinTextIsOneColumnAScalar() {
        let fast = Array(0x20..<0x7F) + Array(0xA0..<0x300) + Array(0x2010...0x2027)
        var wrong: [String] = []
        for v in fast {
            let text = "a" + String(Character(Unicode.Scalar(UInt32(v))!)) + "b"
            if Table.width(of: text) != 3 || text.count != 3 { wrong.append(String(v, radix: 16)) }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(Table.width(of: "Unknown artist — 04 Silver Horizon") == 34)
        #expect(Table.width(of: "Café\u{301} — 漢") == 9)
        #expect(Table.width(of: "a\u{2014}👩\u{200D}🎤") == 4)
        #expect(Table.width(of: "e\u{301}\u{2014}") == 2)
    }

    @Test func columnsLineUpOnTheirWidth() {
        let lines = Table.render(header: ["NAME", "TIME"], rows: [["漢字", "0:01"], ["Verse", "0:10"]], rightAligned: [1])
        #expect(lines == ["NAME   TIME", "漢字   0:01", "Verse  0:10"])
    }

    /// Empty cells, a right-aligned column, and the ends of lines: no trailing spaces, not even a
    /// cell's own, and nothing else taken from the end (a space after a prepended Arabic sign is
    /// one character with it: only the space goes).
    @Test func spacesStayBetweenTextAndNeverEndALine() {
        let lines = Table.render(header: ["FILE", "TIME", "IN", "WHAT"],
                                 rows: [["a.flac", "", "tags", "Artist — Title  "], ["long name.ogg", "1:02.500", "", ""],
                                        ["b", "10:00.000", "lyrics", "\u{600} "]], rightAligned: [1])
        #expect(lines == ["FILE           TIME       IN      WHAT",
                          "a.flac                    tags    Artist — Title",
                          "long name.ogg   1:02.500",
                          "b              10:00.000  lyrics  \u{600}"])
        #expect(Table.render(header: ["A", "B", "C"], rows: [["x", "", "z"], ["", "", ""]]) == ["A  B  C", "x     z", ""])
    }
}
