// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import Synchronization
import PracticeAudio
import PracticeDocuments
import PracticeTestSupport
@testable import PracticeLibrary

/// The index against real files: tags through TagLib, rescans that read only what changed, the
/// music files never written, and a folder of 10,000 files.
@Suite struct ScanTests {
    let dir = ScratchDirectory("library-scan")

    func index() throws -> LibraryIndex { try LibraryIndex(path: dir.file("cache/library.sqlite"), covers: dir.file("cache/covers")) }

    /// Every file under `folder`: its bytes and modification time.
    func snapshot(_ folder: String) throws -> [String: (Data, Date)] {
        var out: [String: (Data, Date)] = [:]
        for name in FileManager.default.enumerator(atPath: folder)!.compactMap({ $0 as? String }) {
            let path = folder + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            out[name] = (try Data(contentsOf: URL(fileURLWithPath: path)),
                         try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date)
        }
        return out
    }

    @Test func rescansReadOnlyWhatChangedAndNeverWriteTheMusic() throws {
        let music = dir.file("music")
        try FileManager.default.createDirectory(atPath: music + "/A", withIntermediateDirectories: true)
        let tone = Signals.sine(440, seconds: 0.5)
        try Signals.write(tone, to: music + "/A/one.wav", tags: ["title": "One", "artist": "Ann"])
        try Signals.write(tone, to: music + "/A/two.flac", container: .flac, tags: ["title": "Two", "artist": "Ann", "album": "Pair"])
        try Signals.write(tone, to: music + "/three.ogg", container: .ogg, tags: ["title": "Three"])
        try "not music".write(toFile: music + "/A/notes.txt", atomically: true, encoding: .utf8)
        let before = try snapshot(music)
        let library = try index()

        var r = try library.scan([music])
        #expect(r == ScanReport(found: 3, added: 3, updated: 0, removed: 0, problems: []))
        let tracks = try library.tracks()
        #expect(tracks.map(\.displayTitle).sorted() == ["One", "Three", "Two"])
        #expect(tracks.first { $0.title == "Two" }?.album == "Pair" && tracks.allSatisfy { abs($0.duration - 0.5) < 0.01 }, "\(tracks)")

        r = try library.scan([music])
        #expect(r == ScanReport(found: 3, added: 0, updated: 0, removed: 0, problems: []), "nothing changed")

        // A sidecar and lyrics next to one file: only that track is read again, and searchable.
        try #"{"format": "practice-markers", "version": 1, "markers": [{"id": "m1", "name": "pirouette", "time": 0.25, "updatedAt": "2026-11-01T10:00:00.000Z"}], "loops": [{"id": "l1", "name": "bridge lift", "start": 0.1, "end": 0.4, "updatedAt": "2026-11-01T10:00:00.000Z"}]}"#
            .write(toFile: music + "/A/one.wav.practice.json", atomically: true, encoding: .utf8)
        try "[00:00.20]under the moonlight\n".write(toFile: music + "/A/one.lrc", atomically: true, encoding: .utf8)
        r = try library.scan([music])
        #expect(r == ScanReport(found: 3, added: 0, updated: 1, removed: 0, problems: []))
        let one = try #require(try library.tracks().first { $0.title == "One" })
        #expect(one.markerCount == 1 && one.loopCount == 1 && one.hasLyrics)
        #expect(try library.search("piro").map { "\($0.kind) \($0.text) \($0.time ?? -1)" } == ["marker pirouette 0.25"])
        #expect(try library.search("lift bridge").map { "\($0.kind) \($0.name ?? "") \($0.time ?? -1)" } == ["loop bridge lift 0.1"])
        #expect(try library.search("MOONLIGHT").map { "\($0.kind) \($0.text) \($0.time ?? -1)" } == ["lyric under the moonlight 0.2"])
        #expect(try library.search("ann").map(\.track.displayTitle).sorted() == ["One", "Two"], "tags")
        #expect(library.firstLoop(of: one.id)?.name == "bridge lift")

        // A file rewritten (new size and time): read again. One removed: dropped from the index and the search.
        try Signals.write(Signals.sine(440, seconds: 0.75), to: music + "/three.ogg", container: .ogg, tags: ["title": "Three, longer"])
        try FileManager.default.removeItem(atPath: music + "/A/two.flac")
        r = try library.scan([music])
        #expect(r == ScanReport(found: 2, added: 0, updated: 1, removed: 1, problems: []))
        #expect(try library.tracks().map(\.displayTitle).sorted() == ["One", "Three, longer"])
        #expect(try library.search("pair").isEmpty && library.search("two").isEmpty)

        // Scanning wrote nothing into the music folder, and changed nothing there.
        var after = try snapshot(music)
        for name in ["A/one.wav.practice.json", "A/one.lrc", "three.ogg"] { after.removeValue(forKey: name) }
        var expected = before
        for name in ["A/two.flac", "three.ogg"] { expected.removeValue(forKey: name) }
        #expect(after.keys.sorted() == expected.keys.sorted() && after.allSatisfy { expected[$0.key]!.0 == $0.value.0 && expected[$0.key]!.1 == $0.value.1 })
    }

