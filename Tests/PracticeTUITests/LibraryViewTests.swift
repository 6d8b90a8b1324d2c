// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeTestSupport
import PracticeLibrary
import PracticeDocuments
@testable import PracticeTUI

/// The library screen drawn without a terminal: the album grid in symbols mode (covers through
/// libchafa) and in text mode, at 80×24 and 120×40, against snapshots kept beside this file
/// (`PRACTICE_RECORD_SNAPSHOTS=1` writes them again; a missing one fails). Keys in, actions out.
@Suite struct LibraryViewTests {
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    /// Fourteen albums by eight artists: some with covers, one compilation, one without tags.
    static func library() -> [LibraryTrack] {
        var tracks: [LibraryTrack] = []
        let albums: [(String, String, String?)] = [
            ("Blue Train", "John Coltrane", "c1"), ("Kind of Blue", "Miles Davis", "c2"), ("Dance Floor Classics", "Various Artists", "c3"),
            ("Rumours", "Fleetwood Mac", nil), ("Thriller", "Michael Jackson", "c4"), ("Back to Black", "Amy Winehouse", "c5"),
            ("Discovery", "Daft Punk", "c6"), ("Homework", "Daft Punk", nil), ("Random Access Memories", "Daft Punk", "c1"),
            ("Buena Vista Social Club", "Buena Vista Social Club", "c2"), ("Vespertine", "Björk", nil), ("Post", "Björk", "c3"),
            ("Ōkami Original Soundtrack", "大神", "c4"), ("Hounds of Love", "Kate Bush", "c5"),
        ]
        for (k, a) in albums.enumerated() {
            for n in 1...3 {
                let compilation = a.1 == "Various Artists"
                tracks.append(LibraryTrack(id: Int64(tracks.count + 1), path: "/music/\(a.1)/\(a.0)/\(n).flac", title: "\(a.0) \(n)",
                                           artist: compilation ? "Artist \(n)" : a.1, album: a.0, albumArtist: compilation ? a.1 : nil,
                                           year: 1957 + k * 4, trackNumber: n, duration: 180 + Double(n * 17), cover: a.2.map { "/covers/\($0).png" },
                                           markerCount: n == 2 ? 3 : 0, loopCount: n == 2 && k % 2 == 0 ? 1 : 0, hasLyrics: n == 3))
            }
        }
        tracks.append(LibraryTrack(id: 99, path: "/music/loose/untitled take.wav", duration: 61))
        return tracks
    }

