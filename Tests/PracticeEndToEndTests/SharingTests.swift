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
        // Using a name that two markers share asks for one to be renamed.
        let ambiguous = try w.run(["markers", "move", "tone.wav", "Verse 2", "+1"])
        #expect(ambiguous.status == 64 && ambiguous.stderr == "practice: 2 markers are named 'Verse 2' (at 0:06.000, 0:06.020); rename one first\n")
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
        _ = try git(["commit", "-q", "-am", "ana's markers"], in: repo)
        _ = try git(["checkout", "-q", "main"], in: repo)
        _ = try practiceIn(repo, ["markers", "add", "tone.wav", "Bridge", "3.5"])
        _ = try practiceIn(repo, ["markers", "rm", "tone.wav", "Outro"])
        _ = try git(["commit", "-q", "-am", "ben's markers"], in: repo)
        let control = w.dir.file("control")
        _ = try git(["clone", "-q", repo, control], in: repo)
        _ = try git(["checkout", "-q", "-b", "ana", "origin/ana"], in: control)
        _ = try git(["checkout", "-q", "main"], in: control)

        try "*.practice.json merge=practice\n".write(toFile: repo + "/.gitattributes", atomically: true, encoding: .utf8)
        _ = try git(["config", "merge.practice.driver", "\(practiceBinary) markers merge-driver %O %A %B"], in: repo)
        let merged = try git(["merge", "-q", "--no-edit", "ana"], in: repo)
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
        #expect(try git(["diff", "--name-only", "--diff-filter=U"], in: repo).stdout == "")
        let list = try practiceIn(repo, ["markers", "tone.wav"])
        #expect(list.stdout == "TIME      NAME\n0:03.000  Verse 2\n0:03.500  Bridge\n0:04.500  Chorus\n")

        let plain = try git(["merge", "-q", "--no-edit", "ana"], in: control)
        #expect(plain.status != 0, "a plain text merge was expected to conflict")
    }
}
