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

    @Test func columnsLineUpOnTheirWidth() {
        let lines = Table.render(header: ["NAME", "TIME"], rows: [["漢字", "0:01"], ["Verse", "0:10"]], rightAligned: [1])
        #expect(lines == ["NAME   TIME", "漢字   0:01", "Verse  0:10"])
    }
}
