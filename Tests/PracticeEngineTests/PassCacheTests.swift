// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeAudio

/// A drilled loop at high quality: its passes made ahead with Rubber Band on a background thread
/// and played from memory, the same to the sample as the live pass, in bounded memory.
@Suite struct PassCacheTests {
    let dir = ScratchDirectory("pass-cache")

    /// A rehearsal at 0.8× (1 s passes, 0.25 s gaps) on the virtual device: once the pass is made,
    /// the first pass plays live and the other three from memory, and every pass is the same as the
    /// first to the sample (the change at each gap is not heard), the gaps silent, every part as
    /// long as it should be. With the formant kept and a pitch shift, the same; and on a real song
    /// (frantic, from Debian's wesnoth-1.16-music, looped at 0:30), as it is and two semitones up
    /// with its formants kept (the linear-prediction filters fitted to a real mix).
    @Test(arguments: [(0.8, 0.0, false, false), (1.25, -2.0, true, false), (0.8, 0.0, false, true), (0.8, 2.0, true, true)])
    func passesPlayFromMemoryTheSameToTheSample(rate: Double, pitch: Double, formant: Bool, realSong: Bool) throws {
        var path = dir.file("music-\(rate).wav"), start = 2.0
        if realSong {
            (path, start) = ("/usr/share/games/wesnoth/1.16/data/core/music/frantic.ogg", 30)
        } else {
            try Signals.write(Signals.music(seconds: 6, seed: 7), to: path)
        }
        var o = PlayerOptions()
        o.settings = PlaybackSettings(rate: rate, pitch: pitch)
        o.settings.quality = .high
        o.settings.formant = formant
        o.loop = LoopRange(start: start, end: start + 1, passes: 4, rehearsal: Rehearsal(gap: 0.25))
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        // The first pass has begun live (time moves only as the test plays); the pass is made meanwhile.
        try eventually("the pass made ahead", within: 60) { rig.player.passesMadeAhead.made == 1 }
        let pass = Int((44_100 / rate).rounded()), gap = 11_025
        var heard = rig.play(pass + gap + pass / 2)
        let halfway = rig.player.state   // half of the second pass, played from memory
        #expect(abs(halfway.position - (start + 0.5)) < 0.002 && halfway.loop?.pass == 2, "at \(halfway.position) s, pass \(halfway.loop?.pass ?? 0)")
        heard += rig.play(4 * pass + 3 * gap + 4_410)
        #expect(heard.count / 2 == 4 * pass + 3 * gap, "the rehearsal's length")
        let made = rig.player.passesMadeAhead
        #expect(made.made == 1 && made.played == 3, "\(made)")
        #expect(made.bytes == pass * 2 * 4, "\(made.bytes) bytes for \(pass) frames")
        func frames(_ a: Int, _ b: Int) -> ArraySlice<Float> { heard[(a * 2)..<(b * 2)] }
        let first = frames(0, pass)
        #expect(first.map(abs).max()! > 0.1, "the pass is heard")
        for k in 1..<4 {
            let at = k * (pass + gap)
            #expect(frames(at - gap, at).allSatisfy { $0 == 0 }, "gap before pass \(k + 1)")
            let differing = zip(frames(at, at + pass), first).filter { $0 != $1 }.count
            #expect(differing == 0, "pass \(k + 1) from memory: \(differing) samples differ from the live pass")
        }
    }

