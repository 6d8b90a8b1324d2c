// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// `practice markers import` and `export` through the binary, and cue points written into
/// rendered WAV files.
@Suite struct InterchangeCommandTests {
    func workspace() throws -> MarkerCommandTests.Workspace {
        let w = try MarkerCommandTests.Workspace()
        for (name, time) in [("Intro", "0.5"), ("Verse 1", "2.25"), ("Chorus ✨", "6")] {
            #expect(try w.run(["markers", "add", "tone.wav", name, time]).status == 0)
        }
        #expect(try w.run(["loops", "add", "tone.wav", "chorus", "Chorus ✨", "8.5"]).status == 0)
        return w
    }

    @Test func exportsAudacityLabelsToStandardOutput() throws {
        let w = try workspace()
        let r = try w.run(["markers", "export", "tone.wav", "--format", "audacity"])
        #expect(r.status == 0 && r.stderr == "")
        #expect(r.stdout == "0.500000\t0.500000\tIntro\n2.250000\t2.250000\tVerse 1\n6.000000\t6.000000\tChorus ✨\n6.000000\t8.500000\tchorus\n")
    }

    @Test(arguments: ["labels.txt", "chapters.vtt", "chapters.ffmeta"])
    func exportThenImportIntoAnotherCopyGivesTheSamePlaces(file: String) throws {
        let w = try workspace()
        var r = try w.run(["markers", "export", "tone.wav", "-o", file])
        #expect(r.status == 0 && r.stderr.hasSuffix("practice: wrote 3 markers and 1 loop to \(file)\n"))
        try FileManager.default.copyItem(atPath: w.dir.file("tone.wav"), toPath: w.dir.file("copy.wav"))
        r = try w.run(["markers", "import", "copy.wav", file])
        #expect(r.status == 0)
        #expect(try w.run(["markers", "copy.wav"]).stdout == w.run(["markers", "tone.wav"]).stdout)
        #expect(try w.run(["loops", "copy.wav"]).stdout == "NAME    FROM      TO        LENGTH\nchorus  0:06.000  0:08.500   2.5 s\n")
        // Importing the same file again adds nothing.
        r = try w.run(["markers", "import", "copy.wav", file])
        #expect(r.stdout == "imported 0 markers and 0 loops from \(file) into copy.wav.practice.json\n")
        #expect(r.stderr.hasSuffix("practice: note: skipped 4 already here (same name and time)\n"))
        r = try w.run(["markers", "export", "tone.wav", "-o", file])
        #expect(r.status == 73 && r.stderr == "practice: \(file): already exists (use --force to replace it)\n")
    }

