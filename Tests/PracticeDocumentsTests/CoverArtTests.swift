// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import PracticeDocuments

/// The folder's cover image picked on the names' bytes gives what lowercasing each name gave.
@Suite struct CoverArtTests {
    /// The rule as it was written before names were read as bytes: each name lowercased.
    static func reference(_ entry: String) -> Int? {
        let lower = entry.lowercased()
        guard let dot = lower.lastIndex(of: "."), CoverArt.extensions.contains(String(lower[lower.index(after: dot)...])) else { return nil }
        return CoverArt.names.firstIndex(of: String(lower[..<dot]))
    }

    /// What `rank` leans on: of every scalar beyond ASCII, only the Kelvin sign lowercases to
    /// ASCII (k), and no cover name or extension holds a k.
    @Test func onlyTheKelvinSignLowercasesToASCII() {
        var toASCII: [Unicode.Scalar] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if String(scalar).lowercased().utf8.allSatisfy({ $0 < 0x80 }) { toASCII.append(scalar) }
        }
        #expect(toASCII == ["\u{212A}"])
        #expect(!(CoverArt.names + CoverArt.extensions).joined().contains("k"))
    }

    @Test func theSameNamesAreFoundAndRankedAsByLowercasing() {
        var entries = ["Cover.JPG", "folder.png", "AlbumArtSmall.jpeg", "ALBUMART.WEBP", "front.gif", "album.jpg", "cover.jpg.bak",
                       "xcover.jpg", "cover", ".jpg", "cover.", "cover.jpgx", "cover..jpg", "covers.jpg", "album art.jpg",
                       "\u{FF23}over.jpg", "\u{0130}mage.png", "cover.j\u{0301}pg", "cover\u{0301}.jpg", "cöver.jpg", "\u{212A}over.jpg",
                       "folder.PNG", "FOLDER.png", "albumartsmall.jpeg.jpeg", "albumartsmall.jpegx", "front.jpe", "a.b.cover.jpg", ""]
        // Every cover name with every extension, in three cases, and one letter too many or too few.
        for name in CoverArt.names {
            for ext in CoverArt.extensions {
                entries += [name + "." + ext, (name + "." + ext).uppercased(), name.prefix(1).uppercased() + name.dropFirst() + "." + ext.uppercased(),
                            name + "s." + ext, String(name.dropLast()) + "." + ext, name + "." + ext + "\u{212A}"]
            }
        }
        for entry in entries {
            #expect(CoverArt.rank(of: entry) == Self.reference(entry), "\(entry)")
        }
        #expect(CoverArt.best(among: ["notes.txt", "Folder.jpg", "song.flac", "cover.png", "Cover.png"]) == "Cover.png")
        #expect(CoverArt.best(among: ["albumartsmall.jpg", "front.webp"]) == "front.webp")
        #expect(CoverArt.best(among: ["coverage.jpg", "cover.txt", "\u{212A}.jpg"]) == nil)
    }
}
