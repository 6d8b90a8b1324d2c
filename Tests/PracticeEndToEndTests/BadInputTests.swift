// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// Every bad input gets one line on stderr naming the file and the problem, a sysexits code, and
/// nothing on stdout.
@Suite struct BadInputTests {
    let fx = Fixtures.shared

    /// A time typed as M.SS (`1.30`) is seconds, as always, with a note of what `1:30` would be;
    /// other times have none.
    @Test func minutesAndSecondsWithADot() throws {
        var r = try practice(["render", "tone.wav", "-o", "dot.wav", "--from", "1.30", "--to", "2", "-q", "--force"], in: fx.dir)
        #expect(r.status == 0 && r.stderr == "practice: note: 1.30 is 1.3 s; 1:30 is a minute and a half\n", "\(r)")
        r = try practice(["render", "tone.wav", "-o", "dot.wav", "--from", "2.05", "--to", "2.5", "-q", "--force"], in: fx.dir)
        #expect(r.status == 0 && r.stderr == "practice: note: 2.05 is 2.05 s; 2:05 is 2 min 5 s\n", "\(r)")
        for time in ["1.3", "0.30", "0:01.30", "2.5", "1.305"] {
            r = try practice(["render", "tone.wav", "-o", "dot.wav", "--from", time, "--to", "3", "-q", "--force"], in: fx.dir)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(time): \(r)")
        }
    }

