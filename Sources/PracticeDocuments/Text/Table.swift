// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// Plain-text tables for listings: columns padded to their widest cell, two spaces apart.
public enum Table {
    /// Renders `header` and `rows` as lines without trailing spaces. Columns in `rightAligned`
    /// (by index) are padded on the left below the header, so times line up on their last digit.
    public static func render(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let all = [header] + rows
        let columns = header.count
        // The last column is not padded, and a column that is empty everywhere below the header is dropped.
        let used = (0..<columns).filter { c in c < columns - 1 || rows.contains { !$0[c].isEmpty } }
        // Each cell measured once.
        let cellWidths = all.map { row in used.map { width(of: row[$0]) } }
        let widths = used.indices.map { k in cellWidths.lazy.map { $0[k] }.max() ?? 0 }
        let right = used.map { rightAligned.contains($0) }
        // Each line made in one buffer of bytes, its cells copied in and the spaces between them
        // added only when text follows (a String grown piece by piece checks and grows itself at
        // every piece, and a listing may have 10,000 rows).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(widths.reduce(2 * used.count, +))
        return all.indices.map { index in
            bytes.removeAll(keepingCapacity: true)
            var spaces = 0   // owed before the next text, dropped at the end of the line
            for (k, c) in used.enumerated() {
                if k > 0 { spaces += 2 }
                let pad = widths[k] - cellWidths[index][k]
                let padFirst = right[k] && index > 0
                if padFirst { spaces += pad }
                var cell = all[index][c]
                if !cell.isEmpty {
                    bytes.append(contentsOf: repeatElement(0x20, count: spaces))
                    spaces = 0
                    cell.withUTF8 { bytes.append(contentsOf: $0) }
                }
                if !padFirst { spaces += pad }
            }
            // A cell's own trailing spaces go too, as from the end of any line.
            while bytes.last == 0x20 { bytes.removeLast() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Terminal columns a string takes: East Asian wide characters and emoji take two
    /// (Unicode's East Asian Width "W" and "F", as wcwidth counts them).
    public static func width(of s: String) -> Int {
        // Printable ASCII, one column a byte, without breaking the string into characters.
        if s.isPrintableASCII { return s.utf8.count }
        // Text of printable ASCII, Latin-1, the Latin extensions and the dashes, quotes and
        // bullets of U+2010–U+2027 (an em dash between artist and title): no scalar there joins
        // the one before it (combining marks start at U+0300, the joiner is U+200D), so each is a
        // character of one column, counted without breaking the string into characters.
        var scalars = 0
        for u in s.unicodeScalars {
            let v = u.value
            guard (0x20..<0x7F).contains(v) || (0xA0..<0x300).contains(v) || (0x2010...0x2027).contains(v) else {
                return characterWidth(of: s)
            }
            scalars += 1
        }
        return scalars
    }

    /// `width(of:)` character by character: a character's first scalar says whether it is wide.
    static func characterWidth(of s: String) -> Int {
        s.reduce(0) { total, ch in
            guard let v = ch.unicodeScalars.first?.value else { return total }
            return total + (isWide(v) ? 2 : 1)
        }
    }

    static func isWide(_ v: UInt32) -> Bool {
        if v < 0x1100 { return false }
        if v >= 0x1F000 { return v <= 0x1FAFF || (0x20000...0x3FFFD).contains(v) }
        for r in wideRanges where r.contains(v) { return true }
        return false
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x303E,
        0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
        0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
    ]
}
