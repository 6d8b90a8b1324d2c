// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// Sharing a sidecar: `practice markers merge` with a friend's copy, and a real `git merge` of two
/// branches' sidecars through our merge driver.
@Suite struct SharingTests {
    @Test func mergingAFriendsCopySaysWhatChanged() throws {
        let w = try MarkerCommandTests.Workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Chorus", "4"])
        let mine = w.dir.file("tone.wav.practice.json"), friend = w.dir.file("friend.practice.json")
        try FileManager.default.copyItem(atPath: mine, toPath: friend)
        // The friend adds a marker and renames ours; we add one of the same name as theirs.
        _ = try w.run(["markers", "add", "tone.wav", "Verse 2", "6", "--markers", "friend.practice.json"])
        _ = try w.run(["markers", "rename", "tone.wav", "Chorus", "Refrain", "--markers", "friend.practice.json"])
        _ = try w.run(["markers", "add", "tone.wav", "verse 2", "6.02"])
        let r = try w.run(["markers", "merge", "tone.wav", "friend.practice.json"])
        #expect(r.status == 0 && r.stderr == "")
        #expect(r.stdout == """
            merged friend.practice.json into tone.wav.practice.json:
              ~ marker 'Refrain' renamed from 'Chorus'
              + marker 'Verse 2' at 0:06.000
              ! 2 markers are named 'Verse 2' (at 0:06.000, 0:06.020): both kept; rename one
              ? 'Verse 2' at 0:06.000 and 'verse 2' at 0:06.020 look like the same place: remove one if so

            """)
        let again = try w.run(["markers", "merge", "tone.wav", "friend.practice.json"])
        #expect(again.stdout.hasPrefix("merged friend.practice.json into tone.wav.practice.json:\n  ! 2 markers"))
        // A name that two markers share is refused, saying how to pick one; each can be picked.
        let ambiguous = try w.run(["markers", "move", "tone.wav", "Verse 2", "+1"])
        #expect(ambiguous.status == 64 && ambiguous.stderr == "practice: 2 markers are named 'Verse 2': say which, as 'Verse 2#1' (0:06.000), 'Verse 2#2' (0:06.020), or '@TIME'\n")
        let list = try w.run(["markers", "tone.wav"])
        let ids = list.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(list.stdout.hasPrefix("TIME      NAME     ID\n0:04.000  Refrain  ") && ids.count == 3 && ids.allSatisfy { $0.last!.count == 8 })
        #expect(list.stderr == "practice: warning: 2 markers are named 'Verse 2': pick one as 'Verse 2#1' … '#2' (by time), @TIME or by id; or rename one\n")
        var r2 = try w.run(["markers", "move", "tone.wav", "Verse 2#2", "+1"])
        #expect(r2.status == 0 && r2.stdout == "moved marker 'verse 2' to 0:07.020 (tone.wav.practice.json)\n")
        r2 = try w.run(["markers", "rename", "tone.wav", "@6", "Verse 2 (left)"])
        #expect(r2.status == 0 && r2.stdout == "renamed marker 'Verse 2' to 'Verse 2 (left)' (tone.wav.practice.json)\n")
        r2 = try w.run(["markers", "rm", "tone.wav", String(ids[0].last!)])
        #expect(r2.status == 0 && r2.stdout == "removed marker 'Refrain' at 0:04.000 (tone.wav.practice.json)\n")
        #expect(try w.run(["markers", "tone.wav"]).stdout == "TIME      NAME\n0:06.000  Verse 2 (left)\n0:07.020  verse 2\n")
    }

    /// Sets one of a sidecar's settings as the practice screen does (tapping the tempo, shifting
    /// the lyrics): the value, and when.
    static func setSetting(_ key: String, _ value: Double, in path: String) throws {
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var settings = doc["settings"] as? [String: Any] ?? [:]
        var times = settings["updatedAt"] as? [String: String] ?? [:]
        settings[key] = value
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        times[key] = f.string(from: Date())
        settings["updatedAt"] = times
        doc["settings"] = settings
        try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys, .prettyPrinted]).write(to: URL(fileURLWithPath: path))
    }

    /// Two branches edit the same sidecar; `git merge` with the driver is clean and keeps both
    /// sides' work. The same merge without the driver conflicts (the control).
    @Test func gitMergeWithTheDriverIsClean() throws {
        let w = try MarkerCommandTests.Workspace()
        let repo = w.dir.path
        var env = w.env
        env["HOME"] = repo
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_AUTHOR_NAME"] = "Ana"; env["GIT_AUTHOR_EMAIL"] = "ana@example.org"
        env["GIT_COMMITTER_NAME"] = "Ana"; env["GIT_COMMITTER_EMAIL"] = "ana@example.org"
        func git(_ args: [String], in dir: String) throws -> ProcessResult {
            try run("/usr/bin/git", args, environment: env, currentDirectory: dir)
        }
        func practiceIn(_ dir: String, _ args: [String]) throws -> ProcessResult {
            try run(practiceBinary, args, environment: env, currentDirectory: dir)
        }
        _ = try git(["init", "-q", "-b", "main"], in: repo)
        _ = try practiceIn(repo, ["markers", "add", "tone.wav", "Chorus", "4"])
        _ = try practiceIn(repo, ["markers", "add", "tone.wav", "Outro", "9"])
        _ = try git(["add", "tone.wav", "tone.wav.practice.json"], in: repo)
        _ = try git(["commit", "-q", "-m", "markers"], in: repo)
        _ = try git(["checkout", "-q", "-b", "ana"], in: repo)
        _ = try practiceIn(repo, ["markers", "add", "tone.wav", "Verse 2", "3"])
        _ = try practiceIn(repo, ["markers", "move", "tone.wav", "Chorus", "+0.5"])
        try Self.setSetting("bpm", 96, in: repo + "/tone.wav.practice.json")          // Ana taps the tempo
        _ = try git(["commit", "-q", "-am", "ana's markers"], in: repo)
        _ = try git(["checkout", "-q", "main"], in: repo)
        _ = try practiceIn(repo, ["markers", "add", "tone.wav", "Bridge", "3.5"])
        _ = try practiceIn(repo, ["markers", "rm", "tone.wav", "Outro"])
        usleep(2_000)
        _ = try practiceIn(repo, ["markers", "move", "tone.wav", "Chorus", "-0.25"])  // Ben moves it too, later
        try Self.setSetting("lyricsShift", 0.25, in: repo + "/tone.wav.practice.json")  // and shifts the lyrics
        _ = try git(["commit", "-q", "-am", "ben's markers"], in: repo)
        let control = w.dir.file("control")
        _ = try git(["clone", "-q", repo, control], in: repo)
        _ = try git(["checkout", "-q", "-b", "ana", "origin/ana"], in: control)
        _ = try git(["checkout", "-q", "main"], in: control)

        try "*.practice.json merge=practice\n".write(toFile: repo + "/.gitattributes", atomically: true, encoding: .utf8)
        _ = try git(["config", "merge.practice.driver", "\(practiceBinary) markers merge-driver %O %A %B %P"], in: repo)
        let merged = try git(["merge", "-q", "--no-edit", "ana"], in: repo)
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(try git(["diff", "--name-only", "--diff-filter=U"], in: repo).stdout == "")
        let list = try practiceIn(repo, ["markers", "tone.wav"])
        #expect(list.stdout == "TIME      NAME\n0:03.000  Verse 2\n0:03.500  Bridge\n0:03.750  Chorus\n")
        // Both settings survive, and git shows what the driver decided.
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: repo + "/tone.wav.practice.json"))) as? [String: Any])
        let settings = try #require(doc["settings"] as? [String: Any])
        #expect(settings["bpm"] as? Double == 96 && settings["lyricsShift"] as? Double == 0.25)
        #expect(merged.stderr == """
            practice: merged tone.wav.practice.json with their version:
            practice:   + marker 'Verse 2' at 0:03.000
            practice:   + settings.bpm 96
            practice:   * marker 'Chorus': ours moved it to 0:03.750, theirs moved it to 0:04.500; kept ours (the newer edit)

            """)

        let plain = try git(["merge", "-q", "--no-edit", "ana"], in: control)
        #expect(plain.status != 0, "a plain text merge was expected to conflict")
    }

    /// A song in a folder its listener cannot write (here: root's, for the user nobody): their
    /// markers go under their `$XDG_DATA_HOME`, found again by the audio; the crew's sidecar beside
    /// the song is never touched, and what the crew adds to it later shows up too.
    @Test func markersForASongInAFolderYouCannotWrite() throws {
        let w = try MarkerCommandTests.Workspace()
        #expect(try w.run(["markers", "add", "tone.wav", "Chorus", "4"]).status == 0)   // the crew's file
        let shared = w.dir.file("tone.wav.practice.json")
        let home = w.dir.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        #expect(chown(home, 65534, 65534) == 0)
        #expect(chmod(w.dir.path, 0o755) == 0)
        let env = ["HOME": home, "XDG_DATA_HOME": home + "/share", "XDG_CACHE_HOME": home + "/cache", "PRACTICE_AUTHOR": ""]
        func asNobody(_ args: [String]) throws -> ProcessResult {
            try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", practiceBinary] + args,
                    environment: env, currentDirectory: w.dir.path)
        }
        let folder = home + "/share/practice/sidecars"
        var r = try asNobody(["markers", "add", "tone.wav", "Verse", "2"])
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        #expect(name.hasPrefix("tone.wav.") && name.hasSuffix(".practice.json") && name.count == "tone.wav.".count + 16 + ".practice.json".count)
        let mine = folder + "/" + name
        #expect(r.status == 0 && r.stdout == "added marker 'Verse' at 0:02.000 (\(mine))\n")
        #expect(r.stderr == "practice: warning: this folder cannot be written: markers for tone.wav are kept in \(mine)\n")
        // Said until the file exists, then not again.
        r = try asNobody(["markers", "add", "tone.wav", "Bridge", "3"])
        #expect(r.status == 0 && r.stderr == "")
        // The crew adds a marker to their file; nobody sees theirs and the crew's.
        #expect(try w.run(["markers", "add", "tone.wav", "Outro", "9"]).status == 0)
        r = try asNobody(["markers", "tone.wav"])
        #expect(r.stdout == "TIME      NAME\n0:02.000  Verse\n0:03.000  Bridge\n0:04.000  Chorus\n0:09.000  Outro\n")
        // The crew's file holds only the crew's markers.
        #expect(try w.run(["markers", "tone.wav"]).stdout == "TIME      NAME\n0:04.000  Chorus\n0:09.000  Outro\n")
        #expect(try String(contentsOfFile: shared, encoding: .utf8).contains("Outro"))
        // And a sidecar named with --markers is created where asked.
        r = try asNobody(["markers", "add", "tone.wav", "Drop", "5", "--markers", home + "/drill.practice.json"])
        #expect(r.status == 0 && r.stdout == "added marker 'Drop' at 0:05.000 (\(home)/drill.practice.json)\n" && r.stderr == "")
    }
}