    @Test(arguments: [
        (["play", "missing.wav"], 66, "practice: missing.wav: no such file"),
        (["play", "folder.wav"], 66, "practice: folder.wav: is a directory, not an audio file"),
        (["play", "empty.wav"], 65, "practice: empty.wav: file is empty (0 bytes)"),
        (["play", "notes.mp3"], 65, "practice: notes.mp3: not a supported audio file (neither libsndfile nor FFmpeg reads it)"),
        (["play", "song.mid"], 65, "practice: song.mid: not a supported audio file (neither libsndfile nor FFmpeg reads it)"),
        (["info", "song.mid"], 65, "practice: song.mid: not a supported audio file (neither libsndfile nor FFmpeg reads it)"),
        (["tone.wav", "--rate", "0"], 64, "practice: '--rate' must be from 0.25 to 3.0 (got '0') (see 'practice --help')"),
        (["tone.wav", "--rate", "abc"], 64, "practice: The value 'abc' is invalid for '--rate <rate>' (see 'practice --help')"),
        (["tone.wav", "--rate", "10"], 64, "practice: '--rate' must be from 0.25 to 3.0 (got '10') (see 'practice --help')"),
        (["tone.wav", "--pitch", "13"], 64, "practice: '--pitch' must be from -12 to 12 semitones (got '13') (see 'practice --help')"),
        (["render", "tone.wav", "-o", "x.wav", "--quality", "best"], 64, "practice: '--quality' must be fast or high (got 'best') (see 'practice --help')"),
        (["render", "tone.wav", "-o", "x.wav", "--pitch", "2", "--formant", "--quality", "fast"], 64, "practice: '--formant' needs Rubber Band: '--quality high' (or no '--quality') (see 'practice --help')"),
        (["tone.wav", "--from", "0:20"], 64, "practice: --from 0:20.000 is past the end of tone.wav (0:10.000)"),
        (["render", "tone.wav", "-o", "x.wav", "--to", "1:00:00"], 64, "practice: --to 1:00:00.000 is past the end of tone.wav (0:10.000)"),
        (["tone.wav", "--from", "1:75"], 64, "practice: --from '1:75' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--from", "5", "--to", "2"], 64, "practice: --to must be after --from"),
        (["tone.wav", "--from", "Chorus"], 64, "practice: --from: no marker named 'Chorus' (there are none yet)"),
        (["tone.wav", "--from", "1:3O"], 64, "practice: --from '1:3O' is not a time (83.5, 1:23.5 or 1:02:03.25), nor a marker (there are none yet)"),
        (["markers", "add", "tone.wav", "Chorus", "45s"], 64, "practice: '45s' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["jornal"], 64, "practice: jornal: no such file, nor a command; did you mean 'practice journal'?"),
        (["lyrcs", "tone.wav"], 64, "practice: lyrcs: no such file, nor a command; did you mean 'practice lyrics'?"),
        (["mising.wav"], 66, "practice: mising.wav: no such file"),
        (["tone.wav", "--loop", "chorus"], 64, "practice: --loop: no loop named 'chorus' (there are none yet)"),
        (["tone.wav", "--loop", "3"], 64, "practice: --loop takes a loop's name, or a start and an end (got only '3')"),
        (["tone.wav", "--loop", "4", "3"], 64, "practice: --loop: the end (0:03.000) must be after the start (0:04.000)"),
        (["tone.wav", "--loop", "4", "12"], 64, "practice: the loop 0:04.000–0:12.000 is not inside tone.wav (0:10.000)"),
        (["tone.wav", "--loop", "1", "2", "3"], 64, "practice: '--loop' takes a loop's name, or a start and an end (got 3 values) (see 'practice --help')"),
        (["tone.wav", "--times", "3"], 64, "practice: '--times' goes with '--loop' (see 'practice --help')"),
        (["tone.wav", "--loop", "1", "2", "--times", "0"], 64, "practice: '--times' must be 1 or more (got '0') (see 'practice --help')"),
        (["tone.wav", "--loop", "1", "2", "--to", "5"], 64, "practice: '--to' does not go with '--loop' (the loop's end is where it turns) (see 'practice --help')"),
        (["render", "tone.wav", "-o", "x.wav", "--loop", "1", "2", "--from", "3"], 64, "practice: --from must be before the loop's end (0:02.000)"),
        (["tone.wav", "--gap", "1"], 64, "practice: '--gap' goes with '--loop' (see 'practice --help')"),
        (["tone.wav", "--from", "1e308"], 64, "practice: --from '1e308' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--from", "NaN"], 64, "practice: --from 'NaN' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--to", "inf"], 64, "practice: --to 'inf' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--from", "99:99"], 64, "practice: --from '99:99' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--from", "1:60"], 64, "practice: --from '1:60' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--from", " "], 64, "practice: --from is empty: give a time (83.5, 1:23.5) or a marker's name"),
        (["tone.wav", "--from", "-1"], 64, "practice: --from '-1' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--to", "-0"], 64, "practice: --to '-0' is not a time (83.5, 1:23.5 or 1:02:03.25)"),
        (["tone.wav", "--loop", "1", "2", "--count-in", "4"], 64, "practice: '--count-in' needs the song's tempo: give '--bpm N', find it with 'practice beats', or tap it with 't' on the practice screen"),
        (["tone.wav", "--control", "tcp"], 64, "practice: '--control' takes 'stdin', 'socket' or a socket's path such as ./practice.sock (got 'tcp') (see 'practice --help')"),
        (["tone.wav", "--loop", "1", "2", "--trainer", "0.6-1.0"], 64, "practice: '--trainer' is FROM:TO:STEP or FROM:TO:STEP/EVERY, such as 0.6:1.0:0.05/2 (got '0.6-1.0') (see 'practice --help')"),
        (["tone.wav", "--loop", "1", "2", "--trainer", "0.1:1:0.1"], 64, "practice: '--trainer' rates must be from 0.25 to 3.0 with a step from 0.01 to 2.75 (got '0.1:1:0.1') (see 'practice --help')"),
        (["render", "tone.wav", "-o", "/nonexistent/dir/out.wav"], 73, "practice: /nonexistent/dir/out.wav: cannot create: No such file or directory"),
        (["render", "tone.wav", "-o", "out.xyz"], 64, "practice: out.xyz: unknown output format '.xyz' (use .wav, .flac, .ogg, .opus, .mp3, .aiff or .m4a)"),
        (["render", "tone.wav", "-o", "tone.flac"], 73, "practice: tone.flac: already exists (use --force to replace it)"),
        (["render", "tone.wav", "-o", "tone.wav", "--force"], 73, "practice: tone.wav: is the input file; choose another output"),
        (["render", "tone.wav", "-o", "f.flac", "--sample-format", "float"], 64, "practice: f.flac: flac cannot store float samples"),
        (["tone.wav", "--device", "no_such_pcm"], 69, "practice: cannot play tone.wav: no usable audio device 'no_such_pcm' (snd_pcm_open: No such file or directory); pick one with --device, or write a file with 'practice render'"),
    ] as [([String], Int32, String)])
    func oneLineAndACode(arguments: [String], status: Int32, message: String) throws {
        let r = try practice(arguments, in: fx.dir)
        #expect(r.status == status)
        #expect(r.stderr == message + "\n")
        #expect(r.stdout == "")
    }

    /// A broken installation: an audio library that cannot be opened (here an empty file found
    /// first on LD_LIBRARY_PATH, as a half-removed package would leave) is named with the
    /// package to install, in one line, and the command ends with EX_UNAVAILABLE.
    @Test func anAudioLibraryThatCannotBeOpenedIsNamedWithItsPackage() throws {
        for (library, arguments, message) in [
            ("libsndfile.so.1", ["info", "tone.wav"],
             "practice: tone.wav: cannot be read: cannot open libsndfile (LIB: file too short); install Debian's libsndfile1"),
            ("libasound.so.2", ["tone.wav", "--no-tui"],
             "practice: cannot play tone.wav: no usable audio device 'default' (dlopen: cannot open libasound (LIB: file too short); install Debian's libasound2); pick one with --device, or write a file with 'practice render'"),
        ] {
            let broken = ScratchDirectory("broken-" + library)
            #expect(FileManager.default.createFile(atPath: broken.file(library), contents: Data()))
            let r = try practice(arguments, in: fx.dir, environment: ["LD_LIBRARY_PATH": broken.path])
            #expect(r.status == 69)
            #expect(r.stderr == message.replacingOccurrences(of: "LIB", with: broken.file(library)) + "\n")
            #expect(r.stdout == "")
        }
    }

    @Test func anUnwritableFolderIsCannotCreate() throws {
        let dir = ScratchDirectory("readonly")
        chmod(dir.path, 0o555)
        defer { chmod(dir.path, 0o755) }
        let out = dir.path + "/out.wav"
        let r = try practice(["render", "tone.wav", "-o", out], in: fx.dir)
        if getuid() == 0 {
            // root writes anywhere; the refusal is then tested with a path below a file.
            let r2 = try practice(["render", "tone.wav", "-o", "tone.wav/out.wav"], in: fx.dir)
            #expect(r2.status == 73)
            #expect(r2.stderr == "practice: tone.wav/out.wav: cannot create: Not a directory\n")
        } else {
            #expect(r.status == 73)
            #expect(r.stderr == "practice: \(out): cannot create: Permission denied\n")
        }
    }

    /// A truncated file plays (and renders) what is there, warns once, and exits 0.
    @Test(arguments: [("cut-tone.flac", "decoding failed (flac decoder lost sync)"), ("cut-tone.mp3", "the file ends early")])
    func truncatedFilesPlayWhatIsThere(name: String, reason: String) throws {
        let out = "cut-\(UUID().uuidString).wav"
        let r = try practice(["render", name, "-o", out], in: fx.dir)
        #expect(r.status == 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("practice: warning: \(name): \(reason) at 0:0") == true)
        #expect(lines.first?.hasSuffix(" of 0:10.000; rendered what was there") == true)
        let rendered = try Signals.read(fx.dir.file(out))
        #expect(rendered.info.frames > 3 * 44_100 && rendered.info.frames < 7 * 44_100)
        let f = Analysis.dominantFrequency(Signals.channel(rendered.samples, 0, of: 2), sampleRate: 44_100)
        #expect(abs(f - 440) < 2)

        let p = try practice([name, "--device", "null"], in: fx.dir)
        #expect(p.status == 0)
        #expect(p.stdout == "")
        #expect(p.stderr.hasPrefix("practice: warning: \(name): \(reason) at 0:0"))
        #expect(p.stderr.hasSuffix(" of 0:10.000; played what was there\n"))
    }
}

