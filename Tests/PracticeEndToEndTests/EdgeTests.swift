// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// The far ends of what a file can be: one sample long, a whole day long, eight channels, 384 kHz,
/// a name made of escape sequences. Each plays, renders and takes markers, or says in one line why not.
@Suite struct EdgeTests {
    let dir = ScratchDirectory("edges")

    func info(_ path: String) throws -> [String: Any] {
        let r = try practice(["info", path, "--json"], in: dir)
        #expect(r.status == 0, "\(r)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
    }

    /// A 16-bit WAV of `frames` of silence, sparse: its header, then a hole.
    func silence(to path: String, frames: Int, sampleRate: Int, channels: Int = 1) throws {
        let bytes = frames * channels * 2
        var header = Data("RIFF".utf8)
        func le32(_ v: Int) -> Data { withUnsafeBytes(of: UInt32(v).littleEndian) { Data($0) } }
        func le16(_ v: Int) -> Data { withUnsafeBytes(of: UInt16(v).littleEndian) { Data($0) } }
        header += le32(36 + bytes) + Data("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(sampleRate) + le32(2 * channels * sampleRate) + le16(2 * channels) + le16(16)
        header += Data("data".utf8) + le32(bytes)
        try header.write(to: URL(fileURLWithPath: path))
        try #require(truncate(path, off_t(header.count + bytes)) == 0)
    }

    @Test func aTrackOfOneSample() throws {
        let song = dir.file("one.wav")
        try Signals.write([0.5, -0.5], to: song)
        let i = try info(song)
        #expect(i["frames"] as? Int == 1 && i["duration"] as? Double == 0, "\(i)")
        var r = try practice(["render", song, "-o", dir.file("one-out.wav"), "--rate", "0.5", "-q"], in: dir)
        #expect(r.status == 0 && r.stderr == "", "\(r)")
        let (samples, out) = try Signals.read(dir.file("one-out.wav"))
        #expect(out.frames <= 2 && samples.count == out.frames * 2, "\(out.frames) frames")
        r = try practice([song, "--device", "null", "--no-tui", "--no-journal"], in: dir)
        #expect(r.status == 0 && r.stderr == "", "\(r)")
        r = try practice(["markers", "add", song, "Only", "0"], in: dir)
        #expect(r.status == 0 && r.stdout == "added marker 'Only' at 0:00.000 (\(song).practice.json)\n", "\(r)")
        r = try practice(["markers", "add", song, "Past", "0.5"], in: dir)
        #expect(r.status == 64 && r.stderr.hasPrefix("practice: ") && r.stderr.split(separator: "\n").count == 1, "\(r)")
        r = try practice([song, "--device", "null", "--loop", "0", "0.00002"], in: dir)
        #expect(r.status == 64 && r.stderr.split(separator: "\n").count == 1, "\(r)")
    }

    /// 24 hours: a WAV of silence at 8 kHz, mono (1.4 GB, sparse: its header, then a hole); its
    /// end is reached by seeking, times past 9:59:59 are written h:mm:ss, a render near the end is
    /// exact, and its identity is worked out by reading all of it.
    @Test func aTrackOfADay() throws {
        let song = dir.file("day.wav")
        try silence(to: song, frames: 86_400 * 8_000, sampleRate: 8_000)
        let i = try info(song)
        #expect(i["duration"] as? Double == 86_400 && i["frames"] as? Int == 86_400 * 8_000, "\(i)")
        var r = try practice(["render", song, "-o", dir.file("end.wav"), "--from", "23:59:58", "--rate", "0.8", "-q"], in: dir)
        #expect(r.status == 0, "\(r)")
        let (_, end) = try Signals.read(dir.file("end.wav"))
        #expect(abs(Double(end.frames) - 2 / 0.8 * 8_000) <= 8, "\(end.frames) frames")
        r = try practice(["markers", "add", song, "Late", "23:59:59.5"], in: dir)
        #expect(r.status == 0 && r.stdout.hasPrefix("added marker 'Late' at 23:59:59.500 "), "\(r)")
        r = try practice([song, "--device", "null", "--no-tui", "--no-journal", "--from", "Late"], in: dir)
        #expect(r.status == 0 && r.stderr == "", "\(r)")
        r = try practice([song, "--device", "null", "--from", "24:00:01"], in: dir)
        #expect(r.status == 64 && r.stderr == "practice: --from 24:00:01.000 is past the end of \(song) (24:00:00.000)\n", "\(r)")
    }

    /// Past a day (25 hours at 1 kHz, sparse): a marker at 24:30:00 is taken, and an export leaves
    /// it out (no interchange format holds a time past 24 hours), says so, and counts what it wrote.
    @Test func aMarkerPastADayIsLeftOutOfAnExportAndNotCounted() throws {
        let song = dir.file("long.wav")
        try silence(to: song, frames: 25 * 3_600 * 1_000, sampleRate: 1_000)
        for args in [["markers", "add", song, "Early", "1"], ["markers", "add", song, "Late", "24:30:00"], ["loops", "add", song, "L", "Early", "2"]] {
            let r = try practice(args, in: dir)
            #expect(r.status == 0, "\(r)")
        }
        let r = try practice(["markers", "export", song, "-o", "labels.txt"], in: dir)
        #expect(r.status == 0 && r.stderr == "practice: note: left out 1 entry with a time outside 0 to 24 hours or an end before the start\n"
                + "practice: wrote 2 of 3 (2 markers and 1 loop) to labels.txt\n", "\(r)")
        #expect(try String(contentsOfFile: dir.file("labels.txt"), encoding: .utf8) == "1.000000\t1.000000\tEarly\n1.000000\t2.000000\tL\n")
    }

