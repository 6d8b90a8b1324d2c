// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeDocuments
import PracticeTestSupport
@testable import PracticeEngine

/// The beat analysis on hostile audio: it always ends, and where there is no beat it says "no
/// steady beat found" rather than inventing one; at every sample rate a track may have, a click
/// track's tempo is found.
@Suite struct BeatBoundsTests {
    let dir = ScratchDirectory("beat-bounds")

    func analyse(_ samples: [Float], _ name: String, rate: Int = 44_100) -> Result<BeatGrid, PracticeError> {
        let path = dir.file(name)
        try! Signals.write(samples, to: path, sampleRate: rate, channels: 1)
        return Result { () throws(PracticeError) in try BeatAnalysis.analyse(try Track.open(path).track) }
    }

    static func noise(_ n: Int, seed: UInt64, pink: Bool = false) -> [Float] {
        var g = SplitMix(seed: seed)
        var out = [Float](repeating: 0, count: n)
        // Pink by Paul Kellet's economy filter over white noise.
        var b0 = 0.0, b1 = 0.0, b2 = 0.0
        for i in 0..<n {
            let w = Double(g.next() >> 11) / Double(1 << 53) - 0.5
            if pink {
                b0 = 0.99765 * b0 + w * 0.0990460; b1 = 0.96300 * b1 + w * 0.2965164; b2 = 0.57000 * b2 + w * 1.0526913
                out[i] = Float((b0 + b1 + b2 + w * 0.1848) * 0.3)
            } else {
                out[i] = Float(w)
            }
        }
        return out
    }

    static let seconds = 20.0, n = Int(seconds * 44_100)

    /// Inputs with no beat in them.
    static let beatless: [(String, @Sendable () -> [Float])] = [
        ("silence", { [Float](repeating: 0, count: n) }),
        ("DC", { [Float](repeating: 0.5, count: n) }),
        ("a single click", { var s = [Float](repeating: 0, count: n); for i in 0..<441 { s[44_100 * 3 + i] = 0.9 }; return s }),
        ("white noise", { noise(n, seed: 1) }),
        ("pink noise", { noise(n, seed: 2, pink: true) }),
        ("a clipped 110 Hz square wave", { (0..<n).map { i in sin(2 * .pi * 110 * Double(i) / 44_100) >= 0 ? 1 : -1 } }),
        ("a 1 kHz tone", { Signals.sine(1_000, seconds: seconds, channels: 1) }),
        ("0.1 s of clicks", { (0..<4_410).map { $0 % 2_205 < 40 ? 0.9 : 0 } }),
    ]

    @Test(arguments: beatless.map(\.0))
    func noBeatIsInvented(_ name: String) {
        let samples = Self.beatless.first { $0.0 == name }!.1()
        let result = analyse(samples, name.replacingOccurrences(of: " ", with: "-") + ".wav")
        guard case .failure(let error) = result else { Issue.record("\(name): a grid was invented: \(result)"); return }
        #expect(error.kind == .dataError && error.message.hasSuffix(": no steady beat found"), "\(name): \(error.message)")
    }

    /// A click track sweeping from 60 to 200 bpm over a minute: the analysis ends, and what it
    /// finds (if anything) lies on the clicks.
    @Test func aTempoSweep() throws {
        var clicks: [Double] = [], t = 0.3
        while t < 60 { clicks.append(t); t += 60 / (60 + 140 * t / 60) }
        var s = [Float](repeating: 0, count: 60 * 44_100 + 441)
        for c in clicks { for i in 0..<441 { s[Int(c * 44_100) + i] = Float(0.8 * sin(2 * .pi * 1_000 * Double(i) / 44_100) * exp(-Double(i) / 150)) } }
        let result = analyse(s, "sweep.wav")
        if case .success(let g) = result {
            let off = g.times.filter { b in !clicks.contains { abs($0 - b) < 0.05 } }
            #expect(off.count * 10 <= g.times.count, "\(off.count) of \(g.times.count) beats off the clicks")
        }
    }

    /// Two hours (8 kHz, a click every 0.5 s) in one piece: found, its 14,400 beats all there.
    @Test func twoHours() throws {
        let rate = 8_000, count = 2 * 3_600 * rate
        var s = [Float](repeating: 0, count: count)
        var k = 0
        while k * rate / 2 + 80 < count { for i in 0..<80 { s[k * rate / 2 + 400 + i] = Float(0.8 * sin(2 * .pi * 1_000 * Double(i) / Double(rate))) }; k += 1 }
        let g = try analyse(s, "two-hours.wav", rate: rate).get()
        #expect(abs(g.tempo - 120) < 0.1 && abs(g.times.count - 14_400) <= 2, "\(g.tempo) bpm, \(g.times.count) beats")
    }

    /// Every sample rate a track may have (1 kHz to 384 kHz): a click track at 120 bpm is 120.
    @Test(arguments: [1_000, 8_000, 22_050, 44_100, 48_000, 96_000, 192_000, 384_000])
    func everyRate(_ rate: Int) throws {
        let count = 20 * rate, clickLength = max(rate / 100, 4)
        var s = [Float](repeating: 0, count: count)
        for k in 0..<39 { for i in 0..<clickLength { s[rate / 4 + k * rate / 2 + i] = Float(0.8 * exp(-Double(i) / Double(clickLength) * 3)) * (i % 2 == 0 ? 1 : -1) } }
        let g = try analyse(s, "clicks-\(rate).wav", rate: rate).get()
        #expect(abs(g.tempo - 120) < 0.6 && abs(g.times.count - 39) <= 1, "\(rate) Hz: \(g.tempo) bpm, \(g.times.count) beats")
    }
}
