// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// Loops as played: `practice play` through ALSA's `file` plugin, and the capture measured. Seams
/// leave no gap and no step at 1.0× and 0.8×, and a rehearsal around the loop lasts exactly its sum.
@Suite struct LoopCaptureTests {
    let dir = ScratchDirectory("loop-capture")
    /// The source: 4 s of 1 kHz at amplitude 0.5, float WAV, so the capture can equal it exactly.
    static let amplitude = 0.5
    /// The sine's largest step from one frame to the next: 2π·f·A ÷ rate.
    static let maxStep = 2 * Double.pi * 1_000 * amplitude / 44_100
    static let a = 44_105                     // "1.000113" s: 1,000.113 cycles in
    static let seam = 441                     // the pipeline's crossfade, 10 ms

    init() throws {
        try Signals.write(Signals.sine(1_000, seconds: 4, amplitude: Self.amplitude), to: dir.file("sine.wav"), format: .float)
    }

    /// Plays `sine.wav` with `settings` into the capture PCM; returns the run and what ALSA received.
    func play(_ settings: [String]) throws -> (run: ProcessResult, samples: [Float]) {
        let raw = dir.file("cap-\(UUID().uuidString).raw")
        let env = ALSACapture.environment(in: dir, rawPath: raw)
        let run = try practice(["play", "sine.wav", "--device", "capture"] + settings, in: dir, environment: env)
        return (run, (try? Signals.readRawFloat(raw)) ?? [])
    }

    /// The largest |x[n+1] − x[n]| in `range`, over the sine's own largest step.
    static func worstStep(_ x: [Double], _ range: Range<Int>) -> (ratio: Double, at: Int) {
        var worst = (0.0, range.lowerBound)
        for n in range.lowerBound..<(range.upperBound - 1) where abs(x[n + 1] - x[n]) / maxStep > worst.0 {
            worst = (abs(x[n + 1] - x[n]) / maxStep, n)
        }
        return worst
    }

    /// `--loop A B --times 5` played at 1.0× and 0.8×, with B at two phases of the sine against A
    /// (0.113 cycle): 0.317 (73° apart) and 0.590 (172° apart, nearly opposite). The capture is
    /// exactly 5·(B − A) ÷ rate frames. To the stream's last frame, no step is
    /// larger than 1.2 times the sine's own (1.11 and 1.00 measured; a hard splice measures 2.2 at
    /// the 73° seam and 7.5 at the 172° one, at either rate), and there is no gap: no run of 1 ms
    /// below −34 dB (runs of 1 and of 3–4 frames measured).
    /// The seam is an equal-power crossfade, so two sines Δ apart mix to √(1 + sin 2w · cos Δ) of the
    /// amplitude: at 73° a swell to 1.14, at 172° a notch to 0.11 (−19 dB) for a few ms, which is
    /// what such a crossfade does to phase-opposed material; asserted: the notch stays above 0.1.
    /// At 1.0× the seams are also exactly in place: after each, the source from A + 441 to B.
    ///
    /// At 0.8× the stretched audio runs 10–12 ms ahead of the straight line, so the stream's last
    /// frames come from just after B: the pipeline feeds the stretcher the audio after the range to
    /// bring them out (SoundTouch's flush made them silence).
    @Test(arguments: [("1.750317", 77_189, 1.0), ("1.750317", 77_189, 0.8), ("1.75059", 77_201, 1.0), ("1.75059", 77_201, 0.8)])
    func playedSeamsHaveNoGapAndNoStep(end: String, b: Int, rate: Double) throws {
        let length = b - Self.a                                // 33,084 or 33,096 frames, multiples of 4
        let (run, samples) = try play(["--loop", "1.000113", end, "--times", "5", "--rate", "\(rate)"])
        #expect(run.status == 0 && run.stderr == "" && run.stdout == "", "exit \(run.status): \(run.stderr)")
        let x = Signals.channel(samples, 0, of: 2)
        let expected = Int(Double(5 * length) / rate)
        #expect(x.count == expected, "captured \(x.count) frames, expected 5 × \(length) ÷ \(rate) = \(expected)")
        guard x.count == expected else { return }

        let checked = 0..<x.count
        let step = Self.worstStep(x, checked), quiet = Analysis.longestQuietRun(x, checked)
        #expect(step.ratio < 1.2, "step ratio \(step.ratio) at frame \(step.at)")
        #expect(quiet.frames < 44, "\(quiet.frames) quiet frames from \(quiet.at)")
        var envelope = Double.infinity                          // the peak of each 1 ms (44 frames), least of all
        for s in stride(from: checked.lowerBound, to: checked.upperBound - 44, by: 11) {
            envelope = min(envelope, x[s..<(s + 44)].map(abs).max()!)
        }
        #expect(envelope > 0.1 * Self.amplitude, "the envelope falls to \(envelope / Self.amplitude) of the tone")

        if rate == 1 {
            let source = Signals.channel(try Signals.read(dir.file("sine.wav")).samples, 0, of: 2)
            let misplaced = (1..<5).filter { k in
                Array(x[(k * length + Self.seam)..<((k + 1) * length)]) != Array(source[(Self.a + Self.seam)..<b])
            }
            #expect(misplaced.isEmpty, "passes not holding the source from A + 441 to B after their seam: \(misplaced.map { $0 + 1 })")
        }
        let lastSound = x.lastIndex { abs($0) >= 0.01 } ?? 0
        #expect(x.count - 1 - lastSound < 44, "the last \(x.count - 1 - lastSound) frames are silent")
    }

