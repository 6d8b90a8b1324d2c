// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
import Synchronization

/// `practice markers` and `practice loops` through the built binary: exact output, exit codes,
/// and the sidecar's bytes on disk.
@Suite struct MarkerCommandTests {
    /// A folder with a 10 s tone and a private XDG cache.
    final class Workspace: @unchecked Sendable {  // immutable after init
        let dir = ScratchDirectory("markers")
        var env: [String: String] { ["XDG_CACHE_HOME": dir.file("cache"), "PRACTICE_AUTHOR": ""] }
        init(seconds: Double = 10) throws {
            try Signals.write(Signals.sine(440, seconds: seconds), to: dir.file("tone.wav"), format: .s16, tags: ["title": "Tone"])
        }
        func run(_ args: [String], extraEnv: [String: String] = [:]) throws -> ProcessResult {
            try practice(args, in: dir, environment: env.merging(extraEnv) { $1 })
        }
        func sidecar(_ name: String = "tone.wav.practice.json") throws -> String {
            try String(contentsOfFile: dir.file(name), encoding: .utf8)
        }
    }

    /// `$PRACTICE_AUTHOR` names who added a marker, by hand or by import (every entry of one
    /// import stamped alike); left empty, no author is written.
    @Test func theAuthorIsWrittenWhenNamed() throws {
        let w = try Workspace()
        try "1\t1\tOne\n2\t2\tTwo\n".write(toFile: w.dir.file("labels.txt"), atomically: true, encoding: .utf8)
        var r = try w.run(["markers", "add", "tone.wav", "Hand", "0.5"], extraEnv: ["PRACTICE_AUTHOR": "Ana"])
        #expect(r.status == 0, "\(r)")
        r = try w.run(["markers", "import", "tone.wav", "labels.txt"], extraEnv: ["PRACTICE_AUTHOR": "Ben"])
        #expect(r.status == 0, "\(r)")
        r = try w.run(["markers", "add", "tone.wav", "Nobody", "3"])
        #expect(r.status == 0, "\(r)")
        let doc = try #require(JSONSerialization.jsonObject(with: Data(try w.sidecar().utf8)) as? [String: Any])
        let markers = try #require(doc["markers"] as? [[String: Any]])
        #expect(markers.map { $0["name"] as? String } == ["Hand", "One", "Two", "Nobody"])
        #expect(markers.map { $0["author"] as? String } == ["Ana", "Ben", "Ben", nil])
        #expect(markers[1]["updatedAt"] as? String == markers[2]["updatedAt"] as? String)
    }

