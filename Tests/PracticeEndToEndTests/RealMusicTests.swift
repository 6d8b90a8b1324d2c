// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// Real songs: Debian's wesnoth-1.16-music (tagged Ogg Vorbis, 2–9 minutes; `make test` installs
/// it), and copies made from them by sox, lame and oggenc, as a crew has them. What generated
/// music proves exact must also work here: the beats found, within their bounds, and the day's
/// commands on a real song.
@Suite struct RealMusicTests {
    static let folder = "/usr/share/games/wesnoth/1.16/data/core/music"
    /// Four songs, 20 minutes in all: a march, a fast piece, the longest (9:17), a slow one.
    static let songs = ["wanderer", "frantic", "knalgan_theme", "heroes_rite"]
    let dir = ScratchDirectory("real-music")

    func practice(_ args: [String]) throws -> ProcessResult {
        try run(practiceBinary, args, environment: ["XDG_CACHE_HOME": dir.file("cache")], currentDirectory: dir.path)
    }

    /// Runs `practice` under python3's resource module: its result, the CPU seconds it used
    /// (user + system) and its peak resident memory in MB.
    func measured(_ args: [String]) throws -> (result: ProcessResult, cpu: Double, peakMB: Double) {
        let script = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            u = resource.getrusage(resource.RUSAGE_CHILDREN)
            sys.stderr.write(r.stderr)
            sys.stdout.write(r.stdout)
            sys.stdout.write("\\nMEASURED %d %.3f %d\\n" % (r.returncode, u.ru_utime + u.ru_stime, u.ru_maxrss))
            """
        var r = try run("/usr/bin/python3", ["-c", script, practiceBinary] + args, environment: ["XDG_CACHE_HOME": dir.file("cache")], currentDirectory: dir.path)
        let line = try #require(r.stdout.split(separator: "\n").last(where: { $0.hasPrefix("MEASURED ") }), "\(r)")
        let f = line.split(separator: " ")
        r.status = Int32(f[1])!
        r.stdout = String(r.stdout[..<r.stdout.range(of: "\nMEASURED ")!.lowerBound])
        return (r, Double(f[2])!, Double(f[3])! / 1024)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// Whole songs: the beats found in at most a second of CPU per minute of audio and under
    /// 100 MB, a tempo a dancer counts with the other reading beside it, and beats that fill the song.
    @Test(arguments: songs)
    func theBeatsOfAWholeSong(_ name: String) throws {
        let path = "\(Self.folder)/\(name).ogg"
        let info = try json(try practice(["info", path, "--json"]).stdout)
        let minutes = (info["duration"] as! Double) / 60
        let m = try measured(["beats", path, "--json", "--markers", dir.file("\(name).json")])
        #expect(m.result.status == 0, "\(m.result)")
        let g = try json(m.result.stdout)
        let tempo = g["tempo"] as! Double, beats = g["beats"] as! [Double]
        print("real: \(name): \(tempo) bpm (or \(g["otherTempo"] ?? "-")), \(beats.count) beats, \(String(format: "%.2f", m.cpu)) s CPU for \(String(format: "%.1f", minutes)) min, \(String(format: "%.1f", m.peakMB)) MB")
        #expect(m.cpu <= minutes * 1.0, "\(name): \(m.cpu) s of CPU for \(minutes) minutes")
        #expect(m.peakMB < 100, "\(name): \(m.peakMB) MB")
        #expect((40...210).contains(tempo) && g["otherTempo"] is Double, "\(g["tempo"] ?? "-") (or \(g["otherTempo"] ?? "-"))")
        // Beats from near the start to near the end, none closer than 400 bpm allows (0.15 s;
        // times are whole milliseconds, and their difference as a Double may fall a hair short).
        #expect(beats.count >= Int(minutes * tempo * 0.6) && beats.first! < 15 && beats.last! > minutes * 60 - 20, "\(beats.count) beats from \(beats.first!) to \(beats.last!)")
        #expect(zip(beats.dropFirst(), beats).allSatisfy { $0 - $1 >= 0.1495 })
    }

    /// The ten seconds that once hung the analysis for minutes while it took 9.8 GB
    /// (`sox wanderer.ogg w10.wav trim 30 10`), and the same with --bpm: both end, in bounds.
    @Test func theExcerptThatHung() throws {
        _ = try run("/usr/bin/sox", ["\(Self.folder)/wanderer.ogg", dir.file("w10.wav"), "trim", "30", "10"])
        var m = try measured(["beats", "w10.wav", "--json"])
        #expect(m.result.status == 0 || m.result.stderr == "practice: w10.wav: no steady beat found\n", "\(m.result)")
        #expect(m.cpu < 2 && m.peakMB < 100, "\(m.cpu) s, \(m.peakMB) MB")
        m = try measured(["beats", "w10.wav", "--bpm", "122", "--again", "--json"])
        #expect(m.result.status == 0 && m.cpu < 2 && m.peakMB < 100, "\(m.result) \(m.cpu) s, \(m.peakMB) MB")
        let g = try json(m.result.stdout)
        let beats = g["beats"] as! [Double]
        #expect(g["tempo"] as? Double == 122 && zip(beats.dropFirst(), beats).allSatisfy { abs($0 - $1 - 60.0 / 122) < 0.0015 }, "\(g)")
    }

    /// The loudness (RMS of both channels) of interleaved stereo `samples`, a value for each
    /// `block` frames (a fraction of a frame is rounded at each block's edges).
    func loudness(_ samples: [Float], frames: Int, block: Double) -> [Double] {
        stride(from: 0.0, to: Double(frames) - block, by: block).map { (from: Double) -> Double in
            let (a, b) = (Int(from.rounded()), Int((from + block).rounded()))
            var sum = 0.0
            for i in (a * 2)..<(b * 2) { sum += Double(samples[i]) * Double(samples[i]) }
            return (sum / Double((b - a) * 2)).squareRoot()
        }
    }

    /// The mean level of a loudness envelope, in dB.
    func mean(_ x: [Double]) -> Double { 20 * log10((x.map { $0 * $0 }.reduce(0, +) / Double(x.count)).squareRoot()) }

    /// The holes in a loudness envelope of 10 ms blocks: 50 ms quieter than 40 dB under its mean.
    func holes(_ x: [Double]) -> Int {
        let floor = pow(10, (mean(x) - 40) / 20)
        var run = 0, found = 0
        for v in x { run = v < floor ? run + 1 : 0; if run == 5 { found += 1 } }
        return found
    }

    /// 20 s of a real song (frantic, fast and full of attacks) rendered at 0.8× by both stretchers:
    /// each exactly 25 s long and lined up with the song (its 10 ms loudness envelope matches the
    /// source's, 8 ms of it a block, best at 0 for Rubber Band's, within ±10 ms for SoundTouch's,
    /// which runs 10 ms early), Rubber Band's as loud as SoundTouch's (within 1.5 dB), and with no hole (no 50 ms
    /// quieter than 40 dB under the mean) that SoundTouch's has not.
    @Test func bothStretchersOnARealSong() throws {
        var renders: [String: [Double]] = [:]
        var rate = 0
        for quality in ["fast", "high"] {
            let r = try practice(["render", "\(Self.folder)/frantic.ogg", "-o", "frantic-\(quality).wav", "--from", "30", "--to", "50",
                                  "--rate", "0.8", "--quality", quality, "--sample-format", "float", "--force"])
            #expect(r.status == 0, "\(r)")
            let read = try Signals.read(dir.file("frantic-\(quality).wav"))
            rate = read.info.sampleRate
            #expect(read.info.frames == 25 * rate, "\(quality): \(read.info.frames) frames")
            renders[quality] = loudness(read.samples, frames: read.info.frames, block: Double(rate) / 100)   // every 10 ms
        }
        let fast = try #require(renders["fast"]), high = try #require(renders["high"])
        // The song's own loudness over the same 20 s, a block for each 10 ms of the renders.
        let song = try Signals.read("\(Self.folder)/frantic.ogg", start: 30 * rate, frames: 20 * rate)
        let source = loudness(song.samples, frames: 20 * rate, block: 0.008 * Double(rate))
        // Rubber Band's output is lined up with its input to the block (its start delay dropped);
        // SoundTouch's runs one block ahead, within the ±10 ms allowed.
        for (quality, envelope, exact) in [("fast", fast, false), ("high", high, true)] {
            let middle = Array(envelope[100..<(envelope.count - 100)])
            let lag = Analysis.bestLag(of: middle, in: source, range: 90...110) - 100
            #expect(exact ? lag == 0 : abs(lag) <= 1, "\(quality): its loudness \(lag * 10) ms from the song's")
        }
        #expect(abs(mean(high) - mean(fast)) < 1.5, "\(mean(high)) against \(mean(fast)) dB")
        #expect(holes(high) <= holes(fast), "\(holes(high)) holes in Rubber Band's, \(holes(fast)) in SoundTouch's")
    }

    /// The same 20 s two semitones up at high quality, formants kept (`--formant`: linear
    /// prediction around Rubber Band) and not: exactly 20 s long, in step with the plain shift
    /// (their 10 ms loudness envelopes best lined up at 0), as loud as it (within 1.5 dB; measured
    /// −0.4 dB), and with no hole the plain shift has not. Filters fitted to a real mix every 10 ms
    /// and swapped as the shift goes on must neither drift in time nor pump nor go silent.
    @Test func formantsKeptOnARealSong() throws {
        var renders: [String: [Double]] = [:]
        for (name, extra) in [("kept", ["--formant"]), ("moved", ["--quality", "high"])] {
            let r = try practice(["render", "\(Self.folder)/frantic.ogg", "-o", "frantic-\(name).wav", "--from", "30", "--to", "50",
                                  "--pitch", "2", "--sample-format", "float", "--force"] + extra)
            #expect(r.status == 0, "\(r)")
            let read = try Signals.read(dir.file("frantic-\(name).wav"))
            #expect(read.info.frames == 20 * read.info.sampleRate, "\(name): \(read.info.frames) frames")
            renders[name] = loudness(read.samples, frames: read.info.frames, block: Double(read.info.sampleRate) / 100)
        }
        let kept = try #require(renders["kept"]), moved = try #require(renders["moved"])
        let lag = Analysis.bestLag(of: Array(kept[100..<(kept.count - 100)]), in: moved, range: 90...110) - 100
        #expect(lag == 0, "the kept render's loudness \(lag * 10) ms from the plain shift's")
        #expect(abs(mean(kept) - mean(moved)) < 1.5, "\(mean(kept)) against \(mean(moved)) dB")
        #expect(holes(kept) <= holes(moved), "\(holes(kept)) holes with formants kept, \(holes(moved)) without")
    }

    /// A crew mate's MP3 and Ogg copies of 30 s of a real song: rendered at 0.8× to the exact
    /// length, marked, looped with a count-in (the render as long as the clicks, the gap and the
    /// passes), previewed, and fingerprinted.
    @Test func aDayOnARealSong() throws {
        // Each copy in a folder of its own, as each crew mate has it.
        for copy in ["wav", "mp3", "ogg", "m4a", "webm"] { try FileManager.default.createDirectory(atPath: dir.file(copy), withIntermediateDirectories: true) }
        _ = try run("/usr/bin/sox", ["\(Self.folder)/frantic.ogg", dir.file("wav/frantic.wav"), "trim", "20", "30"])
        _ = try run("/usr/bin/lame", ["--quiet", "-b", "192", dir.file("wav/frantic.wav"), dir.file("mp3/frantic.mp3")])
        _ = try run("/usr/bin/oggenc", ["--quiet", "-q", "5", dir.file("wav/frantic.wav"), "-o", dir.file("ogg/frantic.ogg")])
        // A store's AAC (ffmpeg's default movie time scale, as most files have it) and a video site's Opus.
        _ = try run("/usr/bin/ffmpeg", ["-v", "error", "-i", dir.file("wav/frantic.wav"), "-c:a", "aac", "-b:a", "256k", dir.file("m4a/frantic.m4a")])
        _ = try run("/usr/bin/ffmpeg", ["-v", "error", "-i", dir.file("wav/frantic.wav"), "-c:a", "libopus", "-b:a", "128k", dir.file("webm/frantic.webm")])
        for song in ["wav/frantic.wav", "mp3/frantic.mp3", "ogg/frantic.ogg", "m4a/frantic.m4a", "webm/frantic.webm"] {
            let seconds = try json(try practice(["info", song, "--json"]).stdout)["duration"] as! Double
            var r = try practice(["render", song, "-o", "\(song).slow.wav", "--rate", "0.8", "-q", "--force"])
            #expect(r.status == 0, "\(r)")
            let slow = try json(try practice(["info", "\(song).slow.wav", "--json"]).stdout)["duration"] as! Double
            #expect(abs(slow - seconds / 0.8) < 0.001, "\(song): \(seconds) s at 0.8× rendered \(slow) s")
            r = try practice(["markers", "add", song, "Verse", "4.5"])
            #expect(r.status == 0, "\(r)")
            r = try practice(["markers", "add", song, "Chorus", "12.5"])
            #expect(r.status == 0, "\(r)")
            r = try practice(["loops", "add", song, "verse", "Verse", "Chorus"])
            #expect(r.status == 0, "\(r)")
            r = try practice(["render", song, "-o", "\(song).drill.wav", "--loop", "verse", "--times", "2", "--rate", "0.8", "--count-in", "4", "--bpm", "120", "-q", "--force"])
            #expect(r.status == 0, "\(r)")
            // Four clicks at 120 bpm (heard at 0.8×: 2.5 s), then two passes of 8 s at 0.8× (10 s each).
            let drill = try json(try practice(["info", "\(song).drill.wav", "--json"]).stdout)["duration"] as! Double
            #expect(abs(drill - (2.5 + 20)) < 0.01, "\(song): the drill rendered \(drill) s")
            r = try practice(["preview", song, "--where"])
            #expect(r.status == 0 && r.stdout == "0:04.5–0:19.5 the loop 'verse'\n", "\(r)")
            let sidecar = try String(contentsOfFile: dir.file("\(song).practice.json"), encoding: .utf8)
            #expect(sidecar.contains("\"chromaprint\"") && sidecar.contains("\"fingerprint\": \""), "\(song): \(sidecar.prefix(400))")
        }
    }

    /// A crew's `song.ogg.practice.json` in the folder and a crew mate's own MP3 of the song
    /// beside it: his edits go into the crew's file, moved onto the Ogg's timeline, and the line
    /// says which file was written; no `song.mp3.practice.json` forks it. Then the Ogg is renamed:
    /// its sidecar is found by the audio it was made for, and said.
    @Test func aCrewMatesEditsGoIntoTheSharedFile() throws {
        _ = try run("/usr/bin/sox", ["\(Self.folder)/wanderer.ogg", dir.file("song.wav"), "trim", "30", "30"])
        _ = try run("/usr/bin/oggenc", ["--quiet", "-q", "4", dir.file("song.wav"), "-o", dir.file("song.ogg")])
        _ = try run("/usr/bin/lame", ["--quiet", "-b", "160", dir.file("song.wav"), dir.file("song.mp3")])
        _ = try run("/usr/bin/ffmpeg", ["-v", "error", "-i", dir.file("song.wav"), "-c:a", "aac", "-b:a", "192k", dir.file("song.m4a")])
        try FileManager.default.removeItem(atPath: dir.file("song.wav"))
        var r = try practice(["markers", "add", "song.ogg", "Chorus", "10"])
        #expect(r.status == 0 && r.stdout == "added marker 'Chorus' at 0:10.000 (song.ogg.practice.json)\n", "\(r)")
        // The MP3 lines up with the Ogg (the note says how); the edit goes into the crew's file.
        r = try practice(["markers", "add", "song.mp3", "Turn", "20"])
        #expect(r.status == 0 && r.stdout == "added marker 'Turn' at 0:20.000 (song.ogg.practice.json)\n", "\(r)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("song.mp3.practice.json")))
        func times(_ song: String) throws -> [String: Double] {
            let r = try practice(["markers", song, "--json"])
            let list = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["markers"] as? [[String: Any]], "\(r)")
            return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as! String, $0["time"] as! Double) })
        }
        let onMP3 = try times("song.mp3"), onOgg = try times("song.ogg")
        let shift = onMP3["Chorus"]! - 10   // how far the MP3's audio is from the Ogg's
        #expect(abs(onMP3["Turn"]! - 20) <= 0.001 && abs(onOgg["Turn"]! - (20 - shift)) <= 0.002 && abs(shift) < 0.1, "MP3 \(onMP3), Ogg \(onOgg)")
        // A store's M4A of the same song: decoded sample-exact (the encoder's priming gone:
        // ContainerTests measures it), it lines up with the Ogg within the alignment's own
        // precision (it finds about 1 ms between these two, whose audio starts on the same
        // sample), and its edit goes into the crew's file too.
        r = try practice(["markers", "add", "song.m4a", "Spin", "25"])
        #expect(r.status == 0 && r.stdout == "added marker 'Spin' at 0:25.000 (song.ogg.practice.json)\n", "\(r)")
        let onM4A = try times("song.m4a"), withSpin = try times("song.ogg")
        #expect(abs(onM4A["Chorus"]! - 10) <= 0.002 && abs(withSpin["Spin"]! - 25) <= 0.002, "M4A \(onM4A), Ogg \(withSpin)")
        // Renamed: found by its audio.
        try FileManager.default.moveItem(atPath: dir.file("song.ogg"), toPath: dir.file("Song (dance edit).ogg"))
        r = try practice(["markers", "Song (dance edit).ogg"])
        #expect(r.status == 0 && r.stdout.contains("Chorus") && r.stdout.contains("Turn"), "\(r)")
        #expect(r.stderr == "practice: note: using song.ogg.practice.json, made for this recording under another name (song.ogg); edits go there\n", "\(r)")
        r = try practice(["markers", "add", "Song (dance edit).ogg", "Outro", "28"])
        #expect(r.status == 0 && r.stdout == "added marker 'Outro' at 0:28.000 (song.ogg.practice.json)\n", "\(r)")
    }

    /// The journal counts a crew mate's copy as the crew's song: a session on the WAV and one on
    /// its Ogg (which shares the WAV's sidecar, lined up) are one song in the report.
    @Test func copiesAreOneSongInTheJournal() throws {
        let env = ["XDG_CACHE_HOME": dir.file("cache"), "XDG_DATA_HOME": dir.file("data"), "TZ": "UTC"]
        func practice(_ args: [String]) throws -> ProcessResult { try run(practiceBinary, args, environment: env, currentDirectory: dir.path) }
        _ = try run("/usr/bin/sox", ["\(Self.folder)/frantic.ogg", dir.file("drill.wav"), "trim", "20", "20"])
        _ = try run("/usr/bin/oggenc", ["--quiet", "-q", "3", dir.file("drill.wav"), "-o", dir.file("drill.ogg")])
        #expect(try practice(["markers", "add", "drill.wav", "Verse", "4"]).status == 0)
        #expect(try practice(["markers", "drill.ogg"]).status == 0)   // the Ogg lined up with the crew's file
        for song in ["drill.wav", "drill.ogg"] {
            let r = try practice([song, "--device", "null", "--no-tui", "--to", "6"])
            #expect(r.status == 0, "\(r)")
        }
        let r = try practice(["journal", "today", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        let songs = try #require(json["songs"] as? [[String: Any]])
        #expect(json["sessions"] as? Int == 2 && songs.count == 1, "\(json)")
    }

    /// Copies with sidecars of their own (the crew's FLAC in one folder, a dancer's Ogg made
    /// from it in another, each with its own markers) are one song in the journal, found by
    /// their fingerprints; another song beside them stays another.
    @Test func copiesWithSidecarsOfTheirOwnAreOneSong() throws {
        let env = ["XDG_CACHE_HOME": dir.file("cache2"), "XDG_DATA_HOME": dir.file("data2"), "TZ": "UTC"]
        func practice(_ args: [String]) throws -> ProcessResult { try run(practiceBinary, args, environment: env, currentDirectory: dir.path) }
        for folder in ["crew", "mine", "other"] { try FileManager.default.createDirectory(atPath: dir.file(folder), withIntermediateDirectories: true) }
        _ = try run("/usr/bin/sox", ["\(Self.folder)/frantic.ogg", dir.file("crew/drill.flac"), "trim", "20", "40"])
        _ = try run("/usr/bin/oggenc", ["--quiet", "-q", "3", dir.file("crew/drill.flac"), "-o", dir.file("mine/drill.ogg")])
        _ = try run("/usr/bin/sox", ["\(Self.folder)/wanderer.ogg", dir.file("other/drill.flac"), "trim", "20", "40"])
        for song in ["crew/drill.flac", "mine/drill.ogg", "other/drill.flac"] {
            var r = try practice(["markers", "add", song, "Verse", "4"])
            #expect(r.status == 0 && r.stdout == "added marker 'Verse' at 0:04.000 (\(song).practice.json)\n", "\(r)")
            r = try practice([song, "--device", "null", "--no-tui", "--to", "6"])
            #expect(r.status == 0, "\(r)")
        }
        let r = try practice(["journal", "today", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        let songs = try #require(json["songs"] as? [[String: Any]])
        #expect(json["sessions"] as? Int == 3 && songs.count == 2, "\(json)")
    }
}