    /// A header that says 8 Hz (SoundTouch's windows would shrink to nothing: a stretch that never
    /// ends), 768 kHz (a render came out 10–15 ms short; the player waited for ever for more audio
    /// than its buffer held, since mended) or 2 GHz (it hung too), or 16 channels (SoundTouch
    /// aborted) is refused in one line by every command;
    /// 1 kHz, the lowest taken, plays, renders and takes markers (Chromaprint, which refuses 1 kHz,
    /// is not asked: it crashed when it was).
    @Test func aSampleRateOrChannelsNoRecordingHasAreRefusedInOneLine() throws {
        try silence(to: dir.file("low.wav"), frames: 24, sampleRate: 8)
        try silence(to: dir.file("high.wav"), frames: 30_000, sampleRate: 768_000)
        try silence(to: dir.file("higher.wav"), frames: 30_000, sampleRate: 2_000_000_000)
        try silence(to: dir.file("many.wav"), frames: 4_410, sampleRate: 44_100, channels: 16)
        for (file, why) in [("low.wav", "a sample rate of 8 Hz is not one practice plays (1000 to 384000 Hz)"),
                            ("high.wav", "a sample rate of 768000 Hz is not one practice plays (1000 to 384000 Hz)"),
                            ("higher.wav", "a sample rate of 2000000000 Hz is not one practice plays (1000 to 384000 Hz)"),
                            ("many.wav", "16 channels are more than practice plays (15 at most)")] {
            for args in [["info", file], ["render", file, "-o", "out.wav", "--rate", "0.8"], [file, "--device", "null"], ["markers", "add", file, "M", "0"]] {
                let r = try practice(args, in: dir)
                #expect(r.status == 65 && r.stdout == "" && r.stderr == "practice: \(file): \(why)\n", "\(args): \(r)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
        let kHz = dir.file("khz.wav")
        try Signals.write(Signals.sine(100, seconds: 3, sampleRate: 1_000, channels: 1), to: kHz, sampleRate: 1_000, channels: 1)
        var r = try practice(["markers", "add", kHz, "M", "1"], in: dir)
        #expect(r.status == 0 && r.stderr == "", "\(r)")
        r = try practice(["render", kHz, "-o", dir.file("khz-out.wav"), "--rate", "0.8", "-q"], in: dir)
        #expect(r.status == 0 && r.stderr == "", "\(r)")
        let (out, outInfo) = try Signals.read(dir.file("khz-out.wav"))
        #expect(outInfo.sampleRate == 1_000 && abs(outInfo.frames - 3_750) <= 10, "\(outInfo.frames) frames")
        #expect(abs(Analysis.dominantFrequency(out[1_000..<3_048].map(Double.init), sampleRate: 1_000) - 100) < 1)
        r = try practice([kHz, "--device", "null", "--no-tui", "--no-journal", "--rate", "0.8"], in: dir)
        #expect(r.status == 0 && r.stderr == "", "\(r)")
    }

    /// Eight channels at 384 kHz: every channel is carried through the stretcher and the resampler.
    @Test func eightChannelsAt384kHz() throws {
        let song = dir.file("octo.wav")
        let frames = 384_000 / 2
        var samples = [Float](repeating: 0, count: frames * 8)
        for f in 0..<frames {
            for c in 0..<8 { samples[f * 8 + c] = Float(0.3 * sin(2 * Double.pi * Double(500 * (c + 1)) * Double(f) / 384_000)) }
        }
        try Signals.write(samples, to: song, sampleRate: 384_000, channels: 8)
        let i = try info(song)
        #expect(i["channels"] as? Int == 8 && i["sampleRate"] as? Int == 384_000, "\(i)")
        var r = try practice(["render", song, "-o", dir.file("octo.flac"), "--rate", "0.8", "-q"], in: dir)
        #expect(r.status == 0, "\(r)")
        let (out, outInfo) = try Signals.read(dir.file("octo.flac"))
        #expect(outInfo.channels == 8 && outInfo.sampleRate == 384_000)
        #expect(abs(Double(outInfo.frames) - Double(frames) / 0.8) < 384, "\(outInfo.frames) frames")
        for c in 0..<8 {   // each channel kept its own tone, in its own place
            let x = Signals.channel(out, c, of: 8)
            let f = Analysis.dominantFrequency(Array(x[40_000..<(40_000 + 65_536)]), sampleRate: 384_000)
            #expect(abs(f - Double(500 * (c + 1))) < 2, "channel \(c + 1): \(f) Hz")
        }
        r = try practice([song, "--device", "null", "--no-tui", "--no-journal", "--rate", "0.8"], in: dir)
        #expect(r.status == 0 && r.stderr == "", "\(r)")
    }

    /// A file name made of escape sequences is shown, never obeyed, in what practice prints.
    @Test func aFileNameOfEscapesIsShownNotObeyed() throws {
        let name = "\u{1B}]0;pwned\u{07}\u{1B}[2J.wav"
        try Signals.write(Signals.sine(440, seconds: 1), to: dir.file(name))
        let outputs = [
            try practice(["render", name, "-o", "x.wav", "--force"], in: dir),
            try practice(["markers", "add", name, "M", "0.5"], in: dir),
            try practice([name, "--device", "null", "--from", "0:05"], in: dir),
        ]
        for r in outputs {
            #expect(!r.stdout.utf8.contains(0x1B) && !r.stderr.utf8.contains(0x1B) && !r.stdout.utf8.contains(0x07) && !r.stderr.utf8.contains(0x07), "\(r)")
        }
        #expect(outputs[2].stderr == #"practice: --from 0:05.000 is past the end of \u{1b}]0;pwned\u{7}\u{1b}[2J.wav (0:01.000)"# + "\n", "\(outputs[2])")
    }
}