    @Test func addListRenameMoveRemove() throws {
        let w = try Workspace()
        var r = try w.run(["markers", "tone.wav"])
        #expect(r.status == 0 && r.stdout == "tone.wav: no markers yet (add one: practice markers add tone.wav NAME TIME)\n" && r.stderr == "")
        #expect(!FileManager.default.fileExists(atPath: w.dir.file("tone.wav.practice.json")))

        r = try w.run(["markers", "add", "tone.wav", "Verse 2", "0:07.25", "--note", "watch the turn"])
        #expect(r.stdout == "added marker 'Verse 2' at 0:07.250 (tone.wav.practice.json)\n" && r.status == 0 && r.stderr == "")
        r = try w.run(["markers", "add", "tone.wav", "Intro ✨", "1.5", "--color", "#FF8800"])
        #expect(r.status == 0)
        r = try w.run(["markers", "tone.wav"])
        #expect(r.stdout == """
            TIME      NAME      NOTE
            0:01.500  Intro ✨
            0:07.250  Verse 2   watch the turn

            """)
        r = try w.run(["markers", "move", "tone.wav", "verse 2", "+0.1"])
        #expect(r.stdout == "moved marker 'Verse 2' to 0:07.350 (tone.wav.practice.json)\n")
        r = try w.run(["markers", "move", "tone.wav", "Verse 2", "-0.3"])          // a nudge back, as typed
        #expect(r.stdout == "moved marker 'Verse 2' to 0:07.050 (tone.wav.practice.json)\n" && r.status == 0)
        r = try w.run(["markers", "move", "--", "tone.wav", "Verse 2", "-0.05"])   // and with the usual --
        #expect(r.stdout == "moved marker 'Verse 2' to 0:07.000 (tone.wav.practice.json)\n" && r.status == 0)
        r = try w.run(["markers", "rename", "tone.wav", "intro ✨", "Count-in"])
        #expect(r.stdout == "renamed marker 'Intro ✨' to 'Count-in' (tone.wav.practice.json)\n")
        r = try w.run(["markers", "tone.wav", "--json"])
        let doc = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let markers = try #require(doc["markers"] as? [[String: Any]])
        #expect(markers.map { $0["name"] as? String } == ["Count-in", "Verse 2"])
        #expect(markers.map { $0["time"] as? Double } == [1.5, 7])
        #expect(markers[0]["color"] as? String == "#FF8800" && doc["version"] as? Int == 1)
        #expect(r.stdout.hasPrefix("{\"markers\":[{\"color\":\"#FF8800\",\"id\":\""))

        r = try w.run(["markers", "rm", "tone.wav", "Count-in"])
        #expect(r.stdout == "removed marker 'Count-in' at 0:01.500 (tone.wav.practice.json)\n")
        let text = try w.sidecar()
        #expect(text.contains("\"deleted\": true"))
        #expect(text.contains("\"fileName\": \"tone.wav\"") && text.contains("\"frames\": 441000") && text.contains("\"title\": \"Tone\""))
    }

    @Test(arguments: [
        (["markers", "add", "tone.wav", "Late", "0:11"], 64, "practice: the time 0:11.000 is past the end of the track (0:10.000)"),
        (["markers", "add", "tone.wav", "1:05", "2"], 64, "practice: '1:05' looks like a time; a marker name needs a letter or symbol too"),
        (["markers", "add", "tone.wav", " ", "2"], 64, "practice: a marker name cannot be empty or only spaces"),
        (["markers", "add", "tone.wav", "CHORUS", "2"], 64, "practice: there is already a marker named 'Chorus' (names ignore case)"),
        (["markers", "add", "tone.wav", "x", "soon"], 64, "practice: 'soon' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["markers", "add", "tone.wav", "x", "2", "--color", "orange"], 64, "practice: a colour is written #rrggbb, such as #ff8800 (got 'orange')"),
        (["markers", "rm", "tone.wav", "Bridge"], 64, "practice: no marker named 'Bridge' (there are 'Chorus')"),
        (["markers", "move", "tone.wav", "Chorus", "later"], 64, "practice: 'later' is not a time (83.5, 1:23.5) or a nudge (+0.1, -0.25) (see 'practice --help')"),
        (["markers", "move", "tone.wav", "Chorus", "+9"], 64, "practice: the new time 0:13.000 is past the end of the track (0:10.000)"),
        (["markers", "missing.wav"], 66, "practice: missing.wav: no such file"),
        (["loops", "add", "tone.wav", "x", "Chorus", "1"], 64, "practice: a loop must end after it starts ('Chorus' is 0:04.000, '1' is 0:01.000)"),
        (["loops", "add", "tone.wav", "x", "Nope", "5"], 64, "practice: no marker named 'Nope' (there are 'Chorus')"),
        (["loops", "rm", "tone.wav", "x"], 64, "practice: no loop named 'x' (there are none yet)"),
    ] as [([String], Int32, String)])
    func mistakesAreOneLineAndChangeNothing(arguments: [String], status: Int32, message: String) throws {
        let w = try Workspace()
        #expect(try w.run(["markers", "add", "tone.wav", "Chorus", "4"]).status == 0)
        let before = try w.sidecar()
        let r = try w.run(arguments)
        #expect(r.status == status)
        #expect(r.stderr == message + "\n")
        #expect(r.stdout == "")
        #expect(try w.sidecar() == before)
    }

    @Test func loopsFollowTheirMarkers() throws {
        let w = try Workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Chorus", "2"])
        _ = try w.run(["markers", "add", "tone.wav", "Bridge", "6.5"])
        var r = try w.run(["loops", "add", "tone.wav", "chorus loop", "chorus", "bridge"])
        #expect(r.stdout == "added loop 'chorus loop' from 0:02.000 to 0:06.500 (tone.wav.practice.json)\n" && r.status == 0)
        r = try w.run(["loops", "add", "tone.wav", "tail", "8", "9.5", "--note", "last bar"])
        #expect(r.status == 0)
        _ = try w.run(["markers", "move", "tone.wav", "Chorus", "+0.5"])
        _ = try w.run(["markers", "rename", "tone.wav", "Bridge", "Middle 8"])
        r = try w.run(["loops", "tone.wav"])
        let expected = [
            "NAME         FROM               TO                   LENGTH  NOTE",
            "chorus loop  Chorus (0:02.500)  Middle 8 (0:06.500)     4 s",
            "tail         0:08.000           0:09.500              1.5 s  last bar",
        ]
        #expect(r.stdout == expected.joined(separator: "\n") + "\n")
        r = try w.run(["loops", "rm", "tone.wav", "TAIL"])
        #expect(r.stdout == "removed loop 'tail' (tone.wav.practice.json)\n")
    }

    /// `--from` and `--to` with marker names render exactly the frames between the markers.
    @Test func markerNamesPlaceARender() throws {
        let w = try Workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Chorus", "2.5"])
        _ = try w.run(["markers", "add", "tone.wav", "Outro", "6.2"])
        let r = try w.run(["render", "tone.wav", "-o", "part.wav", "--from", "chorus", "--to", "Outro", "-q"])
        #expect(r.status == 0 && r.stderr == "")
        #expect(try Signals.read(w.dir.file("part.wav")).info.frames == 273_420 - 110_250)   // 6.2 s and 2.5 s at 44.1 kHz
    }

    /// A count-in without --bpm takes the tempo kept in the sidecar (tapped on the practice screen):
    /// 2 clicks at 150 bpm are 0.8 s, before a 1 s pass. Without a kept tempo it is refused.
    @Test func aCountInUsesTheSidecarsTempo() throws {
        let w = try Workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Chorus", "2.5"])
        var text = try w.sidecar()
        text = text.replacingOccurrences(of: "\n  \"markers\"", with: "\n  \"settings\": {\"bpm\": 150},\n  \"markers\"")
        try text.write(toFile: w.dir.file("tone.wav.practice.json"), atomically: true, encoding: .utf8)
        var r = try w.run(["render", "tone.wav", "-o", "drill.wav", "--loop", "chorus", "3.5", "--count-in", "2", "-q"])
        #expect(r.status == 0 && r.stderr == "")
        #expect(try Signals.read(w.dir.file("drill.wav")).info.frames == 35_280 + 44_100)
        try FileManager.default.removeItem(atPath: w.dir.file("tone.wav.practice.json"))
        r = try w.run(["render", "tone.wav", "-o", "drill2.wav", "--loop", "2.5", "3.5", "--count-in", "2"])
        #expect(r.status == 64)
        #expect(r.stderr == "practice: '--count-in' needs the song's tempo: give '--bpm N', find it with 'practice beats', or tap it with 't' on the practice screen\n")
    }

    @Test func aBrokenSidecarIsNamedAndNeverOverwritten() throws {
        let w = try Workspace()
        let broken = "{\n  \"format\": \"practice-markers\",\n  \"version\": 1,\n  \"markers\": [\n    {\"name\": \"A\" \"time\": 1}\n  ]\n}\n"
        try broken.write(toFile: w.dir.file("tone.wav.practice.json"), atomically: true, encoding: .utf8)
        for args in [["markers", "tone.wav"], ["markers", "add", "tone.wav", "B", "2"], ["loops", "tone.wav"]] {
            let r = try w.run(args)
            #expect(r.status == 65)
            #expect(r.stderr == "practice: tone.wav.practice.json:5:18: unexpected '\"'; expected ',' or '}'\n")
        }
        #expect(try w.sidecar() == broken)
    }

    @Test func aNewerVersionIsReadOnly() throws {
        let w = try Workspace()
        let newer = "{\"format\": \"practice-markers\", \"version\": 2, \"markers\": [{\"id\": \"m\", \"name\": \"Drop\", \"time\": 3, \"updatedAt\": \"2027-01-01T00:00:00.000Z\", \"beats\": 4}], \"sections\": []}\n"
        try newer.write(toFile: w.dir.file("tone.wav.practice.json"), atomically: true, encoding: .utf8)
        var r = try w.run(["markers", "tone.wav"])
        #expect(r.status == 0 && r.stdout == "TIME      NAME\n0:03.000  Drop\n")
        #expect(r.stderr == "practice: warning: tone.wav.practice.json was written by a newer practice (format version 2); showing what this version understands, read-only\n")
        r = try w.run(["markers", "add", "tone.wav", "B", "2"])
        #expect(r.status == 65 && r.stderr == "practice: tone.wav.practice.json: written by a newer practice (format version 2); not changed\n")
        #expect(try w.sidecar() == newer)
    }

    @Test func aRenamedRetaggedCopyMatchesAndADifferentTrackWarns() throws {
        let w = try Workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Chorus", "4"])
        // The same samples under another name with other tags: the decoded audio is the same.
        try Signals.write(Signals.sine(440, seconds: 10), to: w.dir.file("Renamed copy.wav"), format: .s16, tags: ["title": "Other", "artist": "Someone"])
        var r = try w.run(["markers", "Renamed copy.wav", "--markers", "tone.wav.practice.json"])
        #expect(r.status == 0 && r.stderr == "" && r.stdout == "TIME      NAME\n0:04.000  Chorus\n")
        // Another recording: 9.5 s at 441 Hz.
        try Signals.write(Signals.sine(441, seconds: 9.5), to: w.dir.file("other.wav"), format: .s16)
        r = try w.run(["markers", "other.wav", "--markers", "tone.wav.practice.json"])
        #expect(r.status == 0 && r.stdout == "TIME      NAME\n0:04.000  Chorus\n")
        #expect(r.stderr == "practice: warning: tone.wav.practice.json was made for tone.wav: this copy is 0.5 s shorter (0:09.500 against 0:10.000); the decoded audio differs; it does not line up with this copy (match 100 %, but over only 0 s of music), so times are as made there and may be off\n")
    }

    /// A sibling's sidecar (the only one beside the song) is shared, not forked: edits go into it
    /// and the line says so; a sibling that cannot be written is copied on write, as before.
    @Test func aSiblingsSidecarIsFoundAndSharedOnWrite() throws {
        let w = try Workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Chorus", "4"])
        // A lossless re-encoding of the same audio finds tone.wav's sidecar.
        let flac = try #require(try? w.run(["render", "tone.wav", "-o", "tone.flac", "-q"]))
        #expect(flac.status == 0)
        var r = try w.run(["markers", "tone.flac"])
        #expect(r.stdout == "TIME      NAME\n0:04.000  Chorus\n" && r.stderr.isEmpty, "\(r)")
        r = try w.run(["markers", "add", "tone.flac", "Outro", "9"])
        #expect(r.status == 0 && r.stdout == "added marker 'Outro' at 0:09.000 (tone.wav.practice.json)\n", "\(r)")
        #expect(!FileManager.default.fileExists(atPath: w.dir.file("tone.flac.practice.json")))
        let shared = try w.sidecar()
        #expect(shared.contains("\"Chorus\"") && shared.contains("\"Outro\"") && shared.contains("\"fileName\": \"tone.wav\""))
        // Read-only: this copy's edits go to a file of its own.
        chmod(w.dir.file("tone.wav.practice.json"), 0o444)
        r = try w.run(["markers", "add", "tone.flac", "Bridge", "6"])
        #expect(r.status == 0 && r.stdout == "added marker 'Bridge' at 0:06.000 (tone.flac.practice.json)\n", "\(r)")
        #expect(r.stderr == "practice: warning: using tone.wav.practice.json (made for another file of the same song); changes go to tone.flac.practice.json\n", "\(r)")
        let own = try w.sidecar("tone.flac.practice.json"), crew = try w.sidecar()
        #expect(!crew.contains("Bridge") && own.contains("\"fileName\": \"tone.flac\""))
    }

    @Test func unchangedSidecarsAreNotRewritten() throws {
        let w = try Workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Chorus", "4"])
        let path = w.dir.file("tone.wav.practice.json")
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        _ = try w.run(["markers", "tone.wav"])
        _ = try w.run(["markers", "move", "tone.wav", "Chorus", "4"])   // to where it is: no change
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int == inode)
    }

    /// Two processes each add 200 markers at the same time; none is lost.
    @Test func concurrentWritersLoseNothing() throws {
        let w = try Workspace(seconds: 60)
        _ = try w.run(["markers", "add", "tone.wav", "Start", "0"])   // computes and caches the identity once
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { p in
            for i in 0..<200 {
                let r = try! w.run(["markers", "add", "tone.wav", "p\(p)-\(i)", String(format: "%.3f", Double(i) * 0.25 + Double(p) * 0.1)])
                if r.status != 0 { failures.withLock { $0.append(r.stderr) } }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let r = try w.run(["markers", "tone.wav", "--json"])
        let doc = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect((doc["markers"] as? [Any])?.count == 401)
    }
}
