// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

@Suite struct CommandTests {
    let fx = Fixtures.shared

    @Test func infoShowsFormatDurationRateChannelsAndTags() throws {
        let r = try practice(["info", "tone.wav"], in: fx.dir)
        #expect(r.status == 0 && r.stderr == "")
        #expect(r.stdout == """
            File:         tone.wav
            Format:       WAV, 16-bit PCM
            Duration:     0:10.000 (441000 frames)
            Sample rate:  44100 Hz
            Channels:     2
            Title:        Tone
            Artist:       Test

            """)
        let j = try practice(["info", "tone.mp3", "--json"], in: fx.dir)
        #expect(j.status == 0)
        #expect(j.stdout == #"{"audioStream":0,"audioStreams":[{"channels":2,"codec":"MPEG layer III","number":0,"sampleRate":44100}],"channels":2,"container":"MP3","duration":10,"encoding":"MPEG layer III","frames":441000,"path":"tone.mp3","sampleRate":44100,"tags":{},"version":1}"# + "\n")
    }

    /// A VBR MP3 without its encoder's info frame: the header's length is a guess (here 2× too long);
    /// `info` shows the decoded length, and says what the header claimed.
    /// Writes `guess.mp3` in `dir`: 10 s (a second of silence, then a noisy tone) as a VBR MP3
    /// without the encoder's frame count, as older encoders wrote them. The encoder's first frames
    /// are its smallest, so a length guessed from them and the file's size is far too long.
    static func mp3WithoutFrameCount(in dir: ScratchDirectory) throws {
        var rng = SystemRandomNumberGenerator()
        let tone = Signals.sine(440, seconds: 10, amplitude: 0.35)
        let samples = tone.indices.map { $0 < 88_200 ? Float(0) : tone[$0] + Float.random(in: -0.15...0.15, using: &rng) }
        try Signals.write(samples, to: dir.file("full.mp3"), container: .mp3)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir.file("full.mp3")))
        // The first frame holds LAME's "Info" tag (frame count, delay, padding): cut it out.
        let tag = try #require(data.range(of: Data("Info".utf8)) ?? data.range(of: Data("Xing".utf8)))
        let start = try #require(data[..<tag.lowerBound].lastIndex(of: 0xFF))
        let next = try #require(data[tag.upperBound...].firstRange(of: Data([0xFF, data[start + 1]]))).lowerBound
        try (data[..<start] + data[next...]).write(to: URL(fileURLWithPath: dir.file("guess.mp3")))
    }

    /// Such an MP3 is intact though its audio ends before the guessed length: it plays and renders
    /// without a warning, for its decoded length; `--from` past its audio is refused, naming the
    /// decoded end, and writes nothing.
    @Test func anMP3WithoutAFrameCountIsNotCalledTruncated() throws {
        let dir = ScratchDirectory("mp3-guess")
        try Self.mp3WithoutFrameCount(in: dir)
        let r = try practice(["render", "guess.mp3", "-o", "all.wav"], in: dir)
        #expect(r.status == 0 && r.stderr.hasPrefix("practice: wrote all.wav (0:10.0") && !r.stderr.contains("warning"), "\(r.stderr)")
        let frames = try Signals.read(dir.file("all.wav")).info.frames
        #expect(abs(frames - 441_000) < 2_000, "\(frames) frames")
        let p = try practice(["guess.mp3", "--device", "null"], in: dir)
        #expect(p.status == 0 && p.stderr == "")
        let late = try practice(["render", "guess.mp3", "-o", "late.wav", "--from", "12"], in: dir)
        #expect(late.status == 64 && late.stderr.hasPrefix("practice: --from 0:12.000 is past the end of guess.mp3 (0:10.0") && late.stderr.hasSuffix(", decoded)\n"), "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("late.wav")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".late") }.isEmpty, "no partial file left")
    }

    @Test func infoShowsAnMP3sDecodedLength() throws {
        let dir = ScratchDirectory("mp3-length")
        try Self.mp3WithoutFrameCount(in: dir)
        let r = try practice(["info", "guess.mp3", "--json"], in: dir)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let frames = try #require(doc["frames"] as? Int), header = try #require(doc["headerFrames"] as? Int)
        #expect(abs(frames - 441_000) < 2_000, "decoded \(frames) frames of a 441,000-frame tone (plus the decoder's delay)")
        #expect(header > frames * 3 / 2, "the header guessed \(header)")
        let plain = try practice(["info", "guess.mp3"], in: dir).stdout.split(separator: "\n")[2]
        #expect(plain.hasPrefix("Duration:     0:10.0") && plain.contains("frames decoded; the header says"), "\(plain)")
    }

    /// `play` is the command a file stands for, and the help says so; a command's name is that
    /// command (the default is left out then, as the parser need not build play's options).
    @Test func playIsTheDefaultForAFileAndInTheHelp() throws {
        #expect(try practice(["--help"], in: fx.dir).stdout.contains("\n  play (default)   "))
        #expect(try practice(["tone.wav", "--help"], in: fx.dir).stdout.contains("USAGE: practice play "))
        let info = try practice(["info", "tone.wav"], in: fx.dir)
        #expect(info.status == 0 && info.stdout.contains("Duration:"), "\(info.stderr)")
    }

    @Test(arguments: [["play"], ["render"], ["info"], ["markers"], ["markers", "list"], ["markers", "add"], ["markers", "rm"],
                      ["markers", "rename"], ["markers", "move"], ["markers", "import"], ["markers", "export"],
                      ["markers", "merge"], ["markers", "merge-driver"], ["loops"], ["loops", "list"], ["loops", "add"], ["loops", "rm"],
                      ["open"], ["lyrics"], ["library"], ["library", "scan"], ["library", "list"], ["library", "search"], ["pick"],
                      ["journal"], ["journal", "note"], ["remind"], ["remind", "at"], ["remind", "off"], ["remind", "check"],
                      ["preview"], ["beats"]])
    func everyCommandHasHelpWithAnExample(command: [String]) throws {
        let r = try practice(command + ["--help"], in: fx.dir)
        let name = command.joined(separator: " ")
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let overview = lines.prefix { !$0.isEmpty }.joined(separator: " ")
        #expect(overview.hasPrefix("OVERVIEW: ") && overview.hasSuffix("."), "a sentence: \(overview)")
        let usage = try #require(lines.firstIndex { $0.hasPrefix("USAGE: practice \(name)") }, "no usage line for \(name)")
        if command.last == "merge-driver" {
            // Its "example" is the setup git needs, word for word.
            #expect(lines.contains(#"  git config merge.practice.driver "practice markers merge-driver %O %A %B %P""#))
            return
        }
        // The examples: every indented line between "Examples:" and the usage runs practice (a long
        // one wraps onto an unindented line), and one of them runs this very command.
        let heading = try #require(lines.firstIndex { $0 == "Examples:" || $0 == "Example:" }, "no examples for \(name)")
        let examples = lines[(heading + 1)..<usage].filter { $0.hasPrefix("  ") }
        #expect(examples.allSatisfy { $0.hasPrefix("  practice ") || $0.hasPrefix("  printf ") && $0.contains(" | practice ") },
                "examples of \(name): \(examples)")
        #expect(examples.contains { $0.hasPrefix("  practice \(name) ") }, "no example of \(name): \(examples)")
    }

    /// Every command's help, found by following each SUBCOMMANDS list from the top: its paragraphs
    /// are wrapped by the argument parser to the terminal's width (lines under 80 columns when not on one),
    /// not broken by hand. A line broken in the source before the parser's width leaves a word or
    /// two alone on a line of their own ("...until you name others;" / "folders" / "named here...").
    @Test func everyHelpParagraphIsWrappedToTheTerminal() throws {
        var commands: [[String]] = [[]], seen = 0
        while let command = commands.popLast() {
            let r = try practice(command + ["--help"], in: fx.dir)
            #expect(r.status == 0, "\(command)")
            seen += 1
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (line, next) in zip(lines, lines.dropFirst())
            where !line.isEmpty && !next.isEmpty && !line.hasPrefix(" ") && !next.hasPrefix(" ") && !line.hasSuffix(":") {
                let word = next.prefix { $0 != " " }
                #expect(line.count + 1 + word.count >= 80, "'practice \(command.joined(separator: " ")) --help': '\(word)' would fit on the line before it: \(line)")
            }
            // The subcommands listed, each "  NAME (default)   what it does", and a description's
            // own wrapped lines indented further.
            if let heading = lines.firstIndex(of: "SUBCOMMANDS:") {
                for line in lines[(heading + 1)...].prefix(while: { !$0.isEmpty }) where line.hasPrefix("  ") && !line.hasPrefix("   ") {
                    let name = line.dropFirst(2).prefix { $0 != " " }
                    if name != "help" { commands.append(command + [String(name)]) }
                }
            }
        }
        #expect(seen > 35, "only \(seen) commands' help found")
    }

    /// Rendering writes a readable file of the expected length, format and rate for each container.
    @Test(arguments: [("wav", "WAV, 16-bit PCM", 44_100), ("flac", "FLAC, 16-bit PCM", 44_100), ("aiff", "AIFF, 16-bit PCM", 44_100),
                      ("ogg", "Ogg Vorbis", 44_100), ("opus", "Ogg Opus", 48_000), ("mp3", "MP3", 44_100)])
    func renderWritesEachFormat(ext: String, format: String, rate: Int) throws {
        let out = "slow-\(UUID().uuidString).\(ext)"
        let r = try practice(["render", "tone.flac", "-o", out, "--rate", "0.8"], in: fx.dir)
        #expect(r.status == 0)
        #expect(r.stdout == "")
        let read = try Signals.read(fx.dir.file(out))
        #expect(read.info.sampleRate == rate)
        #expect(read.info.format.description == format)
        let expected = 441_000.0 / 0.8 * Double(rate) / 44_100
        // Lossy encoders pad or trim a little at the ends; lossless is exact.
        let tolerance = ["wav", "flac", "aiff"].contains(ext) ? 0.0 : 0.002
        #expect(abs(Double(read.info.frames) / expected - 1) <= max(tolerance, 1 / expected), "\(read.info.frames) frames")
        let f = Analysis.dominantFrequency(Signals.channel(read.samples, 0, of: 2), sampleRate: rate)
        #expect(abs(f / 440 - 1) < 0.005)
        let seconds = String(format: "%.3f", Double(Int(expected.rounded(.down))) / Double(rate))
        if ["wav", "flac", "aiff"].contains(ext) {
            #expect(r.stderr == "practice: wrote \(out) (0:\(seconds), \(rate) Hz, 2 ch)\n")
        }
    }

    /// `--quality high` (Rubber Band's R3 engine) renders the exact length at 0.8×, the tone at
    /// its pitch, byte for byte what a render gives by default; `--quality fast` (SoundTouch's,
    /// play's default) is another, and so is a render given a `--profile` (SoundTouch's settings).
    @Test func renderAtHighQuality() throws {
        let high = try practice(["render", "tone.flac", "-o", "high.wav", "--rate", "0.8", "--quality", "high", "--force"], in: fx.dir)
        #expect(high.status == 0 && high.stderr == "practice: wrote high.wav (0:12.500, 44100 Hz, 2 ch)\n", "\(high)")
        let read = try Signals.read(fx.dir.file("high.wav"))
        #expect(read.info.frames == 551_250)
        #expect(abs(Analysis.dominantFrequency(Signals.channel(read.samples, 0, of: 2), sampleRate: 44_100) / 440 - 1) < 0.005)
        _ = try practice(["render", "tone.flac", "-o", "fast.wav", "--rate", "0.8", "--quality", "fast", "--force"], in: fx.dir)
        _ = try practice(["render", "tone.flac", "-o", "default.wav", "--rate", "0.8", "--force"], in: fx.dir)
        _ = try practice(["render", "tone.flac", "-o", "music.wav", "--rate", "0.8", "--profile", "music", "--force"], in: fx.dir)
        let bytes = { (name: String) throws -> Data in try Data(contentsOf: URL(fileURLWithPath: fx.dir.file(name))) }
        #expect(try bytes("high.wav") == bytes("default.wav"))
        #expect(try bytes("fast.wav") != bytes("high.wav"))
        #expect(try bytes("fast.wav") == bytes("music.wav"))
    }
}

@Suite struct ControlStdinTests {
    let fx = Fixtures.shared

    /// Commands on stdin reach the player; bad lines are reported and skipped; quit exits 0.
    @Test func commandsOnStdinDriveThePlayer() throws {
        let player = try ControlledPlayer(["tone.wav", "--device", "null", "--control", "stdin", "--rate", "0.5"], in: fx.dir.path)
        // Each command's answer awaited before the next (its state event, or the error's).
        player.send(#"{"cmd":"pause"}"#)
        try player.next("state") { $0["playing"] as? Bool == false }
        player.send(#"{"cmd":"seek","to":"0:07.25"}"#)
        try player.next("state") { $0["position"] as? Double == 7.25 }
        player.send(#"{"cmd":"rate","value":1.25}"#)
        try player.next("state") { $0["rate"] as? Double == 1.25 }
        player.send("nonsense")
        try player.next("error")
        let (status, printed, err) = try player.quit()
        #expect(status == 0)
        #expect(err == "practice: control: not a JSON object: nonsense\n")
        // The bad line is answered among the events too, for the script.
        #expect(printed.filter { $0.contains(#""event":"error""#) } == [#"{"code":65,"event":"error","message":"control: not a JSON object: nonsense"}"#])
        let events = printed.filter { !$0.contains(#""event":"error""#) }
        #expect(events.allSatisfy { $0.hasPrefix(#"{"duration":10,"event":"state","#) && $0.hasSuffix(#","version":1}"#) })
        // Paused at 7.25 s, then the rate changed while paused: position and rate exact.
        #expect(events.contains(#"{"duration":10,"event":"state","finished":false,"pitch":0,"playing":false,"position":7.25,"rate":1.25,"underruns":0,"version":1}"#))
    }
}

/// `--verbose` says how playback runs, and once, when the audio thread got no real-time priority
/// (here: run without CAP_SYS_NICE and with `ulimit -r` at 0, as an ordinary user is).
@Suite struct VerboseTests {
    let fx = Fixtures.shared

    @Test func aMissingRealTimePriorityIsReportedOnce() throws {
        // No session bus here: --verbose says so too.
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"]
        let normal = try run(practiceBinary, [fx.dir.file("tone.wav"), "--device", "null", "--no-tui", "--verbose", "--to", "1"], environment: noBus)
        #expect(normal.status == 0)
        #expect(normal.stderr == """
            practice: playing through 'null' at 44100 Hz, 2 channels
            practice: no MPRIS (media keys, desktop controls): no session bus (sd_bus_open_user: No such file or directory)

            """)
        let refused = try run("/usr/bin/setpriv", ["--bounding-set", "-sys_nice", "prlimit", "--rtprio=0", "--",
                                                   practiceBinary, fx.dir.file("tone.wav"), "--device", "null", "--no-tui", "-v", "--to", "1"],
                              environment: noBus)
        #expect(refused.status == 0)
        #expect(refused.stderr == """
            practice: playing through 'null' at 44100 Hz, 2 channels
            practice: warning: no real-time priority for the audio thread (SCHED_FIFO was refused: raise 'ulimit -r' or use rtkit); playback may skip when the machine is busy
            practice: no MPRIS (media keys, desktop controls): no session bus (sd_bus_open_user: No such file or directory)

            """)
    }

    /// Plain `practice` says what to type first.
    @Test func plainPracticePrintsAShortUsage() throws {
        let r = try practice([], in: fx.dir)
        #expect(r.status == 0 && r.stderr == "")
        #expect(r.stdout.hasPrefix("practice: a practice player.") && r.stdout.contains("\n  practice song.mp3               play it on the practice screen")
                && r.stdout.contains("\n  practice library                your music folders: covers, search, today's pick\n"))
        #expect(r.stdout.split(separator: "\n").filter { $0.hasPrefix("  practice ") }.count == 4)
    }

    /// A render says what it is in its title, keeping the other tags.
    @Test func aRenderIsTitledWithWhatItIs() throws {
        let out = "drill-\(UUID().uuidString).flac"
        let r = try practice(["render", "tone.wav", "-o", out, "--loop", "1", "3", "--times", "2", "--rate", "0.8", "--pitch", "-2"], in: fx.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try practice(["info", out], in: fx.dir)
        #expect(info.stdout.contains("Title:        0:01.0 – 0:03.0 drill · 0.80× · −2 st\n") && info.stdout.contains("Artist:       Test\n"), "\(info.stdout)")
        let plain = "plain-\(UUID().uuidString).wav"
        #expect(try practice(["render", "tone.wav", "-o", plain], in: fx.dir).status == 0)
        #expect(try practice(["info", plain], in: fx.dir).stdout.contains("Title:        Tone\n"), "a plain copy keeps its title")
    }

    /// `--trainer` without `--times` renders every speed up to the top one; with `--rate` it is refused.
    @Test func aTrainerRenderGoesToItsTopSpeed() throws {
        let out = "trainer-\(UUID().uuidString).wav"
        let r = try practice(["render", "tone.wav", "-o", out, "--loop", "1", "2", "--trainer", "0.5:1.0:0.25"], in: fx.dir)
        #expect(r.status == 0, "\(r.stderr)")
        // Three passes of one second: at 0.5× (2 s), 0.75× (1.333 s) and 1.0× (1 s).
        let frames = try Signals.read(fx.dir.file(out)).info.frames
        #expect(abs(Double(frames) / 44_100 - (2 + 4.0 / 3 + 1)) < 0.01, "\(Double(frames) / 44_100) s")
        let both = try practice(["render", "tone.wav", "-o", "never.wav", "--loop", "1", "2", "--trainer", "0.5:1.0:0.25", "--rate", "0.8"], in: fx.dir)
        #expect(both.status == 64 && both.stderr == "practice: '--rate 0.8' and '--trainer 0.5:1.0:0.25' both set the speed; the trainer starts at its FROM, so drop '--rate' (see 'practice --help')\n")
        #expect(!FileManager.default.fileExists(atPath: fx.dir.file("never.wav")))
    }
}