    /// A trainer (0.6× → 0.8× by 0.1): a pass is made at each of its speeds, and the passes after
    /// the first play from memory, each as long as its speed makes it, with the tone's pitch.
    @Test func everySpeedOfATrainerIsMadeAhead() throws {
        let path = dir.file("trainer.wav")
        try Signals.write(Signals.sine(440, seconds: 4), to: path)
        var o = PlayerOptions()
        o.settings.quality = .high
        o.loop = LoopRange(start: 1, end: 2, passes: 4, rehearsal: Rehearsal(gap: 0.25, trainer: Trainer(from: 0.6, to: 0.8, step: 0.1)))
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        try eventually("a pass made at each speed", within: 60) { rig.player.passesMadeAhead.made == 3 }
        let passes = [0.6, 0.7, 0.8, 0.8].map { Int((44_100 / $0).rounded()) }, gap = 11_025
        let heard = rig.play(passes.reduce(0, +) + 3 * gap + 4_410)
        #expect(heard.count / 2 == passes.reduce(0, +) + 3 * gap, "the rehearsal's length")
        #expect(rig.player.passesMadeAhead.played == 3)
        var at = 0
        for (k, n) in passes.enumerated() {
            let f = Analysis.dominantFrequency(Array(Signals.channel(heard, 0, of: 2)[(at + 2_000)..<(at + n - 2_000)]), sampleRate: 44_100)
            #expect(abs(f / 440 - 1) < 0.005, "pass \(k + 1): \(f) Hz")
            if k < 3 { #expect(heard[((at + n) * 2)..<((at + n + gap) * 2)].allSatisfy { $0 == 0 }, "the gap after pass \(k + 1)") }
            at += n + gap
        }
    }

    /// Begun inside the loop (at 2.5 s of 2–4 s), the first pass is three quarters of a pass: it
    /// plays live and is not made; the two after it are, once, and come from memory. (The first
    /// pass is longer than the ring and the device hold, so the second starts once playing has.)
    @Test func aFirstPassFromInsideTheLoopIsNotMade() throws {
        let path = dir.file("inside.wav")
        try Signals.write(Signals.music(seconds: 4, seed: 9), to: path)
        var o = PlayerOptions()
        o.settings = PlaybackSettings(rate: 0.8)
        o.settings.quality = .high
        o.loop = LoopRange(start: 2, end: 4, passes: 3, rehearsal: Rehearsal(gap: 0.25))
        o.from = 2.5
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        try eventually("the pass made ahead", within: 60) { rig.player.passesMadeAhead.made == 1 }
        let first = Int((66_150 / 0.8).rounded()), pass = Int((88_200 / 0.8).rounded()), gap = 11_025
        let heard = rig.play(first + 2 * (gap + pass) + 4_410)
        #expect(heard.count / 2 == first + 2 * (gap + pass), "the rehearsal's length")
        let made = rig.player.passesMadeAhead
        #expect(made.made == 1 && made.played == 2 && made.bytes == pass * 2 * 4, "\(made)")
    }

    /// At fast quality (SoundTouch) nothing is made ahead: the passes are the live stretcher's.
    @Test func fastQualityMakesNothingAhead() throws {
        let path = dir.file("fast.wav")
        try Signals.write(Signals.music(seconds: 4, seed: 3), to: path)
        var o = PlayerOptions()
        o.settings = PlaybackSettings(rate: 0.8)
        o.loop = LoopRange(start: 1, end: 2, passes: 3, rehearsal: Rehearsal(gap: 0.25))
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        rig.play(3 * 55_125 + 2 * 11_025 + 4_410)
        #expect(rig.player.passesMadeAhead == (0, 0, 0))
    }

    /// The cache holds at most its limit: made a third pass, the least recently used of two goes;
    /// a pass looked up becomes the most recent. One larger than the limit is not kept.
    @Test func memoryIsBoundedAndTheLeastRecentGoes() throws {
        let path = dir.file("bounded.wav")
        try Signals.write(Signals.music(seconds: 4, seed: 5), to: path)
        let passBytes = 44_100 * 2 * 4   // 0.5 s of source at 0.5×: 1 s of stereo float
        let cache = PassCache(outputRate: 44_100, profile: .music, limitBytes: 2 * passBytes + 1_000) { try SoundFile(path: path, audioStream: nil) }
        defer { cache.stop() }
        var s = PlaybackSettings(rate: 0.5)
        s.quality = .high
        let keys = [0, 1, 2].map { (second: Int) -> PassCache.Key in PassCache.Key(from: second * 44_100, end: second * 44_100 + 22_050, settings: s) }
        cache.prepare([keys[0], keys[1]])
        try eventually("two passes made", within: 60) { cache.usage.made == 2 }
        #expect(cache.usage.bytes == 2 * passBytes)
        #expect(cache.pass(keys[0])?.count == 44_100 * 2)   // keys[0] is now the most recent
        cache.prepare([keys[2]])
        try eventually("the third made", within: 60) { cache.usage.made == 3 }
        #expect(cache.isReady(keys[0]) && !cache.isReady(keys[1]) && cache.isReady(keys[2]))
        #expect(cache.usage.bytes == 2 * passBytes)

        let small = PassCache(outputRate: 44_100, profile: .music, limitBytes: passBytes / 2) { try SoundFile(path: path, audioStream: nil) }
        defer { small.stop() }
        small.prepare([keys[0], keys[1]])
        #expect(small.pass(keys[1]) == nil)
        try eventually("the cache idle", within: 60) { small.isIdle }
        #expect(small.usage == (0, 0, 0))
    }
}

/// A plain loop at high quality: its pass as it repeats made ahead, faded into at a wrap, then
/// played over and over from memory.
@Suite struct LoopCycleTests {
    let dir = ScratchDirectory("loop-cycle")