    /// `--gap 0.25 --count-in 2 --bpm 120 --count-in-every` around 5 passes, played: 5 × (count-in +
    /// pass) + 4 gaps, to the frame. At 1.0× the count-in is 2 × 22,050 frames (120 BPM) and a pass
    /// 33,084; at 0.8× the clicks follow the heard tempo, 96 BPM, 27,562.5 frames apart, rounded to
    /// 27,563, and a pass lasts 33,084 ÷ 0.8 = 41,355. Each gap is 11,025 frames of digital silence,
    /// each click starts where it should, the passes have no gap and no step, and the capture is
    /// what `render` writes, sample for sample.
    @Test(arguments: [(1.0, 22_050, 33_084), (0.8, 27_563, 41_355)])
    func aRehearsalPlaysForExactlyItsLength(rate: Double, clickSpacing: Int, pass: Int) throws {
        let settings = ["--loop", "1.000113", "1.750317", "--times", "5", "--gap", "0.25", "--count-in", "2", "--bpm", "120",
                        "--count-in-every", "--rate", "\(rate)"]
        let (run, samples) = try play(settings)
        #expect(run.status == 0 && run.stderr == "" && run.stdout == "", "exit \(run.status): \(run.stderr)")
        let x = Signals.channel(samples, 0, of: 2)
        let gap = 11_025, countIn = 2 * clickSpacing
        let expected = 5 * (countIn + pass) + 4 * gap
        #expect(x.count == expected, "captured \(x.count) frames, expected \(expected)")
        guard x.count == expected else { return }

        var at = 0
        for k in 1...5 {
            if k > 1 {
                #expect(x[at..<(at + gap)].allSatisfy { $0 == 0 }, "gap before pass \(k)")
                at += gap
            }
            // A click is a decaying sine from phase 0: its first frame is 0, its second 0.1 or more.
            for c in 0..<2 {
                let onset = x[(at + c * clickSpacing)...].firstIndex { abs($0) > 0.01 }
                #expect(onset == at + c * clickSpacing + 1, "click \(c + 1) before pass \(k)")
            }
            at += countIn
            // Between the 5 ms fades.
            let body = (at + 220)..<(at + pass - 220)
            let step = Self.worstStep(x, body), quiet = Analysis.longestQuietRun(x, body)
            #expect(step.ratio < 1.2, "pass \(k): step ratio \(step.ratio) at \(step.at)")
            #expect(quiet.frames < 44, "pass \(k): \(quiet.frames) quiet frames from \(quiet.at)")
            at += pass
        }

        let out = "ren-\(UUID().uuidString).wav"
        // With play's stretcher (a render's own default is Rubber Band).
        let r = try practice(["render", "sine.wav", "-o", out, "--sample-format", "float", "-q", "--quality", "fast"] + settings, in: dir)
        #expect(r.status == 0 && r.stderr == "")
        let rendered = try Signals.read(dir.file(out)).samples
        #expect(rendered.count == samples.count, "rendered \(rendered.count / 2) frames, played \(samples.count / 2)")
        #expect(rendered == samples)
    }
}
