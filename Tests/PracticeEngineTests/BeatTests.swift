// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeDocuments
import PracticeTestSupport
@testable import PracticeEngine

/// Beat grids found in generated music whose beats are known: a click track, a drum-like pattern
/// with a tempo change, swing; the tempo within 0.5 %, the beats within 20 ms, the "1" right.
@Suite struct BeatTests {
    let dir = ScratchDirectory("beats")

    func grid(_ samples: [Float], name: String, meter: Int = 8) throws -> BeatGrid {
        let path = dir.file(name)
        try Signals.write(samples, to: path, channels: 1)
        return try BeatAnalysis.analyse(try Track.open(path).track, meter: meter)
    }

    /// Every known beat after the first `settle` seconds has a found beat within `within` s.
    func check(_ g: BeatGrid, against known: [Double], settle: Double = 0, within: Double = 0.02) {
        let late = known.filter { $0 >= settle && $0 < (known.last ?? 0) - 1 }
        let misses = late.filter { t in !g.times.contains { abs($0 - t) <= within } }
        #expect(misses.isEmpty, "\(misses.count) of \(late.count) beats not found within \(Int(within * 1000)) ms: \(misses.prefix(5)); found near them \(misses.prefix(3).map { m in g.times.filter { abs($0 - m) < 1.2 } })")
    }

    @Test func aSteadyBeatItsTempoAndItsOne() throws {
        let known = (0..<60).map { 0.5 + Double($0) * 0.5 }   // 120 bpm from 0.5 s
        let g = try grid(Signals.drums(beats: known, seconds: 31), name: "steady.wav")
        #expect(abs(g.tempo - 120) / 120 < 0.005, "\(g.tempo) bpm")
        check(g, against: known)
        // Accents every fourth beat from the first: the one is on an accented beat.
        let k = ((g.one - 0.5) / 0.5).rounded()
        #expect(abs(g.one - (0.5 + k * 0.5)) < 0.02 && Int(k) % 4 == 0, "one at \(g.one)")
    }

    @Test func aTempoChange() throws {
        var known: [Double] = []
        var t = 0.3
        while t < 15 { known.append(t); t += 0.6 }        // 100 bpm
        while t < 30 { known.append(t); t += 0.5 }        // then 120 bpm
        let g = try grid(Signals.drums(beats: known, seconds: 30.5), name: "change.wav")
        check(g, against: known.filter { $0 < 13 || $0 > 18 })
    }

    /// A waltz: accents every third beat from the second, counted in bars of 3.
    @Test func aWaltzsOne() throws {
        let known = (0..<45).map { 0.4 + Double($0) * 0.6 }
        let g = try grid(Signals.drums(beats: known, seconds: 28, accentEvery: 3, oneAt: 1), name: "waltz.wav", meter: 3)
        check(g, against: known)
        let k = Int(((g.one - 0.4) / 0.6).rounded())
        #expect(abs(g.one - (0.4 + Double(k) * 0.6)) < 0.02 && (k - 1) % 3 == 0 && g.meter == 3, "one at \(g.one)")
        #expect(g.count(ofBeat: g.nearest(0.4 + 0.6 * 4)!) == (beat: 1, group: 2) && g.count(ofBeat: g.nearest(0.4)!) == (beat: 3, group: 0))
    }

    @Test func swing() throws {
        let known = (0..<50).map { 0.25 + Double($0) * 0.6 }
        let g = try grid(Signals.drums(beats: known, seconds: 30.5, swing: 0.66), name: "swing.wav")
        #expect(abs(g.tempo - 100) / 100 < 0.005, "\(g.tempo) bpm")
        check(g, against: known)
    }

    /// A metronome's click track: 10 ms clicks at 90 bpm, the first of each bar higher and louder.
    @Test func aClickTrack() throws {
        let known = (0..<40).map { 0.2 + Double($0) * 60 / 90 }
        var samples = [Float](repeating: 0, count: Int(28 * 44_100.0))
        for (k, t) in known.enumerated() {
            let (f, a) = k % 4 == 0 ? (1_500.0, 0.9) : (1_000.0, 0.5)
            for i in 0..<441 { samples[Int(t * 44_100) + i] = Float(a * sin(2 * .pi * f * Double(i) / 44_100) * exp(-Double(i) / 150)) }
        }
        let g = try grid(samples, name: "clicks.wav", meter: 4)
        #expect(abs(g.tempo - 90) / 90 < 0.005, "\(g.tempo) bpm")
        check(g, against: known)
        let k = Int(((g.one - 0.2) / (60 / 90)).rounded())
        #expect(abs(g.one - known[max(k, 0)]) < 0.02 && k % 4 == 0, "one at \(g.one)")
    }

    /// The bundled demo (Samples/make-demo.py: 100 bpm, the first downbeat at 0.5 s, 20 bars of
    /// intro, verse and chorus): the tempo within 0.5 %; nine beats in ten within 20 ms of the
    /// known ones and all but three within 70 ms; every "1" of an eight on a first downbeat of
    /// two bars (the snares on 2 and 4 are louder than the kick on 1).
    @Test func theDemo() throws {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Samples/demo.flac").path
        let g = try BeatAnalysis.analyse(try Track.open(demo).track, meter: 8)
        let known = (0..<81).map { 0.5 + Double($0) * 0.6 }
        #expect(abs(g.tempo - 100) / 100 < 0.005, "\(g.tempo) bpm")
        let close = known.filter { t in g.times.contains { abs($0 - t) <= 0.02 } }.count
        let near = known.filter { t in g.times.contains { abs($0 - t) <= 0.07 } }.count
        #expect(close * 10 >= known.count * 9 && near >= known.count - 3, "\(close) within 20 ms, \(near) within 70 ms of \(known.count)")
        // Counted in eights from the first downbeat: every second bar's first beat is a "1".
        let ones = stride(from: 0, to: known.count, by: 8).compactMap { k in g.nearest(known[k]).map { g.count(ofBeat: $0).beat } }
        #expect(ones.count == 11 && ones.allSatisfy { $0 == 1 }, "the one at \(g.one): \(ones)")
    }
}