    /// The files a dancer has besides: a store's M4A, a video site's WebM, a tutorial's MP4, a
    /// WMA: listed with their tags (TagLib for MP4 and ASF; FFmpeg's for WebM) and lengths.
    @Test func aStoresAVideoSitesAndATutorialsFiles() throws {
        let music = dir.file("dancer")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try Signals.write(Signals.sine(440, seconds: 2), to: dir.file("tone.wav"))
        func ffmpeg(_ args: [String]) throws {
            let r = try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", dir.file("tone.wav")] + args)
            #expect(r.status == 0, "\(r)")
        }
        try ffmpeg(["-c:a", "aac", "-metadata", "title=Store Song", "-metadata", "artist=Band", "-metadata", "album=Bought", music + "/store.m4a"])
        try ffmpeg(["-c:a", "libopus", "-metadata", "title=Video Song", "-metadata", "artist=Channel", music + "/clip.webm"])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2", "-map", "1:v", "-map", "0:a", "-c:v", "libx264", "-preset", "ultrafast",
                    "-c:a", "aac", "-metadata", "title=Tutorial", music + "/tutorial.mp4"])
        try ffmpeg(["-c:a", "wmav2", "-metadata", "title=Old Song", music + "/old.wma"])
        let library = try index()
        let r = try library.scan([music])
        #expect(r == ScanReport(found: 4, added: 4, updated: 0, removed: 0, problems: []), "\(r)")
        let tracks = try library.tracks()
        #expect(tracks.map(\.displayTitle).sorted() == ["Old Song", "Store Song", "Tutorial", "Video Song"], "\(tracks)")
        #expect(tracks.allSatisfy { abs($0.duration - 2) < 0.1 }, "\(tracks.map(\.duration))")
        #expect(tracks.first { $0.title == "Store Song" }?.album == "Bought")
        #expect(try library.search("channel").map(\.track.displayTitle) == ["Video Song"])
        // The tutorial's cover: a JPEG of its picture (160 × 120, the test pattern's size, from
        // the frame's header); the sound-only files have none.
        let tutorial = try #require(tracks.first { $0.title == "Tutorial" })
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try #require(tutorial.cover))))
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        let sof = try #require((0..<(jpeg.count - 9)).first { (i: Int) -> Bool in jpeg[i] == 0xFF && (jpeg[i + 1] == 0xC0 || jpeg[i + 1] == 0xC1) })
        let height: Int = Int(jpeg[sof + 5]) << 8 | Int(jpeg[sof + 6]), width: Int = Int(jpeg[sof + 7]) << 8 | Int(jpeg[sof + 8])
        #expect(height == 120 && width == 160)
        #expect(tracks.filter { $0.cover != nil }.map(\.displayTitle) == ["Tutorial"])
    }

    /// A music folder whose own name is not ASCII, beside one whose name starts the same: a
    /// rescan finds nothing changed, and a file gone from one is dropped from that one only.
    @Test func foldersWithAccentsAndSharedBeginnings() throws {
        let a = dir.file("Zoë's música"), b = dir.file("Zoë's música 2")
        for folder in [a, b] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Signals.write(Signals.sine(330, seconds: 0.2), to: folder + "/one.wav")
            try Signals.write(Signals.sine(440, seconds: 0.2), to: folder + "/two.wav")
        }
        let library = try index()
        #expect(try library.scan([a, b]).added == 4)
        #expect(try library.scan([a]) == ScanReport(found: 2), "nothing changed, and b's tracks stay")
        #expect(try library.count() == 4)
        try FileManager.default.removeItem(atPath: a + "/two.wav")
        #expect(try library.scan([a]) == ScanReport(found: 1, removed: 1))
        #expect(Set(try library.tracks().map(\.path)) == [a + "/one.wav", b + "/one.wav", b + "/two.wav"])
        // A folder that cannot be read today (an unplugged drive) keeps its tracks.
        try FileManager.default.moveItem(atPath: b, toPath: b + " (away)")
        let r = try library.scan([a, b])
        #expect(r.removed == 0 && r.problems == ["\(b): cannot read the folder (No such file or directory)"], "\(r)")
        #expect(try library.count() == 3)
    }

    /// A file whose name is not UTF-8 is said, not indexed, and nothing beside it is dropped.
    @Test func aNameInAnotherEncodingIsSaidAndNothingIsLost() throws {
        let music = dir.file("latin1")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try Signals.write(Signals.sine(330, seconds: 0.2), to: music + "/good.wav")
        let library = try index()
        #expect(try library.scan([music]).added == 1)
        #expect(try run("/usr/bin/python3", ["-c", "import shutil, sys; shutil.copy(sys.argv[1] + '/good.wav', sys.argv[1].encode() + b'/Caf\\xe9.wav')", music]).status == 0)
        try FileManager.default.removeItem(atPath: music + "/good.wav")
        let r = try library.scan([music])
        #expect(r.problems == ["\(music)/Caf\u{FFFD}.wav: the name is not UTF-8; not indexed (rename it)"], "\(r)")
        let count = try library.count()
        #expect(r.removed == 0 && count == 1, "the folder could not be read whole: nothing in it is dropped")
    }

    /// What a folder holds besides plain files and folders, each taken as what it is, not as what
    /// its name says: a link to a track is a track at the link's path, a folder named like a track
    /// is walked, a link to a folder is walked (once, however many links reach it, a link back up
    /// included), and a dangling link and a named pipe are not tracks.
    @Test func linksPipesAndFoldersNamedLikeTracks() throws {
        let music = dir.file("links")
        let fm = FileManager.default
        try fm.createDirectory(atPath: music + "/real", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: music + "/Live.flac", withIntermediateDirectories: true)
        try Signals.write(Signals.sine(330, seconds: 0.2), to: music + "/real/one.wav")
        try Signals.write(Signals.sine(440, seconds: 0.2), to: music + "/Live.flac/two.wav")
        try fm.createSymbolicLink(atPath: music + "/linked.wav", withDestinationPath: "real/one.wav")
        try fm.createSymbolicLink(atPath: music + "/alias", withDestinationPath: "real")
        try fm.createSymbolicLink(atPath: music + "/loop", withDestinationPath: ".")
        try fm.createSymbolicLink(atPath: music + "/broken.wav", withDestinationPath: "nowhere.wav")
        #expect(mkfifo(music + "/pipe.wav", 0o644) == 0)
        try "[00:00.10]line\n".write(toFile: music + "/real/one.lrc", atomically: true, encoding: .utf8)
        try "[00:00.10]linked\n".write(toFile: music + "/linked.lrc", atomically: true, encoding: .utf8)
        let library = try index()
        #expect(try library.scan([music]) == ScanReport(found: 3, added: 3))
        // The folders in name order, after the files beside them: "Live.flac", then "alias" (which
        // reaches "real" first), "loop" (this folder again) and "real" (reached already).
        let tracks = try library.tracks().sorted { $0.path < $1.path }
        #expect(tracks.map(\.path) == [music + "/Live.flac/two.wav", music + "/alias/one.wav", music + "/linked.wav"])
        #expect(tracks.map(\.hasLyrics) == [false, true, true])
        #expect(Set(try library.search("linked").map(\.track.path)) == [music + "/linked.wav"], "its name and its lyrics")
        #expect(try library.scan([music]) == ScanReport(found: 3), "nothing changed")
        // The link pointed elsewhere: the same path, another file.
        try fm.removeItem(atPath: music + "/linked.wav")
        try fm.createSymbolicLink(atPath: music + "/linked.wav", withDestinationPath: "Live.flac/two.wav")
        #expect(try library.scan([music]) == ScanReport(found: 3, updated: 1))
    }

    /// A song's lyrics and sidecar are found by their names' bytes, whatever characters they end
    /// in: after U+0600 (a sign written before the number it goes with) ".lrc" is, to Swift's
    /// String, not the end of the name, as the sign joins the dot into one character.
    @Test func notesBesideANameThatEndsInASignThatJoinsWhatFollows() throws {
        let music = dir.file("signs")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        try Signals.write(Signals.sine(330, seconds: 0.2), to: music + "/Intro\u{600}.wav")
        try "[00:00.10]line\n".write(toFile: music + "/Intro\u{600}.lrc", atomically: true, encoding: .utf8)
        try #"{"format": "practice-markers", "version": 1, "markers": [{"id": "m1", "name": "turn", "time": 0.1}]}"#
            .write(toFile: music + "/Intro\u{600}.practice.json", atomically: true, encoding: .utf8)
        let library = try index()
        #expect(try library.scan([music]) == ScanReport(found: 1, added: 1))
        let track = try #require(try library.tracks().first)
        #expect(track.hasLyrics && track.markerCount == 1, "\(track)")
    }

    @Test func aFolderOfTenThousandFiles() throws {
        let folder = dir.file("many")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Signals.write(Signals.sine(440, seconds: 0.01, sampleRate: 8000, channels: 1), to: dir.file("tiny.wav"), sampleRate: 8000, channels: 1)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("tiny.wav")))
        for k in 0..<10_000 { _ = FileManager.default.createFile(atPath: folder + String(format: "/take %05d.wav", k), contents: bytes) }
        // Every tenth take has markers in a sidecar written beside another copy of it (a FLAC);
        // take 00001 in one named for the song without extension.
        let sidecar = Data(#"{"format": "practice-markers", "version": 1, "markers": [{"id": "m1", "name": "turn", "time": 0.005}]}"#.utf8)
        for k in stride(from: 0, to: 10_000, by: 10) {
            _ = FileManager.default.createFile(atPath: folder + String(format: "/take %05d.flac.practice.json", k), contents: sidecar)
        }
        _ = FileManager.default.createFile(atPath: folder + "/take 00001.practice.json", contents: sidecar)
        let library = try index()
        var last = (0, 0)
        let r = try library.scan([folder]) { last = ($0, $1) }
        #expect(r.found == 10_000 && r.added == 10_000 && r.problems.isEmpty && last == (10_000, 10_000))
        #expect(try library.count() == 10_000)
        #expect(try library.scan([folder]) == ScanReport(found: 10_000))
        #expect(try library.search("take 09999").map(\.track.path) == [folder + "/take 09999.wav"])
        let albums = try library.albums()
        #expect(albums.count == 1 && albums[0].title == "many" && albums[0].tracks.count == 10_000)
        let marked = try library.tracks().filter { $0.markerCount == 1 }.map { Path.lastComponent($0.path) }
        #expect(marked.count == 1001 && marked.contains("take 00001.wav") && marked.contains("take 09990.wav") && !marked.contains("take 00002.wav"))
    }

    /// Two players starting at once make one index between them, and two scans of the same new
    /// files at once (each with its own connections, as two processes have) store each file once.
    @Test func twoAtOnce() throws {
        let music = dir.file("both")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        for k in 0..<600 { try Signals.write(Signals.sine(200 + Double(k), seconds: 0.01, sampleRate: 8000, channels: 1), to: music + "/song \(k).wav", sampleRate: 8000, channels: 1) }
        for round in 0..<8 {
            let path = dir.file("together-\(round).sqlite")
            let results = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    let library = try LibraryIndex(path: path, covers: dir.file("covers"))
                    let r = try library.scan([music])
                    results.withLock { $0.append("\(r.found) \(r.problems)") }
                } catch {
                    results.withLock { $0.append("\(error)") }
                }
            }
            #expect(results.withLock { $0 } == ["600 []", "600 []"], "round \(round)")
            let library = try LibraryIndex(path: path, covers: dir.file("covers"))
            #expect(try library.count() == 600)
            // One words entry per track: a search for a file name finds it once.
            #expect(try library.search("song 599").map(\.track.path) == [music + "/song 599.wav"])
            #expect(try library.search("song").count == 600)
        }
    }

    /// A track's problem stays in the index while the file stays as it is, whatever happens to
    /// its sidecar; a sidecar's own problem goes when the sidecar is mended; a mended file has none.
    @Test func problemsLastAsLongAsTheirCause() throws {
        let music = dir.file("problems")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        let file = music + "/broken.flac"
        try Data("fLaC but nothing after it that TagLib could read".utf8).write(to: URL(fileURLWithPath: file))
        let library = try index()
        func problem() throws -> String? { try library.tracks().first { $0.path == file }?.problem }
        func markers() throws -> Int { try library.tracks().first { $0.path == file }?.markerCount ?? -1 }
        #expect(try library.scan([music]).problems == ["\(file): TagLib cannot read its tags"])
        #expect(try library.scan([music]) == ScanReport(found: 1))
        #expect(try problem() == "TagLib cannot read its tags")
        let good = #"{"format": "practice-markers", "version": 1, "markers": [{"id": "m1", "name": "in", "time": 0}]}"#
        try good.write(toFile: file + ".practice.json", atomically: true, encoding: .utf8)
        #expect(try library.scan([music]).updated == 1)
        #expect(try problem() == "TagLib cannot read its tags" && markers() == 1)
        try "{ not json".write(toFile: file + ".practice.json", atomically: true, encoding: .utf8)
        _ = try library.scan([music])
        #expect(try problem() == "TagLib cannot read its tags", "the file's own problem is the one kept")
        // A good file with a bad sidecar, then the sidecar mended.
        try Signals.write(Signals.sine(440, seconds: 0.1), to: music + "/good.wav")
        try "{ not json".write(toFile: music + "/good.wav.practice.json", atomically: true, encoding: .utf8)
        _ = try library.scan([music])
        #expect(try library.tracks().first { $0.path == music + "/good.wav" }?.problem == "its sidecar cannot be read")
        try good.write(toFile: music + "/good.wav.practice.json", atomically: true, encoding: .utf8)
        _ = try library.scan([music])
        let mended = try library.tracks().first { $0.path == music + "/good.wav" }
        #expect(mended?.problem == nil && mended?.markerCount == 1)
        // The broken file replaced by a good one: no problem.
        try FileManager.default.removeItem(atPath: file)
        try Signals.write(Signals.sine(440, seconds: 0.1), to: music + "/tmp.wav")
        let flac = try run("/usr/bin/flac", ["-s", "-f", "-o", file, music + "/tmp.wav"])
        #expect(flac.status == 0, "\(flac)")
        try FileManager.default.removeItem(atPath: music + "/tmp.wav")
        try good.write(toFile: file + ".practice.json", atomically: true, encoding: .utf8)
        _ = try library.scan([music])
        #expect(try problem() == nil && markers() == 1)
    }

    @Test func anIndexFromANewerVersionOrNotAnIndexIsRefusedAndKept() throws {
        let path = dir.file("other.sqlite")
        try "this is not a database, it is a note".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: PracticeError.self) { _ = try LibraryIndex(path: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "this is not a database, it is a note")
        let newer = dir.file("newer.sqlite")
        _ = try LibraryIndex(path: newer)
        #expect(try run("/usr/bin/env", ["python3", "-c", "import sqlite3; c = sqlite3.connect('\(newer)'); c.execute('PRAGMA user_version = 3'); c.commit()"]).status == 0)
        do {
            _ = try LibraryIndex(path: newer)
            Issue.record("a newer index was opened")
        } catch {
            #expect(error.message == "\(newer): made by a newer version of practice (index version 3); delete it to start again with this one")
        }
    }
}