    @Test func cueSheetsRoundToFramesAndHoldPointsOnly() throws {
        let w = try workspace()
        _ = try w.run(["markers", "add", "tone.wav", "Bar 5", "7.5067"])
        let r = try w.run(["markers", "export", "tone.wav", "--format", "cue"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("FILE \"tone.wav\" WAVE\n"))
        #expect(r.stdout.contains("    TITLE \"Verse 1\"\n    INDEX 01 00:02:19\n"))   // 2.25 s = 168.75 frames → 169
        #expect(r.stderr == "practice: note: CUE sheets hold points only: left out 1 loop\npractice: note: times rounded to CUE frames (1/75 s)\n")
        // A marker on the frame another took is left out, and not counted as written.
        _ = try w.run(["markers", "add", "tone.wav", "Bar 5 again", "7.51"])   // 563.25 frames, as 7.5067 s: 563
        let written = try w.run(["markers", "export", "tone.wav", "-o", "out.cue"])
        #expect(written.status == 0 && written.stderr.hasSuffix("practice: note: left out 1 marker on the same CUE frame as the one before\npractice: wrote 4 of 5 markers and 0 loops to out.cue\n"), "\(written)")
        #expect(try String(contentsOfFile: w.dir.file("out.cue"), encoding: .utf8).components(separatedBy: "INDEX 01").count - 1 == 4)
    }

    @Test func importsWhatOtherProgramsWrite() throws {
        let w = try MarkerCommandTests.Workspace()
        let labels = "1.000000\t1.000000\tCount in\n\\\t100.0\t2000.0\n2.5\tVerse\n3.000000\t4.500000\tTurn\n12.000000\t12.000000\tPast the end\n3.000000\t3.000000\t1:23\n"
        try labels.write(toFile: w.dir.file("labels.txt"), atomically: true, encoding: .utf8)
        let r = try w.run(["markers", "import", "tone.wav", "labels.txt", "--offset", "-0.5"])
        #expect(r.status == 0)
        #expect(r.stdout == "imported 3 markers and 1 loop from labels.txt into tone.wav.practice.json\n")
        #expect(r.stderr.contains("left out 1 outside the track (0:00.000–0:10.000)"))
        #expect(try w.run(["markers", "tone.wav"]).stdout == "TIME      NAME\n0:00.500  Count in\n0:02.000  Verse\n0:02.500  Marker 1:23\n")
        #expect(try w.run(["loops", "tone.wav"]).stdout.contains("Turn  0:02.500  0:04.000"))
    }

    @Test(arguments: [
        ("garbage.txt", Data([0xFF, 0xFE, 0x00, 0xD8, 0x00, 0x01, 0x02])),
        ("bad.cue", Data("TRACK 01 AUDIO\n  INDEX 01 99:99:99\n".utf8)),
        ("bad.vtt", Data("not a vtt file\n".utf8)),
        ("bad.ffmeta", Data("[CHAPTER]\nSTART=abc\n".utf8)),
    ])
    func badFilesAreOneLineErrorsAndChangeNothing(name: String, contents: Data) throws {
        let w = try MarkerCommandTests.Workspace()
        try contents.write(to: URL(fileURLWithPath: w.dir.file(name)))
        let r = try w.run(["markers", "import", "tone.wav", name])
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("practice: \(name)") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.dir.file("tone.wav.practice.json")))
    }

    /// `render` to WAV writes the markers that fall in the output as cue points (and labels),
    /// placed on the output's timeline where the marker's audio is: at 0.8× from 1 s, a marker at
    /// 2.25 s lands at (2.25 − 1) ÷ 0.8 = 1.5625 s (frame 68,906: 1.562 s) with Rubber Band, a
    /// render's default, whose output is lined up with its input; with SoundTouch (`--quality
    /// fast`) 9 ms earlier, its content running ahead of the straight line, as the player's
    /// position says.
    @Test func renderingToWAVWritesTheMarkersIn() throws {
        let w = try workspace()
        var r = try w.run(["render", "tone.wav", "-o", "fast.wav", "--rate", "0.8", "--from", "1", "-q", "--quality", "fast"])
        #expect(r.status == 0 && r.stderr == "")
        r = try w.run(["markers", "import", "fast.wav", "fast.wav"])
        #expect(try w.run(["markers", "fast.wav"]).stdout == "TIME      NAME\n0:01.553  Verse 1\n0:06.241  Chorus ✨\n")
        r = try w.run(["render", "tone.wav", "-o", "slow.wav", "--rate", "0.8", "--from", "1", "-q"])
        #expect(r.status == 0 && r.stderr == "")
        // libsndfile still reads it, at the length 9 s ÷ 0.8 gives.
        #expect(abs(try Signals.read(w.dir.file("slow.wav")).info.frames - 496_125) < 1_000)
        r = try w.run(["markers", "import", "slow.wav", "slow.wav"])
        #expect(r.stdout == "imported 2 markers and 1 loop from slow.wav into slow.wav.practice.json\n")
        #expect(try w.run(["markers", "slow.wav"]).stdout == "TIME      NAME\n0:01.562  Verse 1\n0:06.250  Chorus ✨\n")
        // A loop rendered three times carries its markers on every pass.
        r = try w.run(["render", "tone.wav", "-o", "drill.wav", "--loop", "Verse 1", "Chorus ✨", "--times", "3", "-q"])
        #expect(r.status == 0)
        r = try w.run(["markers", "import", "drill.wav", "drill.wav"])
        #expect(r.stdout == "imported 3 markers and 0 loops from drill.wav into drill.wav.practice.json\n", "the chorus loop lies past the drill")
        #expect(try w.run(["markers", "drill.wav"]).stdout == "TIME      NAME\n0:00.000  Verse 1\n0:03.750  Verse 1 (2)\n0:07.500  Verse 1 (3)\n")
    }
}
