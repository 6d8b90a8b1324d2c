// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl

/// Renders `input` with `loop` (after a lead-in from `from`) as float WAV; returns its samples.
func renderLoop(_ input: String, loop: LoopRange, from: Double? = nil, rate: Double = 1, in dir: ScratchDirectory) throws -> [Float] {
    var job = RenderJob(input: input, output: dir.file("\(UUID().uuidString).wav"))
    job.settings = PlaybackSettings(rate: rate)
    job.sampleFormat = .float
    job.loop = loop
    job.from = from
    _ = try Renderer.render(job)
    return try Signals.read(job.output).samples
}

/// A–B loops, rendered and played: pass lengths, exact samples away from the seams, and seams
/// without a step in the waveform.
@Suite struct LoopTests {
    let dir = ScratchDirectory("loops")

    func render(_ input: String, loop: LoopRange, from: Double? = nil, rate: Double = 1) throws -> [Float] {
        try renderLoop(input, loop: loop, from: from, rate: rate, in: dir)
    }

    /// At 1.0× each pass is exactly B − A frames: the first is the source's A..B, and every later
    /// one is a 441-frame crossfade followed by the source from A + 441 to B, sample for sample.
    @Test func passesAreExactAndTheSeamIsTenMilliseconds() throws {
        let path = dir.file("counter.wav")
        let source = Signals.counter(frames: 441_000)
        try Signals.write(source, to: path, format: .float)
        let a = 44_100, b = 110_250   // 1 s to 2.5 s
        let out = try render(path, loop: LoopRange(start: 1, end: 2.5, passes: 3))
        let length = b - a, seam = 441
        #expect(out.count == 3 * length * 2)
        #expect(Array(out[0..<(length * 2)]) == Array(source[(a * 2)..<(b * 2)]))
        for pass in 1..<3 {
            let start = pass * length
            let afterSeam = Array(out[((start + seam) * 2)..<((start + length) * 2)])
            #expect(afterSeam == Array(source[((a + seam) * 2)..<(b * 2)]), "pass \(pass + 1)")
            // The seam's first frame is mostly the audio after B, its last mostly A + 440.
            #expect(abs(out[start * 2] - source[b * 2]) < 0.01)
            #expect(abs(out[(start + seam - 1) * 2] - source[(a + seam - 1) * 2]) < 0.01)
        }
    }

    /// A 1 kHz sine looped between two points of unrelated phase: the crossfade leaves no step.
    /// Step ratio = largest |x[n+1] − x[n]| near a seam ÷ the sine's largest step (2π·f·A ÷ rate);
    /// a hard splice of these phases measures about 10.
    @Test func seamsHaveNoStep() throws {
        let path = dir.file("sine.wav")
        try Signals.write(Signals.sine(1_000, seconds: 5, amplitude: 0.5), to: path, format: .float)
        let out = Signals.channel(try render(path, loop: LoopRange(start: 1.00011, end: 1.75037, passes: 4)), 0, of: 2)
        let length = 77_191 - 44_105, maxStep = 2 * Double.pi * 1_000 * 0.5 / 44_100   // frames of 1.75037 s and 1.00011 s
        var worst = 0.0
        for pass in 1..<4 {
            let seam = pass * length
            for n in (seam - 100)..<(seam + 541) { worst = max(worst, abs(out[n + 1] - out[n]) / maxStep) }
        }
        #expect(worst < 1.2, "step ratio \(worst)")
        #expect(out.count == 4 * length)
    }

    /// At 0.8× the loop's passes last (B − A) ÷ 0.8 each: the whole render is within 0.2 %, and
    /// a lead-in from --from comes first.
    @Test(arguments: [0.8, 1.25])
    func stretchedPassesLastTheirLengthOverTheRate(rate: Double) throws {
        let path = dir.file("tone-\(rate).wav")
        try Signals.write(Signals.sine(440, seconds: 8), to: path)
        let out = try render(path, loop: LoopRange(start: 2, end: 4, passes: 5), from: 1, rate: rate)
        let expected = (1 + 5 * 2) / rate * 44_100
        #expect(abs(Double(out.count / 2) / expected - 1) < 0.002, "\(out.count / 2) frames, expected \(expected)")
        let f = Analysis.dominantFrequency(Signals.channel(out, 0, of: 2), sampleRate: 44_100)
        #expect(abs(f / 440 - 1) < 0.005)
    }