/// Today's pick: among tracks with markers or loops, not practised lately, the same all day.
@Suite struct PickTests {
    func track(_ id: Int64, markers: Int = 0, loops: Int = 0) -> LibraryTrack {
        LibraryTrack(id: id, path: "/m/\(id).flac", title: "T\(id)", markerCount: markers, loopCount: loops)
    }

    @Test func theSameAllDayAndAReasonGiven() throws {
        let tracks = [track(1), track(2, markers: 2), track(3, loops: 1), track(4, markers: 1, loops: 2), track(5, markers: 4)]
        let day = Date(timeIntervalSince1970: 1_795_000_000)   // 2026-11-18
        let practised: [Int64: Date] = [2: day.addingTimeInterval(-9 * 86400), 3: day.addingTimeInterval(-3600), 5: day.addingTimeInterval(-86400)]
        func pick(_ now: Date) -> TodaysPick? {
            TodaysPick.choose(among: tracks, now: now, practised: { practised[$0.id] }) { t in t.loopCount > 0 ? ("chorus", 12.5) : nil }
        }
        let morning = try #require(pick(day))
        // Never tracks without markers, nor ones practised in the last three days.
        #expect([2, 4].contains(morning.track.id))
        for hours in stride(from: 0.0, to: 6, by: 1) { #expect(pick(day.addingTimeInterval(hours * 3600))?.track.id == morning.track.id) }
        let all = (0..<30).compactMap { pick(day.addingTimeInterval(Double($0) * 86400)) }
        // Over a month every track with markers comes up (3 and 5 rest from the third day on); never 1.
        #expect(Set(all.map(\.track.id)) == [2, 3, 4, 5], "\(all.map(\.track.id))")
        #expect(all.prefix(2).allSatisfy { [2, 4].contains($0.track.id) })
        let four = try #require(all.first { $0.track.id == 4 })
        #expect(four.reason == "chorus loop, not practised yet" && four.loop == "chorus" && four.from == 12.5)
        let two = try #require(all.first { $0.track.id == 2 })
        #expect(two.reason.hasPrefix("2 markers, last practised ") && two.reason.hasSuffix(" days ago") && two.loop == nil)
    }

    @Test func withoutMarkersAnyTrackAndEverythingPractisedGivesTheLongestRested() {
        let plain = [track(1), track(2)]
        #expect(TodaysPick.choose(among: plain, practised: { _ in nil }) { _ in nil }?.reason == "not practised yet")
        let now = Date()
        let marked = [track(1, markers: 1), track(2, markers: 1)]
        let pick = TodaysPick.choose(among: marked, now: now, practised: { now.addingTimeInterval($0.id == 1 ? -7200 : -86400 - 60) }) { _ in nil }
        #expect(pick?.track.id == 2 && pick?.reason == "1 marker, last practised yesterday")
        #expect(TodaysPick.choose(among: [], practised: { _ in nil }) { _ in nil } == nil)
    }

    /// Kept in the index: practising the pick (it is no longer rested) or marking another track
    /// (the pool grows) changes nothing until the next day; an index of version 1 gains the table.
    @Test func keptInTheIndexAllDay() throws {
        let dir = ScratchDirectory("library-pick")
        let path = dir.file("library.sqlite")
        // An index made by the version before (no pick table), opened by this one.
        let made = try run("/usr/bin/python3", ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript('CREATE TABLE track (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE); PRAGMA user_version = 1;'); c.close()", path])
        try #require(made.status == 0, "\(made)")
        let index = try LibraryIndex(path: path, covers: dir.file("covers"))
        var tracks = [track(1, markers: 1), track(2, markers: 1), track(3), track(4, markers: 1)]
        let day = Date(timeIntervalSince1970: 1_795_000_000)
        var practised: [Int64: Date] = [:]
        let morning = try #require(try index.pick(among: tracks, now: day, practised: { practised[$0.id] }))
        #expect(morning.reason == "1 marker, not practised yet")
        practised[morning.track.id] = day.addingTimeInterval(600)
        tracks[2] = track(3, markers: 5)
        let later = try #require(try index.pick(among: tracks, now: day.addingTimeInterval(3 * 3600), practised: { practised[$0.id] }))
        #expect(later.track.id == morning.track.id && later.reason == "1 marker, last practised today", "\(later)")
        // Without the keeping, the afternoon's choice would have been another track.
        #expect(TodaysPick.choose(among: tracks, now: day.addingTimeInterval(3 * 3600), practised: { practised[$0.id] }) { _ in nil }?.track.id != morning.track.id)
        // The next day: chosen afresh, and not the track practised yesterday.
        let next = try #require(try index.pick(among: tracks, now: day.addingTimeInterval(86400), practised: { practised[$0.id] }))
        #expect(next.track.id != morning.track.id)
    }

    @Test func timestampsAsSidecarsWriteThem() {
        #expect(TodaysPick.date(rfc3339: "2026-11-20T10:01:00.123Z")?.timeIntervalSince1970 == 1_795_168_860)
        #expect(TodaysPick.date(rfc3339: "yesterday") == nil)
    }
}
