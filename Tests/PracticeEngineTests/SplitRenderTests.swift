// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeAudio
import PracticeDocuments

/// A plain render over both cores (SplitRender), here with pieces of 2 or 3 s so that a short
/// render has seams: the same length as one stream, the first piece the same to the sample, and
/// seams that neither click nor dip.
@Suite struct SplitRenderTests {
    let dir = ScratchDirectory("split-render")

    /// Renders `input` as float WAV; `pieces` nil renders it as one stream.
    func render(_ input: String, rate: Double, quality: StretchQuality = .fast, pieces: Double?, from: Double? = nil, to: Double? = nil,
                cues: [InterchangeEntry] = [], name: String) throws -> [Float] {
        var job = RenderJob(input: input, output: dir.file("\(name).wav"))
        job.cues = cues
        job.settings = PlaybackSettings(rate: rate)
        job.settings.quality = quality
        job.sampleFormat = .float
        job.from = from
        job.to = to
        job.pieceSeconds = pieces ?? 1e6
        let result = try Renderer.render(job)
        let read = try Signals.read(job.output)
        #expect(read.info.frames == result.frames)
        return read.samples
    }

    /// RMS in dB of `frames` frames of channel 0 from `start`.
    func level(_ x: [Double], _ start: Int, _ frames: Int) -> Double {
        10 * log10(max(x[start..<(start + frames)].map { $0 * $0 }.reduce(0, +) / Double(frames), 1e-12))
    }

    /// A 1 kHz sine at 0.8× in pieces of 2 s (88,200 frames, 7 pieces), with either stretcher: one
    /// stream's length to the frame; the first piece one stream's to the sample; at each seam no
    /// step larger than the sine's own (ratio < 1.2) and, 2 ms by 2 ms, the sine's level within
    /// 0.5 dB. (Pieces crossfaded where they start, not moved to line up with the piece before, dip
    /// by up to 17 dB here with SoundTouch.)
    @Test(arguments: [StretchQuality.fast, .high])
    func aSineInPiecesIsOneStreamsLengthWithSeamsThatNeitherClickNorDip(quality: StretchQuality) throws {
        let path = dir.file("sine-\(quality).wav")
        try Signals.write(Signals.sine(1_000, seconds: 12, amplitude: 0.5), to: path, format: .float)
        let one = try render(path, rate: 0.8, quality: quality, pieces: nil, name: "sine-one-\(quality)")
        let split = try render(path, rate: 0.8, quality: quality, pieces: 2, name: "sine-split-\(quality)")
        #expect(one.count == 661_500 * 2 && split.count == one.count, "\(split.count / 2) frames, one stream \(one.count / 2)")
        #expect(split[0..<(88_200 * 2)] == one[0..<(88_200 * 2)], "the first piece is one stream's")
        #expect(split[(88_200 * 2)..<(176_400 * 2)] != one[(88_200 * 2)..<(176_400 * 2)], "the second piece is a stream of its own")
        let left = Signals.channel(split, 0, of: 2)
        let maxStep = 2 * Double.pi * 1_000 * 0.5 / 44_100
        let sineLevel = 20 * log10(0.5 / 2.0.squareRoot())
        for seam in stride(from: 88_200, to: 600_000, by: 88_200) {
            let worst = ((seam - 300)..<(seam + 900)).map { abs(left[$0 + 1] - left[$0]) / maxStep }.max()!
            #expect(worst < 1.2, "seam at \(seam): step ratio \(worst)")
            for start in stride(from: seam - 441, to: seam + 882, by: 88) {
                let db = level(left, start, 88)
                #expect(abs(db - sineLevel) < 0.5, "seam at \(seam): \(db) dB at frame \(start), the sine \(sineLevel) dB")
            }
        }
    }

    /// 30 s of a real song (frantic, from 0:20) at 0.8× in pieces of 3 s, with either stretcher
    /// (each with its own lead-in, SplitRender.leadInSeconds): one stream's length; at
    /// no seam a step more than 1.5 times one stream's largest there; and around the seams
    /// (±100 ms, 10 ms by 10 ms) the loudness no further from one stream's than the pieces are
    /// elsewhere (two renditions differ by about 1.3 dB a block; 0.5 dB more is allowed).
    @Test(arguments: [StretchQuality.fast, .high])
    func aRealSongInPiecesSoundsLikeOneStream(quality: StretchQuality) throws {
        let song = "/usr/share/games/wesnoth/1.16/data/core/music/frantic.ogg"
        let one = try render(song, rate: 0.8, quality: quality, pieces: nil, from: 20, to: 50, name: "song-one-\(quality)")
        let split = try render(song, rate: 0.8, quality: quality, pieces: 3, from: 20, to: 50, name: "song-split-\(quality)")
        #expect(one.count == 1_653_750 * 2 && split.count == one.count, "\(split.count / 2) frames, one stream \(one.count / 2)")
        let a = Signals.channel(split, 0, of: 2), b = Signals.channel(one, 0, of: 2)
        func apart(_ block: Int) -> Double { abs(level(a, block, 441) - level(b, block, 441)) }
        let seams = Array(stride(from: 132_300, to: 1_500_000, by: 132_300))
        var near: [Double] = [], elsewhere: [Double] = []
        for block in stride(from: 132_300, to: 1_653_750 - 441, by: 441) {   // after the first piece, which is one stream's
            if seams.contains(where: { abs($0 - block) < 4_410 }) { near.append(apart(block)) } else { elsewhere.append(apart(block)) }
        }
        let nearSeams = near.reduce(0, +) / Double(near.count), apartElsewhere = elsewhere.reduce(0, +) / Double(elsewhere.count)
        #expect(nearSeams < apartElsewhere + 0.5, "\(nearSeams) dB from one stream around the seams, \(apartElsewhere) dB elsewhere")
        for seam in seams {
            func largestStep(_ x: [Double]) -> Double { ((seam - 220)..<(seam + 660)).map { abs(x[$0 + 1] - x[$0]) }.max()! }
            #expect(largestStep(a) <= 1.5 * largestStep(b), "seam at \(seam): a step of \(largestStep(a)), one stream's largest \(largestStep(b))")
        }
    }