    @Test(arguments: [
        (LoopRange(start: 3, end: 3.04), "a loop must be at least 50 ms long (0:03.000–0:03.040)"),
        (LoopRange(start: 3, end: 12), "the loop 0:03.000–0:12.000 is not inside LOOPS/short.wav (0:08.000)"),
        (LoopRange(start: 3, end: 4, passes: 0), "a loop plays at least once (got 0 times)"),
    ])
    func badLoopsAreRefused(loop: LoopRange, message: String) throws {
        let path = dir.file("short.wav")
        if !FileManager.default.fileExists(atPath: path) { try Signals.write(Signals.sine(440, seconds: 8), to: path) }
        #expect(throws: PracticeError(.usage, message.replacingOccurrences(of: "LOOPS", with: dir.path))) {
            _ = try render(path, loop: loop)
        }
    }

    /// On ALSA's null device the player runs the loop its number of times, counts the passes
    /// observers see, and ends at the loop's end.
    @Test func thePlayerCountsPassesAndStopsAfterTheLast() async throws {
        let path = dir.file("player.wav")
        try Signals.write(Signals.sine(440, seconds: 6), to: path)
        var o = PlayerOptions()
        o.device = "null"
        o.loop = LoopRange(start: 1, end: 1.5, passes: 3, name: "drill")
        let player = try Player(path: path, options: o)
        var passes = Set<Int>()
        for await e in player.events() {
            if let l = e.state.loop { passes.insert(l.pass) }
            if e.state.isFinished { break }
        }
        let end = player.state
        player.stop()
        #expect(end.position == 1.5)
        #expect(end.loop == LoopState(start: 1, end: 1.5, name: "drill", pass: 3, passes: 3))
        #expect(passes.isSubset(of: [1, 2, 3]) && passes.contains(3))
    }
}

/// Rehearsals: count-ins, gaps and a speed trainer around the loop's passes, rendered.
@Suite struct RehearsalTests {
    let dir = ScratchDirectory("rehearsal")

    func render(_ input: String, loop: LoopRange) throws -> [Float] { try renderLoop(input, loop: loop, in: dir) }

    /// Two clicks at 120 BPM (0.5 s apart), then the pass; before each repeat 0.25 s of silence and
    /// the clicks again. Every part is exactly as long as it should be, the passes hold the
    /// source's samples (but their 5 ms fades), and the gaps are silent.
    @Test func countInsAndGapsHaveExactLengthsAndPlaces() throws {
        let path = dir.file("counter.wav")
        let source = Signals.counter(frames: 441_000)
        try Signals.write(source, to: path, format: .float)
        let r = Rehearsal(gap: 0.25, countIn: 2, countInEvery: true, bpm: 120)
        let out = try render(path, loop: LoopRange(start: 1, end: 2.5, passes: 3, rehearsal: r))
        let countIn = 44_100, pass = 66_150, gap = 11_025, fade = 220
        #expect(out.count / 2 == countIn + pass + 2 * (gap + countIn + pass))
        func frames(_ a: Int, _ b: Int) -> [Float] { Array(out[(a * 2)..<(b * 2)]) }
        var at = 0
        for k in 0..<3 {
            if k > 0 {
                #expect(frames(at, at + gap).allSatisfy { $0 == 0 }, "gap before pass \(k + 1)")
                at += gap
            }
            #expect(frames(at, at + 88).map(abs).max()! > 0.3, "accented click at the start of count-in \(k + 1)")
            #expect(frames(at + 22_050, at + 22_050 + 88).map(abs).max()! > 0.3, "second click")
            #expect(frames(at + 2_000, at + 22_050).allSatisfy { $0 == 0 }, "silence between clicks")
            at += countIn
            #expect(frames(at + fade, at + pass - fade) == Array(source[((44_100 + fade) * 2)..<((110_250 - fade) * 2)]), "pass \(k + 1)")
            at += pass
        }
    }

    /// 0.5:1.0:0.25/2 plays two passes at 0.5×, then two at 0.75×: the render lasts what those
    /// rates give, and the tone keeps its pitch.
    @Test func theTrainerSpeedsUpEveryTwoPasses() throws {
        let path = dir.file("tone.wav")
        try Signals.write(Signals.sine(440, seconds: 8), to: path)
        let trainer = try #require(Trainer("0.5:1.0:0.25/2"))
        #expect((0..<6).map { trainer.rate(forPass: $0) } == [0.5, 0.5, 0.75, 0.75, 1.0, 1.0])
        let out = try render(path, loop: LoopRange(start: 2, end: 4, passes: 4, rehearsal: Rehearsal(trainer: trainer)))
        let expected = (2 / 0.5 * 2 + 2 / 0.75 * 2) * 44_100
        #expect(abs(Double(out.count / 2) / expected - 1) < 0.003, "\(out.count / 2) frames, expected \(expected)")
        let f = Analysis.dominantFrequency(Signals.channel(out, 0, of: 2), sampleRate: 44_100)
        #expect(abs(f / 440 - 1) < 0.005)
    }

    @Test(arguments: [("0.6:1.0:0.05", Trainer(from: 0.6, to: 1, step: 0.05)), ("1.2:0.8:0.1/3", Trainer(from: 1.2, to: 0.8, step: 0.1, every: 3))])
    func trainersRead(text: String, trainer: Trainer) {
        #expect(Trainer(text) == trainer)
    }

    @Test func aDescendingTrainerStopsAtItsEnd() {
        #expect((0..<7).map { Trainer(from: 1.2, to: 0.8, step: 0.1, every: 2).rate(forPass: $0) } == [1.2, 1.2, 1.1, 1.1, 1.0, 1.0, 0.9])
        #expect(Trainer("0.6:1.0") == nil && Trainer("a:b:c") == nil && Trainer("0.6:1:0.1/0") == nil)
    }
}