/// A sidecar whose time is a number no track holds (`1e308`): every command that reads it stops
/// with the file, line and column, and nothing writes over it.
@Suite struct BadSidecarNumberTests {
    let fx = Fixtures.shared

    @Test(arguments: [
        ("1e308", "markers[1].time is 1e308 s: longer than any recording"),
        ("500", "markers[1].time is 500 s, past the end of tone.wav (0:10.000)"),
    ])
    func aTimePastTheTrackIsAnErrorAtItsLineAndTheFileIsKept(time: String, problem: String) throws {
        let dir = ScratchDirectory("huge-time")
        try FileManager.default.copyItem(atPath: fx.dir.file("tone.wav"), toPath: dir.file("tone.wav"))
        let text = """
            {
              "format": "practice-markers",
              "markers": [
                {"name": "Intro", "time": 1},
                {"name": "Far", "time": \(time)}
              ],
              "version": 1
            }

            """
        let path = dir.file("tone.wav.practice.json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        for arguments in [["markers", "tone.wav"], ["markers", "add", "tone.wav", "Verse", "2"], ["loops", "tone.wav"],
                          ["tone.wav", "--device", "null", "--from", "Intro"]] {
            let r = try practice(arguments, in: dir)
            #expect(r.status == 65, "\(arguments)")
            #expect(r.stderr == "practice: tone.wav.practice.json:5:29: \(problem)\n", "\(arguments)")
            #expect(r.stdout == "")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "the file is as it was")
    }
}

/// Text from tags, names and arguments reaches the terminal with its control characters shown,
/// never obeyed: `ESC ] 0 ; … BEL` would retitle the terminal, `ESC [ 2 J` clear it.
@Suite struct TerminalTextTests {
    @Test func escapesInTagsAndNamesAreShownNotObeyed() throws {
        let dir = ScratchDirectory("escapes")
        try Signals.write(Signals.sine(440, seconds: 2), to: dir.file("evil.wav"),
                          tags: ["title": "Evil\u{1B}]0;pwned\u{07}Title", "artist": "A\u{1B}[2JB"])
        _ = try practice(["markers", "add", "evil.wav", "Verse\u{1B}[31m", "1"], in: dir)
        let outputs = [
            try practice(["info", "evil.wav"], in: dir),
            try practice(["markers", "evil.wav"], in: dir),
            try practice(["evil.wav", "--device", "null", "--from", "Coda\u{1B}[2J"], in: dir),
        ]
        for r in outputs {
            #expect(!r.stdout.utf8.contains(0x1B) && !r.stderr.utf8.contains(0x1B) && !r.stdout.utf8.contains(0x07))
        }
        #expect(outputs[0].stdout.contains(#"Evil\u{1b}]0;pwned\u{7}Title"#), "\(outputs[0].stdout)")
        #expect(outputs[0].stdout.contains(#"A\u{1b}[2JB"#))
        #expect(outputs[1].stdout.contains(#"Verse\u{1b}[31m"#), "\(outputs[1].stdout)")
        #expect(outputs[2].stderr == #"practice: --from: no marker named 'Coda\u{1b}[2J' (there are 'Verse\u{1b}[31m')"# + "\n")
    }

