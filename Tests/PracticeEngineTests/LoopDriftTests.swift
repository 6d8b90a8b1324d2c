// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl

/// Long loops do not drift: after 100 passes the loop still turns at B in the song's time, at 1.0×
/// (frame for frame) and stretched, and a speed trainer gives each pass exactly its own rate.
@Suite struct LoopDriftTests {
    let dir = ScratchDirectory("drift")
    static let sampleRate = 44_100

    /// A marker to find again: 1 ms (44 frames) of 3 kHz under a Hann window, peak 0.8.
    static let marker: [Double] = (0..<44).map { i in
        let w = 0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / 44)
        return 0.8 * w * sin(2 * Double.pi * 3_000 * Double(i) / Double(sampleRate))
    }
    static let markerEnergy = marker.reduce(0) { $0 + $1 * $1 }

    /// Silence (or a tone on the right channel) with `marker` on the left at each of `frames`.
    static func markedSource(seconds: Double, markersAt frames: [Int], rightTone: Double? = nil) -> [Float] {
        var out = rightTone.map { Signals.sine($0, seconds: seconds, amplitude: 0.3) }
            ?? [Float](repeating: 0, count: Int(seconds * Double(sampleRate)) * 2)
        if rightTone != nil { for i in stride(from: 0, to: out.count, by: 2) { out[i] = 0 } }
        for f in frames { for (i, v) in marker.enumerated() { out[(f + i) * 2] = Float(v) } }
        return out
    }

    /// Where `marker` best matches `x` within `reach` frames of `around`, and how much of the
    /// marker's energy the match holds (1 for an intact copy).
    static func locate(_ x: [Double], around: Int, reach: Int) -> (frame: Int, match: Double) {
        let lag = Analysis.bestLag(of: marker, in: x, range: (around - reach)...(around + reach))
        var s = 0.0
        for i in 0..<marker.count { s += marker[i] * x[lag + i] }
        return (lag, s / markerEnergy)
    }

    /// `Signals.counter` read back: the source frame that left-channel sample `v` came from,
    /// taken in `lowest..<lowest + 65_536` (the counter repeats every 65,536 frames; 7 × 28,087 ≡ 1 mod 65,536).
    static func counterFrame(_ v: Float, lowest: Int) -> Int {
        let residue = ((Int((v * 32_768).rounded()) + 32_768) * 28_087) % 65_536
        return lowest + ((residue - lowest) % 65_536 + 65_536) % 65_536
    }

    /// 100 passes at 1.0× (stretcher bypassed) drift by 0 frames: every pass starts exactly
    /// k·(B − A) frames in, its 441-frame seam is the equal-power mix of the audio after B and
    /// the audio from A, and after the seam it holds the source's exact samples up to B.
    /// The loop (61,740 frames) is shorter than the counter's period, so each frame names its place.
    @Test func aHundredPassesAtOneDriftByNoFrame() throws {
        let path = dir.file("counter.wav")
        let source = Signals.counter(frames: 3 * Self.sampleRate)
        try Signals.write(source, to: path, format: .float)
        let a = 44_100, b = 105_840, length = b - a, seam = 441   // 1 s to 2.4 s; seam 10 ms
        let out = try renderLoop(path, loop: LoopRange(start: 1, end: 2.4, passes: 100), in: dir)
        #expect(out.count == 100 * length * 2, "\(out.count / 2) frames, expected \(100 * length)")
        guard out.count == 100 * length * 2 else { return }
        #expect(Array(out[0..<(length * 2)]) == Array(source[(a * 2)..<(b * 2)]), "pass 1 is the source's A..B")

        var drifts: [Int] = [], inexact: [Int] = [], worstSeamError: Float = 0
        for k in 2...100 {
            let start = (k - 1) * length
            // The frame after the seam and the last frame of the pass, read back as source frames.
            let first = Self.counterFrame(out[(start + seam) * 2], lowest: a)
            let last = Self.counterFrame(out[(start + length - 1) * 2], lowest: a)
            drifts.append(max(abs(first - (a + seam)), abs(last - (b - 1))))
            if Array(out[((start + seam) * 2)..<((start + length) * 2)]) != Array(source[((a + seam) * 2)..<(b * 2)]) { inexact.append(k) }
            for i in 0..<seam {
                let w = (Double(i) + 0.5) / Double(seam) * Double.pi / 2
                for c in 0..<2 {
                    let mix = source[(a + i) * 2 + c] * Float(sin(w)) + source[(b + i) * 2 + c] * Float(cos(w))
                    worstSeamError = max(worstSeamError, abs(out[(start + i) * 2 + c] - mix))
                }
            }
        }
        #expect(drifts.allSatisfy { $0 == 0 }, "drift in frames per pass: \(drifts)")
        #expect(Self.counterFrame(out[(99 * length + seam) * 2], lowest: a) == a + seam, "pass 100 after its seam")
        #expect(inexact.isEmpty, "passes whose samples after the seam differ from the source: \(inexact)")
        #expect(worstSeamError < 1e-6, "seam frames off the equal-power crossfade by \(worstSeamError)")
    }

    /// At 0.8× the loop runs through one SoundTouch stream. Each output sequence of the music
    /// profile is 1,325 frames (a 2,205-frame window, 50 ms, less its 880-frame overlap: 20 ms,
    /// 882, cut to a multiple of 8) made from 1,060 source frames. A loop of 36,040 frames is
    /// 34 such sequences, so every pass meets the stretcher's grid at the same place: on a
    /// marked silence each pass comes out the same, sample for sample, and the markers sit at the
    /// same offset from k·(B − A)/0.8 in all 100 passes. Any frame gained or lost per pass breaks this.
    @Test func aHundredStretchedPassesOnTheStretchersGridAreIdentical() throws {
        let a = 44_100, length = 36_040, perPass = 45_050   // 36,040 ÷ 0.8
        let offsets = [4_410, 26_460]                       // A + 0.1 s and A + 0.6 s
        let path = dir.file("grid.wav")
        try Signals.write(Self.markedSource(seconds: 4, markersAt: offsets.map { a + $0 }), to: path, format: .float)
        let samples = try renderLoop(path, loop: LoopRange(start: 1, end: Double(a + length) / 44_100, passes: 100), rate: 0.8, in: dir)
        let out = Signals.channel(samples, 0, of: 2)
        #expect(out.count == 100 * perPass, "\(out.count) frames, expected \(100 * perPass)")
        guard out.count == 100 * perPass else { return }
        for d in offsets {
            let found = (1...100).map { k in
                let expected = (Double((k - 1) * length + d) / 0.8).rounded()
                let f = Self.locate(out, around: Int(expected), reach: 2_000)
                return (error: f.frame - Int(expected), match: f.match)
            }
            let errors = found.map(\.error)
            #expect(Set(errors).count == 1, "marker at A + \(d) frames: offsets from k·(B − A)/0.8 \(errors)")
            // The marker is really there (not silence matching nowhere), near the stretcher's lead.
            #expect(found.allSatisfy { $0.match > 0.9 }, "weakest match \(found.map(\.match).min()!)")
            #expect(errors.allSatisfy { abs($0 + 523) <= 265 }, "offsets \(Set(errors)) are not the stretcher's lead")
        }
        let differing = (2..<100).filter { k in
            !(0..<perPass).allSatisfy { out[k * perPass + $0] == out[perPass + $0] }
        }
        #expect(differing.isEmpty, "passes that are not pass 2 sample for sample: \(differing)")
    }

    /// At 0.8× on a loop that does not fit the stretcher's grid (1 s to 1.8 s, markers at A + 0.1 s
    /// and A + 0.6 s): the render is exactly 100·(B − A)/0.8 = 4,410,000 frames, not one more
    /// or less. Each marker lands early of k·(B − A)/0.8 by the stretcher's lead (523 frames,
    /// 12 ms, on average), and by how much depends on where the grid meets that pass: inside a
    /// 1,325-frame output sequence the source plays at its own speed, so the offset moves by up to
    /// 1,325 × (1 − 0.8) = 265 frames (6 ms) from pass to pass; on silence the splice search has
    /// little else to choose. Measured: 260 frames for both markers, so pass 100 and pass 2 may
    /// differ by up to 6 ms without any drift (they differ by 70 frames, 1.6 ms). The drift is the
    /// trend: the least-squares slope over the 100 passes adds up to +4.6 and −5.4 frames (under
    /// 44, 1 ms, asserted); one frame gained or lost per pass would add 124.
    @Test func aHundredStretchedPassesKeepTheLoopAtB() throws {
        let a = 44_100, b = 79_380, length = b - a            // 1 s to 1.8 s
        let offsets = [4_410, 26_460]
        let path = dir.file("markers.wav")
        try Signals.write(Self.markedSource(seconds: 4, markersAt: offsets.map { a + $0 }), to: path, format: .float)
        let out = Signals.channel(try renderLoop(path, loop: LoopRange(start: 1, end: 1.8, passes: 100), rate: 0.8, in: dir), 0, of: 2)
        #expect(out.count == 4_410_000, "\(out.count) frames, expected 100 × 35,280 ÷ 0.8 = 4,410,000")
        for d in offsets {
            var errors: [Double] = [], worstMatch = 1.0
            for k in 1...100 {
                let expected = Double((k - 1) * length + d) / 0.8
                let found = Self.locate(out, around: Int(expected), reach: 2_000)
                errors.append(Double(found.frame) - expected)
                worstMatch = min(worstMatch, found.match)
            }
            let n = Double(errors.count), ks = (1...100).map(Double.init)
            let mk = ks.reduce(0, +) / n, me = errors.reduce(0, +) / n
            let slope = zip(ks, errors).reduce(0) { $0 + ($1.0 - mk) * ($1.1 - me) } / ks.reduce(0) { $0 + ($1 - mk) * ($1 - mk) }
            let span = errors.max()! - errors.min()!
            #expect(worstMatch > 0.95, "every marker comes through whole (worst holds \(worstMatch) of its energy)")
            #expect(abs(slope * 99) < 44, "marker at A + \(d): trend over 99 passes \(slope * 99) frames")
            #expect(span <= 265, "marker at A + \(d): offsets spread over \(span) frames (pass 2 \(errors[1]), pass 100 \(errors[99]))")
        }
    }

    /// A trainer 0.6:1.0:0.1/2 over 10 passes: rates 0.6, 0.6, 0.7, 0.7 … 1.0, 1.0. Each pass is
    /// a stream of its own whose first 445 frames are the source's (SoundTouch copies its first
    /// sequence straight: a 2,205-frame window less twice its 880-frame overlap), so a marker just
    /// after the 5 ms fade-in marks where each pass begins, and marker to marker is exactly
    /// (B − A) ÷ rate: 73,500, 73,500, 63,000, 63,000, 55,125 … 44,100 frames.
    /// Inside each pass, markers at A + 0.3 s and A + 0.8 s come 0.5 s ÷ rate apart within 2 %
    /// (the splice search moves each by a few ms: measured −1.3 % at 0.6×, −1.4 % at 0.7×, +0.4 %
    /// at 0.8×, −0.2 % at 0.9×; the next rate is 10 % or more away), and a tone on the right
    /// channel keeps its pitch (within 0.38 cent measured, 1 cent asserted).
    @Test func theTrainersPassesLastTheirRatesExactly() throws {
        let a = 44_100, length = 44_100                      // 1 s to 2 s
        let early = 260, mid = 13_230, late = 35_280          // after the 220-frame fade; A + 0.3 s, A + 0.8 s
        let path = dir.file("trainer.wav")
        try Signals.write(Self.markedSource(seconds: 4, markersAt: [a + early, a + mid, a + late], rightTone: 440), to: path, format: .float)
        let trainer = try #require(Trainer("0.6:1.0:0.1/2"))
        let rates = (0..<10).map { trainer.rate(forPass: $0) }
        #expect(rates == [0.6, 0.6, 0.7, 0.7, 0.8, 0.8, 0.9, 0.9, 1.0, 1.0])
        let samples = try renderLoop(path, loop: LoopRange(start: 1, end: 2, passes: 10, rehearsal: Rehearsal(trainer: trainer)), in: dir)
        let left = Signals.channel(samples, 0, of: 2), right = Signals.channel(samples, 1, of: 2)
        let lengths = rates.map { Int((Double(length) / $0).rounded()) }
        #expect(left.count == lengths.reduce(0, +), "\(left.count) frames, expected \(lengths.reduce(0, +))")
        guard left.count == lengths.reduce(0, +) else { return }
        var starts: [Int] = []
        var passStart = 0
        for (k, r) in rates.enumerated() {
            starts.append(Self.locate(left, around: passStart + early, reach: 2_000).frame)
            let m1 = Self.locate(left, around: passStart + Int(Double(mid) / r), reach: 2_000).frame
            let m2 = Self.locate(left, around: passStart + Int(Double(late) / r), reach: 2_000).frame
            let expected = Double(late - mid) / r
            #expect(abs(Double(m2 - m1) / expected - 1) < 0.02, "pass \(k + 1) at \(r)×: markers \(m2 - m1) frames apart, expected \(expected)")
            let body = Array(right[(passStart + 2_205)..<(passStart + lengths[k] - 2_205)])   // 50 ms in from each end
            let cents = 1_200 * log2(Analysis.dominantFrequency(body, sampleRate: 44_100) / 440)
            #expect(abs(cents) < 1, "pass \(k + 1) at \(r)×: the tone is off by \(cents) cents")
            passStart += lengths[k]
        }
        #expect(starts[0] == early)
        let measured = zip(starts.dropFirst(), starts).map { $0 - $1 }
        #expect(measured == Array(lengths.dropLast()), "marker to marker \(measured), expected \(lengths.dropLast())")
    }

    /// A trainer with no gap plays its passes back to back, each between 5 ms fades: on a 1 kHz
    /// sine the only quiet frames at a join are the few at the ends of the fades (11 measured at
    /// 1.0×, where the stretcher is bypassed).
    ///
    /// Below 1.0× each pass is a stream of its own, and the stretched audio runs ahead of the
    /// source, so it reaches B before the pass's (B − A) ÷ rate frames are out. SoundTouch's flush
    /// made them up with silence (27 ms after 0.6× passes, 21 ms after 0.7×); the pipeline now
    /// pushes them out with the audio after B and fades out on the output.
    @Test func aTrainersPassesJoinWithoutAHole() throws {
        let path = dir.file("sine.wav")
        try Signals.write(Signals.sine(1_000, seconds: 4, amplitude: 0.5), to: path, format: .float)
        let trainer = try #require(Trainer("0.6:1.0:0.1/2"))
        let rates = (0..<10).map { trainer.rate(forPass: $0) }
        let samples = try renderLoop(path, loop: LoopRange(start: 1, end: 2, passes: 10, rehearsal: Rehearsal(trainer: trainer)), in: dir)
        let x = Signals.channel(samples, 0, of: 2)
        var join = 0
        for k in 0..<9 {
            join += Int((44_100 / rates[k]).rounded())
            var run = 0, longest = 0
            for n in (join - 2_205)..<(join + 441) {                     // 50 ms before the join to 10 ms after
                run = abs(x[n]) < 0.01 ? run + 1 : 0
                longest = max(longest, run)
            }
            #expect(longest < 44, "after pass \(k + 1) at \(rates[k])×: \(longest) quiet frames in a row")
        }
    }
}