    /// A WAV's cue points (the sidecar's markers and loops) fall where one stream puts them, to
    /// the frame, when the render is made in pieces.
    @Test func cuePointsFallWhereOneStreamPutsThem() throws {
        let path = dir.file("cues.wav")
        try Signals.write(Signals.sine(440, seconds: 12), to: path)
        let cues = [InterchangeEntry(name: "Verse", start: 1.25), InterchangeEntry(name: "Chorus", start: 6.5, end: 9.75),
                    InterchangeEntry(name: "Outro", start: 11)]
        _ = try render(path, rate: 0.8, pieces: nil, cues: cues, name: "cues-one")
        _ = try render(path, rate: 0.8, pieces: 2, cues: cues, name: "cues-split")
        func read(_ name: String) throws -> [InterchangeEntry] {
            try Interchange.read(Data(contentsOf: URL(fileURLWithPath: dir.file("\(name).wav"))), format: .wav).entries
        }
        let one = try read("cues-one"), split = try read("cues-split")
        #expect(one.count == 3 && split == one, "in pieces \(split), one stream \(one)")
        // At 0.8x the verse is 1.25 s / 0.8 into the output (give or take the stretcher's own delay).
        #expect(abs((one.first?.start ?? 0) - 1.5625) < 0.02, "\(one)")
    }

    /// A file whose header says it is longer than its audio (a FLAC's STREAMINFO doubled): the
    /// pieces past its real end cannot be made, so one stream renders it instead, to where the
    /// audio ends, and says so, as it does without pieces.
    @Test func aFileShorterThanItsHeaderIsRenderedByOneStream() throws {
        let path = dir.file("short.flac")
        try Signals.write(Signals.sine(440, seconds: 12), to: path, container: .flac)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // STREAMINFO's 36-bit sample count: the low 4 bits of byte 21, then bytes 22...25.
        var samples = UInt64(bytes[21] & 0x0F)
        for i in 22...25 { samples = samples << 8 | UInt64(bytes[i]) }
        try #require(samples == 529_200)
        samples *= 2
        bytes[21] = bytes[21] & 0xF0 | UInt8(samples >> 32)
        for (k, i) in (22...25).enumerated() { bytes[i] = UInt8(truncatingIfNeeded: samples >> (24 - 8 * UInt64(k))) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        func job(_ name: String, pieces: Double?) -> RenderJob {
            var job = RenderJob(input: path, output: dir.file("\(name).wav"))
            job.settings = PlaybackSettings(rate: 0.8)
            job.sampleFormat = .float
            job.pieceSeconds = pieces ?? 1e6
            return job
        }
        // Its header is believed: the render is planned in pieces, as far as the header says.
        let plan = try SplitRender(path: path, audioStream: nil, file: SoundFile(path: path), start: 0, end: 2 * 529_200,
                                   settings: PlaybackSettings(rate: 0.8), outputRate: 44_100, pieceSeconds: 2)
        #expect(plan?.total == 1_323_000)
        let one = try Renderer.render(job("short-one", pieces: nil))
        let split = try Renderer.render(job("short-split", pieces: 2))
        #expect(one.earlyEnd != nil && split.earlyEnd == one.earlyEnd, "\(split.earlyEnd ?? "no early end"); one stream: \(one.earlyEnd ?? "none")")
        #expect(split.frames == one.frames && abs(Double(one.frames) - 12 / 0.8 * 44_100) < 4_410, "\(split.frames) frames, one stream \(one.frames)")
        #expect(try Signals.read(dir.file("short-split.wav")).samples == Signals.read(dir.file("short-one.wav")).samples)
    }

    /// Where one stream must do it: a pitch shift, rate 1, a range too short for two pieces, an
    /// MP3 (its seeks are not exact), a rate that is no fraction of at most 100.
    @Test func onlyWhereThePiecesLineUpExactly() throws {
        let wav = dir.file("plan.wav")
        try Signals.write(Signals.sine(440, seconds: 60), to: wav)
        let mp3 = dir.file("plan.mp3")
        var job = RenderJob(input: wav, output: mp3)
        job.force = true
        _ = try Renderer.render(job)
        func plan(_ path: String, rate: Double = 0.8, pitch: Double = 0, seconds: Double = 60) throws -> SplitRender? {
            let file = try SoundFile(path: path)
            return SplitRender(path: path, audioStream: nil, file: file, start: 0, end: Int(seconds * 44_100),
                               settings: PlaybackSettings(rate: rate, pitch: pitch), outputRate: 44_100)
        }
        let plain = try #require(try plan(wav))
        #expect(plain.starts == [0, 441_000, 882_000, 1_323_000, 1_764_000, 2_205_000, 2_646_000] && plain.total == 3_307_500)
        #expect(try plan(wav, rate: 0.85)?.starts.count == 7)
        #expect(try plan(wav, pitch: -2) == nil)
        #expect(try plan(wav, rate: 1) == nil)
        #expect(try plan(wav, seconds: 15) == nil)
        #expect(try plan(mp3) == nil)
        #expect(try plan(wav, rate: 0.8123) == nil)
        #expect(SplitRender.denominator(of: 0.8) == 5 && SplitRender.denominator(of: 0.85) == 20 && SplitRender.denominator(of: 1.1) == 10)
    }
}