    /// `--json` output stays JSON that gives back the text exactly: controls (C1 ones such as
    /// U+0085 too) and bidirectional overrides are JSON escapes, not `\u{…}`, which no JSON
    /// reader understands.
    @Test func jsonOutputEscapesWhatSteersATerminal() throws {
        let dir = ScratchDirectory("escapes-json")
        let title = "Drill \u{85}\u{1B}[2J \u{202E}dcba – 0:50"
        try Signals.write(Signals.sine(440, seconds: 2), to: dir.file("song.wav"), tags: ["title": title])
        _ = try practice(["markers", "add", "song.wav", "Verse\u{9B}31m", "1"], in: dir)
        for args in [["info", "song.wav", "--json"], ["markers", "song.wav", "--json"]] {
            let r = try practice(args, in: dir)
            #expect(r.status == 0 && !r.stdout.contains("\\u{"), "\(r.stdout)")
            #expect(!r.stdout.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x1B || $0.value == 0x202E })
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
            if args[0] == "info" { #expect((doc["tags"] as? [String: Any])?["title"] as? String == title) }
            else { #expect(((doc["markers"] as? [[String: Any]])?.first?["name"] as? String) == "Verse\u{9B}31m") }
        }
        #expect(try String(contentsOfFile: dir.file("song.wav.practice.json"), encoding: .utf8).contains(#""name": "Verse\u009b31m""#))
    }
}
