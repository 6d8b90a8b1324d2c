// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeLibrary

/// A library of 340 files made by Debian's encoders and taggers (flac, oggenc, opusenc, lame,
/// eyeD3: make-library.py beside this file, which writes a manifest of what each file holds):
/// every format we play, compilations, missing and broken tags, covers that are not pictures,
/// Unicode, names with newlines and escape sequences, hidden and non-audio files. The index must
/// hold exactly what the manifest says.
@Suite struct GeneratedLibraryTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("make-library.py").path

    final class Library: @unchecked Sendable {  // immutable after init
        let dir = ScratchDirectory("library-generated")
        let files: [[String: Any]]
        let skipped: [String]
        var root: String { dir.file("music") }

        init() throws {
            let r = try run("/usr/bin/python3", [GeneratedLibraryTests.script, dir.file("music")])
            guard r.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["stderr": r.stderr]) }
            let manifest = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
            files = manifest["files"] as! [[String: Any]]
            skipped = manifest["skipped"] as! [String]
        }
    }

    static let library = Result { try Library() }

    func sha256(_ path: String) throws -> String {
        String(try run("/usr/bin/sha256sum", [path]).stdout.prefix(64))
    }

    @Test func theIndexHoldsWhatTheFilesSay() throws {
        let lib = try Self.library.get()
        let index = try LibraryIndex(path: lib.dir.file("index.sqlite"), covers: lib.dir.file("covers"))
        let report = try index.scan([lib.root])
        #expect(lib.files.count == 340 && report.found == 340 && report.added == 340, "\(report.summary)")
        #expect(report.problems == ["\(lib.root)/Broken/garbage.flac: TagLib cannot read its tags"], "\(report.problems)")
        let tracks = try index.tracks()
        // By bytes: the NFC and NFD "Café.flac" are two files.
        var byPath: [[UInt8]: LibraryTrack] = [:]
        for t in tracks { byPath[Array(t.path.utf8)] = t }
        #expect(byPath.count == 340)
        for f in lib.files {
            let path = f["path"] as! String
            guard let t = byPath[Array(path.utf8)] else { Issue.record("not indexed: \(path.debugDescription)"); continue }
            let name = path.debugDescription
            #expect(t.displayTitle == f["expectedTitle"] as? String, "\(name)")
            #expect(t.artist == f["artist"] as? String && t.album == f["album"] as? String && t.albumArtist == f["albumArtist"] as? String
                    && t.genre == f["genre"] as? String, "\(name): \(t)")
            #expect(t.year == (f["year"] as? Int ?? 0) && t.trackNumber == (f["track"] as? Int ?? 0) && t.discNumber == (f["disc"] as? Int ?? 0), "\(name): \(t)")
            if let d = f["duration"] as? Double { #expect(abs(t.duration - d) <= (f["durationTolerance"] as? Double ?? 0.01) + 0.001, "\(name): \(t.duration) vs \(d)") }
            // The embedded picture, written once into the covers folder; else the folder's image.
            if let sha = f["coverSHA256"] as? String, f["case"] as? String != "cover-not-image" {
                #expect(t.cover == lib.dir.file("covers/\(sha).\(f["coverMime"] as? String == "image/png" ? "png" : "jpg")"), "\(name): \(t.cover ?? "none")")
                if let cover = t.cover { #expect(try sha256(cover) == sha) }
            } else {
                #expect(t.cover == f["folderCover"] as? String, "\(name): \(t.cover ?? "none")")
            }
            #expect(t.markerCount == (f["markers"] as? [String])?.count ?? 0 && t.loopCount == (f["loops"] as? [String])?.count ?? 0
                    && t.hasLyrics == (f["lyrics"] as? Bool ?? false), "\(name)")
        }
        for path in lib.skipped { #expect(byPath[Array(path.utf8)] == nil, "indexed: \(path)") }
        // Again: nothing read, so nothing said; the track keeps its problem in the index.
        #expect(try index.scan([lib.root]) == ScanReport(found: 340))
        let again = try index.tracks().first { $0.path == "\(lib.root)/Broken/garbage.flac" }
        #expect(again?.problem == "TagLib cannot read its tags")
    }

    @Test func albumsCompilationsAndSearch() throws {
        let lib = try Self.library.get()
        let index = try LibraryIndex(path: lib.dir.file("index2.sqlite"), covers: lib.dir.file("covers2"))
        _ = try index.scan([lib.root])
        let albums = try index.albums()
        func album(_ title: String) -> LibraryAlbum? { albums.first { $0.title == title } }
        #expect(album("Salsa Hits 2020")?.artist == "Various Artists" && album("Salsa Hits 2020")?.tracks.count == 10)
        #expect(album("Bachata Mix")?.artist == "Various artists" && album("Bachata Mix")?.tracks.count == 8, "one album without an album artist")
        let waltz = try #require(album("Waltz Collection"))
        #expect(waltz.tracks.map { "\($0.discNumber).\($0.trackNumber)" } == (1...6).map { "1.\($0)" } + (1...6).map { "2.\($0)" })
        // Tracks without an album tag: one album per folder, named after it.
        #expect(album("Raw Takes")?.tracks.count == 11 && album("Unsorted")?.artist == "Unknown artist")

        let pirouette = try index.search("pirouette")
        #expect(pirouette.map { "\($0.kind) \(Path.lastComponent($0.track.path))" }.sorted() == ["marker 01 Electric Horizon.flac", "marker 03 Paper Horizon.ogg"])
        #expect(pirouette.allSatisfy { $0.time != nil })
        #expect(try index.search("spot mirror").map(\.text) == ["pirouette — spot the mirror on the turn"], "a marker's note")
        #expect(try index.search("moonlight").allSatisfy { $0.kind == .lyric && $0.time != nil } && !(try index.search("moonlight")).isEmpty)
        #expect(try index.search("ピルエット").map(\.kind) == [.marker])
        #expect(Set(try index.search("cancion otono").map(\.track.album)) == ["Canción de Otoño"], "accents and case ignored")
        #expect(try index.search("\"").isEmpty && index.search("   ").isEmpty, "no words, no hits")
        #expect(try index.search("\"\u{301}pirouette").map(\.text) == pirouette.map(\.text), "a quote carrying a mark is a quote")
    }
}

enum Path {
    static func lastComponent(_ p: String) -> String { String(p.split(separator: "/").last ?? "") }
}
