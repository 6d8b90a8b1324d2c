// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// The files a dancer has (a store's M4A, a video site's WebM, a tutorial's MP4), made by
/// Debian's `ffmpeg` from generated music, through the commands: described, played, rendered to
/// the exact length, and a crew's markers set on the FLAC landing on the M4A; and each file that
/// cannot be played, one line and exit 65.
@Suite struct ContainerCommandTests {
    static let dir = ScratchDirectory("container-commands")
    /// 40 s of generated music as FLAC (tagged: long enough for fingerprints to line copies up), and from it: AAC in M4A, Opus in WebM, H.264 and
    /// AAC in MP4, a silent video, an encrypted M4P, a cut M4A (its index first), text named .m4a.
    static let made: Bool = {
        let music = Signals.music(seconds: 40, seed: 31)
        try! Signals.write(music, to: dir.file("song.flac"), container: .flac, tags: ["title": "Drill", "artist": "Crew"])
        func ffmpeg(_ args: [String]) {
            let r = try! run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + args, currentDirectory: dir.path)
            precondition(r.status == 0, "\(r)")
        }
        let tags = ["-metadata", "title=Drill", "-metadata", "artist=Crew"]
        ffmpeg(["-i", "song.flac", "-c:a", "aac", "-b:a", "192k", "-movie_timescale", "44100"] + tags + ["song.m4a"])
        ffmpeg(["-i", "song.flac", "-c:a", "libopus", "-b:a", "128k"] + tags + ["song.webm"])
        ffmpeg(["-i", "song.flac", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=40", "-map", "1:v", "-map", "0:a",
                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-movie_timescale", "44100", "tutorial.mp4"])
        ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2", "-c:v", "libx264", "-preset", "ultrafast", "silent.mp4"])
        ffmpeg(["-i", "song.flac", "-c:a", "aac", "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", "76a6c65c5ea762046bd749a2e632ccbb",
                "-encryption_kid", "a7e61c373e219033c21091fa607bf3b8", "-f", "mp4", "locked.m4p"])
        ffmpeg(["-i", "song.flac", "-c:a", "aac", "-movflags", "+faststart", "whole.m4a"])
        let whole = try! Data(contentsOf: URL(fileURLWithPath: dir.file("whole.m4a")))
        try! whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: dir.file("cut.m4a")))
        try! "just some text\n".write(toFile: dir.file("notes.m4a"), atomically: true, encoding: .utf8)
        return true
    }()

    /// Runs practice in the files' folder; `journal` names the journal's own folder (each test
    /// that plays has its own: the tests run at once).
    func practice(_ args: [String], journal: String = "data") throws -> ProcessResult {
        #expect(Self.made)
        return try run(practiceBinary, args, environment: ["XDG_CACHE_HOME": Self.dir.file("cache"), "XDG_STATE_HOME": Self.dir.file("state"),
                                                           "XDG_DATA_HOME": Self.dir.file(journal), "TZ": "UTC", "DISPLAY": "", "WAYLAND_DISPLAY": ""],
                       currentDirectory: Self.dir.path)
    }

    @Test func infoOnAStoresM4AAndATutorial() throws {
        var r = try practice(["info", "song.m4a"])
        #expect(r.status == 0 && r.stdout == """
            File:         song.m4a
            Format:       M4A, AAC
            Duration:     0:40.000 (1764000 frames)
            Sample rate:  44100 Hz
            Channels:     2
            Title:        Drill
            Artist:       Crew

            """, "\(r)")
        // The M4A's and the MP4's header are read without loading FFmpeg (glibc's loader lists
        // what it loads); the WebM's through FFmpeg, which loads.
        for (file, loads) in [("song.m4a", false), ("tutorial.mp4", false), ("song.webm", true)] {
            let traced = try run(practiceBinary, ["info", file], environment: ["LD_DEBUG": "files", "XDG_CACHE_HOME": Self.dir.file("cache")], currentDirectory: Self.dir.path)
            #expect(traced.status == 0 && traced.stderr.contains("file=libavformat.so") == loads, "\(file): \(traced.stdout)")
        }
        r = try practice(["info", "tutorial.mp4", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        #expect(json["container"] as? String == "MP4" && json["encoding"] as? String == "AAC" && json["frames"] as? Int == 1_764_000)
        #expect((json["audioStreams"] as? [[String: Any]])?.count == 1 && json["audioStream"] as? Int == 0)
    }

    /// Rendered at 0.8×: 40 s become exactly 50 s, from the M4A and from the video's soundtrack.
    @Test(arguments: ["song.m4a", "tutorial.mp4", "song.webm"])
    func renderedToTheExactLength(_ file: String) throws {
        let out = "slow-\(file.split(separator: ".")[0])-\(file.split(separator: ".")[1]).wav"
        let r = try practice(["render", file, "-o", out, "--rate", "0.8", "--quiet"])
        #expect(r.status == 0, "\(r)")
        let rendered = try Signals.read(Self.dir.file(out))
        let source = file.hasSuffix("webm") ? 1_920_000 : 1_764_000
        #expect(rendered.samples.count / rendered.info.channels == Int((Double(source) / 0.8).rounded()), "\(rendered.samples.count / 2) frames")
    }

    /// Rendered *to* an M4A (AAC, which phones play) at 0.8×: exactly as many frames as the same
    /// render to WAV, the same music in place to the sample, the tags kept.
    @Test func renderedToAnM4A() throws {
        var r = try practice(["render", "song.flac", "-o", "slow.m4a", "--rate", "0.8", "--quiet"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        r = try practice(["render", "song.flac", "-o", "slow-m4a-reference.wav", "--rate", "0.8", "--quiet"])
        #expect(r.status == 0, "\(r)")
        r = try practice(["info", "slow.m4a", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        #expect(json["container"] as? String == "M4A" && json["encoding"] as? String == "AAC" && json["frames"] as? Int == 2_205_000, "\(json)")
        #expect((json["tags"] as? [String: String])?["artist"] == "Crew")
        let m4a = try Signals.read(Self.dir.file("slow.m4a")).samples, wav = try Signals.read(Self.dir.file("slow-m4a-reference.wav")).samples
        #expect(m4a.count == wav.count)
        let a = Signals.channel(m4a, 0, of: 2), b = Signals.channel(wav, 0, of: 2)
        for at in [44_100, 1_000_000, 2_150_000] {
            let lag = Analysis.bestLag(of: Array(a[at..<(at + 8_192)]), in: Array(b[(at - 64)..<(at + 8_192 + 64)]), range: 0...128) - 64
            #expect(abs(lag) <= 1, "at \(at): \(lag) samples off")
        }
    }

    /// A crew's marker set on the FLAC lands on the same music in the M4A made from it (the
    /// M4A uses the FLAC's sidecar, lined up), within a millisecond; and one set on the M4A goes
    /// into that sidecar at the FLAC's time.
    @Test func aMarkerRoundTripBetweenTheFLACAndItsM4A() throws {
        var r = try practice(["markers", "add", "song.flac", "Verse", "4.5"])
        #expect(r.status == 0, "\(r)")
        func times(_ file: String) throws -> [String: Double] {
            let r = try practice(["markers", file, "--json"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
            let markers = try #require(json["markers"] as? [[String: Any]], "\(json)")
            return Dictionary(uniqueKeysWithValues: markers.map { ($0["name"] as! String, $0["time"] as! Double) })
        }
        let onM4A = try times("song.m4a")
        #expect(abs((onM4A["Verse"] ?? -1) - 4.5) <= 0.0011, "\(onM4A)")
        r = try practice(["markers", "add", "song.m4a", "Turn", "7.5"])
        #expect(r.status == 0 && r.stdout == "added marker 'Turn' at 0:07.500 (song.flac.practice.json)\n", "\(r)")
        #expect(abs((try times("song.flac")["Turn"] ?? -1) - 7.5) <= 0.0011)
    }

    /// Each played to its end, and each session in the journal under the song's tags (the
    /// tutorial, untagged, under its file's name).
    @Test func playedThroughToTheEndAndJournaled() throws {
        for file in ["song.m4a", "song.webm", "tutorial.mp4"] {
            let r = try practice([file, "--device", "null", "--no-tui", "--from", "38"], journal: "played")
            // The tutorial's picture has no display here (the tests' environment has none): one line.
            let said = file == "tutorial.mp4" ? "practice: tutorial.mp4: no display to show the picture on (neither DISPLAY nor WAYLAND_DISPLAY is set); playing the sound alone\n" : ""
            #expect(r.status == 0 && r.stderr == said, "\(file): \(r)")
        }
        let r = try practice(["journal", "today", "--json"], journal: "played")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        let songs = try #require(json["songs"] as? [[String: Any]], "\(json)")
        let paths = Set(songs.compactMap { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } })
        #expect(json["sessions"] as? Int == 3 && songs.contains { $0["song"] as? String == "Crew — Drill" } && paths.isSubset(of: ["song.m4a", "song.webm", "tutorial.mp4"])
                && paths.contains("tutorial.mp4"), "\(json)")
    }

    /// What cannot be played says why in one line, exit 65 (a stream that is not there: 64);
    /// a cut M4A plays what is there and says so once.
    @Test(arguments: [
        (["silent.mp4"], 65, "practice: silent.mp4: has no audio track\n"),
        (["locked.m4p"], 65, "practice: locked.m4p: is protected (DRM); practice cannot decode it\n"),
        (["notes.m4a"], 65, "practice: notes.m4a: not a supported audio file (neither libsndfile nor FFmpeg reads it)\n"),
        (["song.m4a", "--audio-stream", "1"], 64, "practice: song.m4a: has no audio stream 1 (only 0)\n"),
        (["info", "song.m4a", "--audio-stream", "1"], 64, "practice: song.m4a: has no audio stream 1 (only 0)\n"),
    ])
    func whatCannotBePlayed(_ args: [String], status: Int32, message: String) throws {
        let r = try practice(args + (args[0] == "info" ? [] : ["--device", "null", "--no-tui"]))
        #expect(r.status == status && r.stderr == message && r.stdout.isEmpty, "\(r)")
    }

    @Test func aCutM4APlaysWhatIsThere() throws {
        let r = try practice(["cut.m4a", "--device", "null", "--no-tui"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.hasPrefix("practice: warning: cut.m4a: decoding failed (") && r.stderr.hasSuffix("; played what was there\n")
                && r.stderr.split(separator: "\n").count == 1, "\(r)")
    }

    /// A tutorial with a second soundtrack (a 1 kHz tone here): a marker set on the file is a
    /// time on the file, which every stream shares, so rendering the second stream from it says
    /// nothing of "another recording" and gives that stream's audio.
    @Test func aMarkerServesEveryStreamOfTheFile() throws {
        #expect(Self.made)
        try Signals.write(Signals.sine(1_000, seconds: 40), to: Self.dir.file("tone.wav"))
        let made = try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", "song.flac", "-i", "tone.wav", "-map", "0:a", "-map", "1:a", "-c:a", "libvorbis", "two.mkv"],
                           currentDirectory: Self.dir.path)
        #expect(made.status == 0, "\(made)")
        var r = try practice(["markers", "add", "two.mkv", "Spin", "12"])
        #expect(r.status == 0, "\(r)")
        r = try practice(["render", "two.mkv", "--audio-stream", "1", "--from", "Spin", "--to", "13", "-o", "spin.wav", "--force"])
        #expect(r.status == 0 && r.stderr == "practice: wrote spin.wav (0:01.000, 44100 Hz, 2 ch)\n", "\(r)")
        let rendered = try Signals.read(Self.dir.file("spin.wav")).samples
        let f = Analysis.dominantFrequency(Array(Signals.channel(rendered, 0, of: 2).prefix(16_384)), sampleRate: 44_100)
        #expect(abs(f - 1_000) < 5, "\(f) Hz: not the second stream")
    }
}