    /// A 1 kHz sine looped at 0.8× between two points of unrelated phase, on the virtual device:
    /// once the cycle is made the player fades into it at the next wrap it has not produced yet,
    /// and no wrap, live or from memory, has a step larger than the sine's own (ratio ≤ 1.2, as
    /// `LoopTests.seamsHaveNoStep`; a hard splice measures about 10); the passes keep their length,
    /// the heard position its place, and the tone its pitch. From A, and with a lead-in from 0.4 s
    /// before it.
    @Test(arguments: [nil, 0.6])
    func wrapsFromMemoryHaveNoStep(from: Double?) throws {
        let path = dir.file("sine.wav")
        try Signals.write(Signals.sine(1_000, seconds: 5, amplitude: 0.5), to: path, format: .float)
        var o = PlayerOptions()
        o.settings = PlaybackSettings(rate: 0.8)
        o.settings.quality = .high
        o.loop = LoopRange(start: 1.00011, end: 1.75037, passes: 8)
        o.from = from
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        try eventually("the cycle made ahead", within: 60) { rig.player.passesMadeAhead.made == 1 }
        let length = 77_191 - 44_105, pass = Int((Double(length) / 0.8).rounded())
        let lead = from.map { Int(((44_105 - $0 * 44_100) / 0.8).rounded()) } ?? 0
        var heard = rig.play(lead + 5 * pass)
        let at = rig.player.state
        #expect(abs(at.position - 1.00011) < 0.003, "at \(at.position) s: five passes heard, the sixth at A")
        #expect(at.loop?.pass == 6, "pass \(at.loop?.pass ?? 0)")
        heard += rig.play(4 * pass)
        #expect(abs(heard.count / 2 - lead - 8 * pass) <= 8, "\(heard.count / 2) frames for a lead-in of \(lead) and 8 passes of \(pass)")
        #expect(rig.player.passesMadeAhead.played == 1, "the cycle took over")
        let left = Signals.channel(heard, 0, of: 2)
        let maxStep = 2 * Double.pi * 1_000 * 0.5 / 44_100
        var worst = 0.0, worstAt = 0
        for k in 1..<8 {
            for n in (lead + k * pass - 300)..<(lead + k * pass + 700) where n + 1 < left.count {
                let r = Double(abs(left[n + 1] - left[n])) / maxStep
                if r > worst { worst = r; worstAt = n }
            }
        }
        #expect(worst < 1.2, "step ratio \(worst) at frame \(worstAt)")
        let f = Analysis.dominantFrequency(Array(left[(lead + 6 * pass)..<(lead + 7 * pass)]), sampleRate: 44_100)
        #expect(abs(f / 1_000 - 1) < 0.003, "\(f) Hz from memory")
    }

    /// 2.5 s of a real song (frantic, full of attacks) looped at 0.8×: once the cycle has taken
    /// over, each pass heard has the loudness, 10 ms by 10 ms, of the same pass rendered live by
    /// Rubber Band (lined up within a block, within 1.5 dB on average), and no wrap steps more
    /// than 1.5 times the live render's largest step there.
    @Test func aRealSongsLoopFromMemory() throws {
        let song = "/usr/share/games/wesnoth/1.16/data/core/music/frantic.ogg"
        var settings = PlaybackSettings(rate: 0.8)
        settings.quality = .high
        let loop = LoopRange(start: 30, end: 32.5, passes: 6)
        var o = PlayerOptions()
        o.settings = settings
        o.loop = loop
        let rig = try VirtualRig(song, o)
        defer { rig.stop() }
        try eventually("the cycle made ahead", within: 60) { rig.player.passesMadeAhead.made == 1 }
        let pass = Int((2.5 * 44_100 / 0.8).rounded())
        let heard = rig.play(6 * pass + 4_410)
        #expect(abs(heard.count / 2 - 6 * pass) <= 8, "\(heard.count / 2) frames for 6 passes of \(pass)")
        #expect(rig.player.passesMadeAhead.played == 1, "the cycle took over")

        var job = RenderJob(input: song, output: dir.file("frantic-live.wav"))
        job.settings = settings
        job.sampleFormat = .float
        job.loop = loop
        _ = try Renderer.render(job)
        let live = try Signals.read(job.output).samples
        func loudness(_ x: [Float], pass k: Int) -> [Double] {
            stride(from: k * pass, to: (k + 1) * pass - 441, by: 441).map { start in
                var sum = 0.0
                for i in (start * 2)..<((start + 441) * 2) where i < x.count { sum += Double(x[i]) * Double(x[i]) }
                return 10 * log10(max(sum / 882, 1e-12))
            }
        }
        for k in 2..<6 {
            let a = loudness(heard, pass: k), b = loudness(live, pass: k)
            let lag = Analysis.bestLag(of: Array(a[20..<(a.count - 20)]), in: b, range: 17...23)
            let off = zip(a, b).map { abs($0 - $1) }.reduce(0, +) / Double(a.count)
            #expect(abs(lag - 20) <= 1 && off < 1.5, "pass \(k + 1): lag \(lag - 20) blocks, \(off) dB apart from the live render's")
        }
        // The largest step within 5 ms of each wrap, heard and in the live render (whose seams
        // are the pipeline's own crossfades): a click would stand out many times over.
        let left = Signals.channel(heard, 0, of: 2), rendered = Signals.channel(live, 0, of: 2)
        func largestStep(_ x: [Double], around wrap: Int) -> Double {
            ((wrap - 220)..<(wrap + 220)).map { abs(x[$0 + 1] - x[$0]) }.max()!
        }
        for k in 1..<6 {
            let step = largestStep(left, around: k * pass), own = largestStep(rendered, around: k * pass)
            #expect(step <= 1.5 * own, "wrap \(k): a step of \(step) where the live render's largest is \(own)")
        }
    }
}