    /// A picture per cover name: a diagonal gradient in its own colours (no files needed).
    static func picture(_ path: String) -> Picture {
        let seed = path.unicodeScalars.reduce(0) { $0 &* 31 &+ Int($1.value) } & 0xFFFF
        let size = 48
        var rgba: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size {
                rgba += [UInt8((x * 5 + seed) & 0xFF), UInt8((y * 5 + seed / 7) & 0xFF), UInt8(((x + y) * 3 + seed / 3) & 0xFF), 255]
            }
        }
        return Picture(width: size, height: size, rgba: rgba)
    }

    static func view() -> LibraryView {
        var v = LibraryView()
        v.show(library())
        let pickTrack = library()[4]
        v.pick = TodaysPick(track: pickTrack, reason: "chorus loop, last practised 9 days ago", loop: "chorus", from: 12)
        return v
    }

    func check(_ lines: [String], against name: String) throws {
        let text = lines.joined(separator: "\n").replacingOccurrences(of: "\u{1B}", with: "␛") + "\n"
        let file = Self.snapshots.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["PRACTICE_RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.snapshots, withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "\(name) differs; the screen now:\n\(text)")
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func theGridInSymbols(width: Int, height: Int) throws {
        var v = Self.view()
        v.selected["grid"] = 1
        let lines = v.render(width: width, height: height) { path, c, r in
            .cells(TerminalPicture.render(Self.picture(path), columns: c, rows: r, mode: .symbols(.truecolor)))
        }
        #expect(lines.count == height)
        try check(lines, against: "library-grid-symbols-\(width)x\(height).txt")
        // Covers are drawn with 24-bit colours, in the upper-half-block shape.
        #expect(lines.contains { $0.contains("\u{1B}[38;2;") && $0.contains("▀") })
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func theGridInText(width: Int, height: Int) throws {
        var v = Self.view()
        v.selected["grid"] = 1
        let lines = v.render(width: width, height: height) { _, _, _ in nil }
        try check(lines, against: "library-grid-text-\(width)x\(height).txt")
        // Nothing but our own bold, dim and reverse: no colour at all.
        let sequences = Set(lines.flatMap { line in line.matches(of: /\x1B\[[0-9;]*m/).map { String(line[$0.range]) } })
        #expect(sequences.isSubset(of: ["\u{1B}[1m", "\u{1B}[2m", "\u{1B}[7m", "\u{1B}[0m"]), "\(sequences)")
    }

    /// Tiny and odd terminals: every mode draws exactly `height` lines of at most `width` columns.
    @Test(arguments: [(1, 1), (5, 3), (20, 5), (33, 11), (200, 60)])
    func anySizeOfTerminal(width: Int, height: Int) {
        var v = Self.view()
        for mode in [LibraryView.Mode.grid, .album(0), .list, .search] {
            v.mode = mode
            if mode == .search { v.found([LibraryHit(track: Self.library()[0], kind: .lyric, text: "a line", time: 3)]) }
            let lines = v.render(width: width, height: height) { path, c, r in
                .cells(TerminalPicture.render(Self.picture(path), columns: c, rows: r, mode: .symbols(.indexed16)))
            }
            #expect(lines.count == max(height, 1), "\(mode) at \(width)×\(height): \(lines.count) lines")
            for line in lines {
                // Only whole SGR sequences, none cut into, and the rest within the width.
                let text = line.replacing(/\x1B\[[0-9;]*m/, with: "")
                #expect(!text.contains("\u{1B}") && Table.width(of: text) <= width, "\(mode) at \(width)×\(height): \(line.debugDescription)")
            }
        }
    }

    @Test func keysMoveOpenAlbumsAndAskForSearches() {
        var v = Self.view()
        _ = v.render(width: 80, height: 24) { _, _, _ in nil }   // 5 tiles a row at 80 columns
        #expect(v.handle(.down) == .none && v.current == 5)
        #expect(v.handle(.right) == .none && v.current == 6)
        // Albums by artist: Amy Winehouse, Björk (Post, Vespertine), Buena Vista…, Daft Punk ×3, …
        #expect(v.albums[6].title == "Random Access Memories")
        #expect(v.handle(.enter) == .none && v.mode == .album(6))
        #expect(v.handle(.down) == .none)
        #expect(v.handle(.enter) == .open(path: "/music/Daft Punk/Random Access Memories/2.flac", from: nil, loop: nil))
        #expect(v.handle(.character(" ")) == .preview(path: "/music/Daft Punk/Random Access Memories/2.flac"), "Space previews the track selected")
        #expect(v.handle(.escape) == .none && v.mode == .grid)
        #expect(v.handle(.character(" ")) == .preview(path: "/music/Daft Punk/Random Access Memories/1.flac"), "in the grid, the album's first")
        #expect(v.handle(.character("/")) == .none && v.typing)
        #expect(v.handle(.character(" ")) == .none && v.query == " ", "a space is text while typing")
        _ = v.handle(.backspace)
        #expect(v.handle(.character("t")) == .search("t"))
        #expect(v.handle(.character("u")) == .search("tu"))
        #expect(v.handle(.backspace) == .search("t"))
        #expect(v.handle(.character("q")) == .search("tq"), "q is text while typing")
        #expect(v.handle(.escape) == .none && !v.typing && v.mode == .grid && v.query.isEmpty)
        #expect(v.handle(.character("p")) == .open(path: "/music/Miles Davis/Kind of Blue/2.flac", from: nil, loop: "chorus"))
        #expect(v.handle(.character("q")) == .quit)
    }

    @Test func searchHitsOpenAtTheirTimeOrLoop() {
        var v = Self.view()
        let t = Self.library()[1]
        _ = v.handle(.character("/"))
        v.found([LibraryHit(track: t, kind: .marker, name: "turn", text: "turn — watch the left foot", time: 72.3),
                 LibraryHit(track: t, kind: .loop, name: "bridge", text: "bridge", time: 90)])
        _ = v.handle(.enter)
        #expect(v.handle(.enter) == .open(path: t.path, from: 72.3, loop: nil))
        _ = v.handle(.down)
        #expect(v.handle(.enter) == .open(path: t.path, from: 90, loop: "bridge"))
        let screen = v.render(width: 80, height: 24) { _, _, _ in nil }.joined(separator: "\n")
        #expect(screen.contains("John Coltrane — Blue Train 2  1:12.3  marker  turn — watch the left foot"), "\(screen)")
    }

    /// Two files whose paths differ only in how an accent is encoded (é, or e and a combining
    /// acute) are two files to the file system, so two copies to tell apart; the same track found
    /// twice (a search's hits) is one.
    @Test func copiesAreToldApartByTheBytesOfTheirPaths() {
        func copy(_ id: Int64, _ path: String) -> LibraryTrack {
            LibraryTrack(id: id, path: path, title: "Drill", artist: "Crew")
        }
        let composed = copy(1, "/music/Caf\u{E9}/drill.flac"), decomposed = copy(2, "/music/Cafe\u{301}/drill.flac")
        #expect(composed.path == decomposed.path)   // Swift's string equality: canonical equivalence
        // (Keyed by path as a `String`, the two share one entry: their format and folder.)
        #expect(LibraryTrack.distinctions(among: [composed, decomposed]) == [composed.path: "FLAC, Caf\u{E9}"])
        #expect(LibraryTrack.distinctions(among: [composed, composed]).isEmpty)
    }

    /// The FLAC and the Ogg of one song (and a second FLAC elsewhere) are not rows that look the
    /// same: each says its format, and where that is the same too, its folder.
    @Test func copiesOfOneSongAreToldApart() {
        func copy(_ id: Int64, _ path: String) -> LibraryTrack {
            LibraryTrack(id: id, path: path, title: "Drill", artist: "Crew", album: "Studio", duration: 200)
        }
        let tracks = [copy(1, "/music/Crew/Studio/drill.flac"), copy(2, "/music/Crew/Studio/drill.ogg"), copy(3, "/music/Backup/drill.flac"),
                      LibraryTrack(id: 4, path: "/music/Crew/Studio/other.flac", title: "Other", artist: "Crew", album: "Studio")]
        #expect(LibraryTrack.distinctions(among: tracks) == ["/music/Crew/Studio/drill.flac": "FLAC, Studio", "/music/Crew/Studio/drill.ogg": "Ogg",
                                                              "/music/Backup/drill.flac": "FLAC, Backup"])
        var v = LibraryView()
        v.show(tracks)
        _ = v.handle(.character("/"))
        v.found(tracks.prefix(3).map { LibraryHit(track: $0, kind: .tags, text: "drill") })
        let screen = v.render(width: 100, height: 24) { _, _, _ in nil }
        for label in ["Crew — Drill (FLAC, Studio)", "Crew — Drill (Ogg)", "Crew — Drill (FLAC, Backup)"] {
            #expect(screen.contains { $0.contains(label) }, "\(label): \(screen)")
        }
    }

    @Test func filtersKeepTracksWithMarkersLyricsOrPractisedThisWeek() {
        var v = Self.view()
        _ = v.handle(.character("m"))
        #expect(v.albums.allSatisfy { $0.tracks.allSatisfy { $0.markerCount + $0.loopCount > 0 } } && v.albums.count == 14)
        _ = v.handle(.character("m"))
        _ = v.handle(.character("w"))
        #expect(v.albums.isEmpty)
        v.practisedThisWeek = ["/music/Björk/Post/1.flac"]
        #expect(v.albums.map(\.title) == ["Post"])
        _ = v.handle(.character("w"))
        _ = v.handle(.character("y"))
        #expect(v.albums.count == 14 && v.albums.allSatisfy { $0.tracks.count == 1 && $0.tracks[0].hasLyrics })
    }

    /// A selection is a thing, not a row: a filter, another order or a rescan that moves it keeps
    /// it selected, an open album stays open, and the same search read again keeps its hit.
    @Test func selectionsFollowWhatWasSelected() {
        var v = Self.view()
        let post = v.albums.firstIndex { $0.title == "Post" }!
        v.selected["grid"] = post
        _ = v.handle(.enter)
        _ = v.handle(.down)
        _ = v.handle(.down)
        #expect(v.mode == .album(post) && v.current == 2)
        // A rescan brings albums sorted before Post: the album and its third track stay.
        var more = Self.library()
        more.insert(LibraryTrack(id: 200, path: "/music/A/Aa/1.flac", title: "Aa", artist: "Aaron", album: "Aa"), at: 0)
        more.insert(LibraryTrack(id: 201, path: "/music/A/Ab/1.flac", title: "Ab", artist: "Abba", album: "Ab"), at: 0)
        v.show(more)
        #expect(v.mode == .album(post + 2) && v.albums[post + 2].title == "Post" && v.current == 2)
        #expect(v.handle(.enter) == .open(path: "/music/Björk/Post/3.flac", from: nil, loop: nil))
        // Its track without lyrics filtered away: back to the grid, on Post still.
        _ = v.handle(.escape)
        #expect(v.current == post + 2)
        _ = v.handle(.character("y"))
        #expect(v.albums[v.current].title == "Post", "\(v.albums.map(\.title)) at \(v.current)")
        _ = v.handle(.character("y"))
        // An album gone in a rescan closes.
        _ = v.handle(.enter)
        v.show(Self.library().filter { $0.album != "Post" })
        #expect(v.mode == .grid)
        // Sorting the list by title keeps the same track.
        _ = v.handle(.tab)
        v.selected["list"] = 7
        let track = v.listed[7].path
        _ = v.handle(.character("s"))
        #expect(v.listed[v.current].path == track && v.current != 7)
        // Search hits: a new search starts at the best hit; the same search read again keeps the hit.
        let t = Self.library()
        let hits = (0..<5).map { LibraryHit(track: t[$0], kind: .lyric, text: "line \($0)", time: Double($0)) }
        v.mode = .search
        v.found(hits)
        _ = v.handle(.down); _ = v.handle(.down)
        v.found([LibraryHit(track: t[9], kind: .marker, name: "new", text: "new", time: 1)] + hits, keepingSelection: true)
        #expect(v.handle(.enter) == .open(path: t[2].path, from: 2, loop: nil))
        v.found(hits)
        #expect(v.current == 0)
    }

    @Test func tagTextNeverReachesTheTerminalRaw() {
        var v = LibraryView()
        v.show([LibraryTrack(id: 1, path: "/m/\u{1B}[31mred\n.wav", title: "\u{1B}]0;pwned\u{7}Title", artist: "\u{1B}[2JArtist",
                             album: "\u{9B}31mAlbum")])
        for mode in [LibraryView.Mode.grid, .list, .album(0)] {
            v.mode = mode
            let frame = v.render(width: 80, height: 24) { _, _, _ in nil }
            for line in frame {
                // Only our own SGR sequences: an ESC is always followed by `[` and digits ending in `m`.
                let stripped = line.replacing(/\x1B\[[0-9;]*m/, with: "")
                #expect(!stripped.contains("\u{1B}") && !stripped.contains("\u{7}") && !stripped.contains("\u{9B}"), "\(mode): \(line.debugDescription)")
            }
            #expect(frame.joined().contains("\\u{1b}]0;pwned\\u{7}Title") || mode == .grid, "\(mode)")
        }
        // The pick's line, the search box (typed text), a hit's text and the message line too.
        let evil = v.tracks[0]
        v.pick = TodaysPick(track: evil, reason: "\u{1B}]2;title\u{7} loop", loop: "\u{1B}[5m", from: nil)
        v.mode = .grid
        _ = v.handle(.character("/"))
        for c in "a\u{1B}[31mb\u{9B}c" { _ = v.handle(.character(c)) }
        v.found([LibraryHit(track: evil, kind: .lyric, text: "\u{1B}[2Jline\r\u{8}", time: 1)])
        v.message = "\u{1B}]52;c;Y2xpcGJvYXJk\u{7}copied"
        let frame = v.render(width: 100, height: 24) { _, _, _ in nil }
        for line in frame {
            let stripped = line.replacing(/\x1B\[[0-9;]*m/, with: "")
            #expect(!stripped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line.debugDescription)")
        }
        let text = frame.joined(separator: "\n")
        #expect(text.contains("\\u{1b}]2;title\\u{7} loop") && text.contains("\\u{1b}[2Jline") && text.contains("\\u{1b}]52;c;Y2xpcGJvYXJk\\u{7}copied"), "\(text)")
    }
}

/// How covers reach the terminal: chafa's terminal database picks kitty graphics, sixels or
/// coloured blocks from the environment, and nothing at all with NO_COLOR or a dumb terminal.
@Suite struct CoverDrawingTests {
    @Test(arguments: [
        (["TERM": "xterm-kitty"], TerminalPicture.Mode?.some(.kitty)),
        (["TERM": "mlterm"], .some(.sixels)),
        (["TERM": "foot"], .some(.sixels)),
        (["TERM": "xterm-256color"], .some(.symbols(.indexed256))),
        (["TERM": "xterm-256color", "COLORTERM": "truecolor"], .some(.symbols(.truecolor))),
        (["TERM": "tmux-256color"], .some(.symbols(.indexed256))),
        (["TERM": "vt100"], .some(.symbols(.indexed16))),
        (["TERM": "xterm-kitty", "NO_COLOR": "1"], nil),
        (["TERM": "dumb"], nil),
        ([:], nil),
    ])
    func theTerminalDecides(environment: [String: String], mode: TerminalPicture.Mode?) {
        #expect(TerminalPicture.mode(environment: environment) == mode, "\(environment)")
    }

    /// A real PNG of 9000 × 9000 grey pixels (80 kB of file, 324 MB decoded) is refused from its
    /// header; a small one decodes to its pixels; text labelled as a picture is an error.
    @Test func picturesAreDecodedWithinReason() throws {
        let dir = ScratchDirectory("pictures")
        let script = """
            import struct, sys, zlib
            def png(path, w, h, row):
                raw = b"".join(b"\\0" + row(y) for y in range(h))
                chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
                open(path, "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                                       + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
            png(sys.argv[1], 9000, 9000, lambda y: bytes(9000))
            png(sys.argv[2], 3, 2, lambda y: bytes([10 * y, 100, 200]))
            """
        #expect(try run("/usr/bin/python3", ["-c", script, dir.file("huge.png"), dir.file("small.png")]).status == 0)
        #expect(throws: ImageError.self) { _ = try Picture.read(dir.file("huge.png")) }
        do { _ = try Picture.read(dir.file("huge.png")) } catch { #expect(error.reason == "9000 × 9000 pixels, larger than a cover") }
        let small = try Picture.read(dir.file("small.png"))
        #expect(small.width == 3 && small.height == 2 && small.rgba == [0, 0, 0, 255, 100, 100, 100, 255, 200, 200, 200, 255,
                                                                         10, 10, 10, 255, 100, 100, 100, 255, 200, 200, 200, 255])
        do {
            _ = try Picture.decode(Array("not a picture at all".utf8), name: "cover.jpg")
            Issue.record("text decoded as a picture")
        } catch {
            #expect(error.description.hasPrefix("cover.jpg: not an image we can draw ("), "\(error)")
        }
    }

    @Test func kittyAndSixelPicturesAreDrawnOverBlankCellsAfterTheText() throws {
        let picture = LibraryViewTests.picture("/covers/c1.png")
        // A square picture in 14 × 7 cells: 140 × 140 pixels in 10 × 20 cells, 112 × 112 in 8 × 16.
        for (cell, pixels) in [((10, 20), 140), ((8, 16), 112)] {
            let kitty = TerminalPicture.render(picture, columns: 14, rows: 7, mode: .kitty, cell: cell).joined()
            #expect(kitty.contains("s=\(pixels),v=\(pixels)"), "\(cell): \(kitty.prefix(60).debugDescription)")
        }
        let kitty = TerminalPicture.render(picture, columns: 14, rows: 7, mode: .kitty).joined()
        #expect(kitty.hasPrefix("\u{1B}_G") && kitty.hasSuffix("\u{1B}\\"), "\(kitty.prefix(40).debugDescription)")
        let sixels = TerminalPicture.render(picture, columns: 14, rows: 7, mode: .sixels).joined()
        #expect(sixels.hasPrefix("\u{1B}P") && sixels.hasSuffix("\u{1B}\\") && sixels.contains("#"), "\(sixels.prefix(40).debugDescription)")

        var v = LibraryViewTests.view()
        let lines = v.render(width: 80, height: 24) { path, _, _ in .overlay("<\(path)>") }
        // Two rows of five albums on the screen, seven of them with covers (Vespertine, Homework and
        // Rumours have none), each drawn at its tile's top-left cell under the three heading lines.
        #expect(v.albums.prefix(10).filter { $0.cover != nil }.count == 7 && v.overlays.count == 7, "\(v.overlays)")
        #expect(v.overlays.first == Overlay(row: 3, column: 1, sequence: "<\(v.albums[0].cover!)>"))
        #expect(v.overlays.contains { $0.row == 3 + LibraryView.tileHeight && $0.column == 1 + 4 * LibraryView.tileWidth })
        // Only pictures whose cells are all on the screen: none below the last row or past the edge.
        var small = LibraryViewTests.view()
        _ = small.render(width: 80, height: 11) { path, _, _ in .overlay("<\(path)>") }
        #expect(small.overlays.count == 4 && small.overlays.allSatisfy { $0.row == 3 }, "\(small.overlays)")
        _ = small.render(width: 80, height: 10) { path, _, _ in .overlay("<\(path)>") }
        #expect(small.overlays.isEmpty, "\(small.overlays)")
        _ = small.render(width: 15, height: 24) { path, _, _ in .overlay("<\(path)>") }
        #expect(small.overlays.count == 2 && small.overlays.allSatisfy { $0.column == 1 })
        _ = small.render(width: 14, height: 24) { path, _, _ in .overlay("<\(path)>") }
        #expect(small.overlays.isEmpty)
        // A cover still being decoded: blank cells, not the framed title drawn for no picture.
        var waiting = LibraryViewTests.view()
        let pendingFrame = waiting.render(width: 80, height: 24) { _, _, _ in .pending }
        #expect(pendingFrame[3...9].allSatisfy { $0.hasPrefix(String(repeating: " ", count: 1 + LibraryView.coverColumns)) })
        #expect(pendingFrame.joined().contains("┌"), "albums without a cover are framed")
        #expect(waiting.overlays.isEmpty)
        // The cells under a picture are blank: nothing of it is in the text.
        #expect(lines[4].hasPrefix(String(repeating: " ", count: 1 + LibraryView.coverColumns)))
        #expect(!lines.joined().contains("<"))
    }
}
