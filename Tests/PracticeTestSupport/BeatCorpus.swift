// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A generated corpus of dance music whose beats are known: eleven styles (four-on-the-floor,
/// backbeat, half-time hip-hop, trap hi-hats, swing, waltz, dembow, clave, syncopated pop, a
/// ballad, and a rubato intro before a groove) across 60–200 bpm, each from its own drum kit
/// (kick, snare, clap, hats, rim, bass, chords), with a crash on the "1" of every eight (of every
/// two bars of 3 in a waltz). Mono, 44.1 kHz. The same corpus every run (seeded).
public struct BeatCorpusTrack: Sendable, CustomStringConvertible {
    public let style: String
    public let bpm: Double
    /// Every beat after the intro, in seconds.
    public let beats: [Double]
    /// The "1" of each eight (or each bar of a waltz, counted in 3).
    public let ones: [Double]
    /// Beats to a count: 8, or 3 for the waltz.
    public let meter: Int
    public let samples: [Float]
    public var description: String { "\(style) at \(Int(bpm)) bpm" }
}

public enum BeatCorpus {
    public static let rate = 44_100.0

    /// The styles, each with its tempos: (name, tempos). 66 tracks.
    public static let plan: [(style: String, tempos: [Double])] = [
        ("four-on-the-floor", [115, 120, 124, 128, 132, 140]),
        ("backbeat", [84, 96, 108, 120, 138, 152, 168]),
        ("half-time hip-hop", [82, 88, 92, 96, 100]),
        ("trap hi-hats", [130, 136, 140, 145, 150]),
        ("swing", [104, 120, 138, 156, 176, 196]),
        ("waltz", [84, 96, 108, 132, 150, 174]),
        ("dembow", [88, 92, 96, 100, 104]),
        ("clave", [160, 170, 180, 190, 200]),
        ("syncopated pop", [98, 104, 112, 118, 124, 128]),
        ("ballad", [60, 64, 68, 72, 76]),
        ("rubato intro", [90, 100, 110, 122, 134]),
        ("four-on-the-floor, quiet kick", [118, 126, 174]),
        ("backbeat, busy hats", [70, 78, 184, 200]),
    ]

    public static var all: [(style: String, bpm: Double)] { plan.flatMap { p in p.tempos.map { (p.style, $0) } } }

    /// The same styles 3 bpm either side of each tempo (those not in the plan already): tracks
    /// the analysis was not tuned on, for bench/beats. 131 tracks.
    public static var heldOut: [(style: String, bpm: Double)] {
        var seen = Set<String>()
        return plan.flatMap { p in p.tempos.flatMap { [$0 - 3, $0 + 3] }.filter { !p.tempos.contains($0) }.compactMap { bpm in
            seen.insert("\(p.style) \(bpm)").inserted ? (p.style, bpm) : nil
        } }
    }

    /// One track of `seconds` (beats start 0.3 s in, after the rubato intro's 8 s where it has one).
    public static func track(_ style: String, bpm: Double, seconds: Double = 24) -> BeatCorpusTrack {
        var g = Generator(seconds: seconds, seed: UInt64(bpm * 1000) ^ UInt64(truncatingIfNeeded: style.hashValueStable))
        let beat = 60 / bpm
        let meter = style == "waltz" ? 3 : 8
        let perBar = style == "waltz" ? 3 : 4
        let start = style == "rubato intro" ? 8.3 : 0.3
        var beats: [Double] = []
        var t = start
        while t < seconds - 0.2 { beats.append(t); t += beat }
        // The rubato intro: chords at irregular times, louder than nothing but with no pulse.
        if style == "rubato intro" {
            var c = 0.4
            while c < start - 0.6 { g.chord(at: c, root: 220 * pow(2, Double(Int(g.random() * 5)) / 12), length: 1.0, level: 0.25); c += 0.7 + 1.3 * g.random() }
        }
        for (k, b) in beats.enumerated() {
            let inBar = k % perBar, bar = k / perBar
            let one = k % (meter == 3 ? 6 : 8) == 0
            if one { g.crash(at: b) }
            func at(_ fraction: Double) -> Double { b + fraction * beat }
            switch style {
            case "four-on-the-floor", "four-on-the-floor, quiet kick":
                g.kick(at: b, level: style.hasSuffix("quiet kick") ? 0.35 : (inBar == 0 ? 1 : 0.85))
                if inBar % 2 == 1 { g.clap(at: b, level: 0.6) }
                g.hat(at: at(0.5), level: 0.35, open: true)
                if inBar == 0 { g.bass(at: b, frequency: 55, length: beat * 0.9) }
            case "backbeat", "backbeat, busy hats":
                if inBar % 2 == 0 { g.kick(at: b, level: inBar == 0 ? 1 : 0.8) }
                if inBar % 2 == 1 { g.snare(at: b, level: 0.75) }
                let hats = style.hasSuffix("busy hats") ? 4 : 2
                for h in 0..<hats { g.hat(at: at(Double(h) / Double(hats)), level: h == 0 ? 0.3 : 0.2) }
                if inBar == 0 { g.chord(at: b, root: 196, length: beat * 3.5, level: 0.12) }
            case "half-time hip-hop":
                if inBar == 0 || inBar == 2 && bar % 2 == 1 { g.kick(at: b, level: 1) }
                if inBar == 1 { g.kick(at: at(0.5), level: 0.7) }
                if inBar == 2 { g.snare(at: b, level: 0.9) }
                for h in 0..<2 { g.hat(at: at(Double(h) / 2), level: 0.2) }
                if inBar == 0 { g.bass(at: b, frequency: 49, length: beat * 1.5) }
            case "trap hi-hats":
                if inBar == 0 { g.kick(at: b, level: 1); g.bass(at: b, frequency: 41, length: beat * 1.8) }
                if inBar == 1 && bar % 2 == 0 { g.kick(at: at(0.75), level: 0.8) }
                if inBar == 2 { g.snare(at: b, level: 0.9); g.clap(at: b, level: 0.5) }
                let rolls = inBar == 3 && bar % 2 == 1 ? 6 : 4   // a triplet roll every other bar
                for h in 0..<rolls { g.hat(at: at(Double(h) / Double(rolls)), level: h == 0 ? 0.25 : 0.15) }
            case "swing":
                g.ride(at: b, level: 0.3)
                if inBar % 2 == 1 { g.ride(at: at(0.66), level: 0.2); g.hat(at: b, level: 0.3) }
                g.bass(at: b, frequency: [55, 65.4, 73.4, 82.4][inBar], length: beat * 0.8)
                if inBar == 0 { g.kick(at: b, level: 0.5) }
            case "waltz":
                if inBar == 0 { g.bass(at: b, frequency: 65.4, length: beat * 0.9); g.kick(at: b, level: 0.8) }
                else { g.chord(at: b, root: 261.6, length: beat * 0.5, level: 0.2); g.hat(at: b, level: 0.15) }
            case "dembow":
                g.kick(at: b, level: 0.95)
                g.snare(at: at(0.75), level: 0.6)
                if inBar % 2 == 1 { g.snare(at: at(0.5), level: 0.6) }
                g.hat(at: at(0.5), level: 0.15)
            case "clave":
                // Son clave 3-2 over a bass tumbao and a cowbell on the beats.
                let pattern: [[Double]] = [[0], [0.5], [], [0], [], [0], [0], []]
                for f in pattern[k % 8] { g.rim(at: at(f), level: 0.6) }
                g.cowbell(at: b, level: inBar == 0 ? 0.45 : 0.3)
                if inBar == 1 { g.bass(at: at(0.5), frequency: 65.4, length: beat) }
                if inBar == 3 { g.bass(at: b, frequency: 73.4, length: beat) }
                if inBar == 0 { g.kick(at: b, level: 0.6) }
            case "syncopated pop":
                if inBar == 0 { g.kick(at: b, level: 1) }
                if inBar == 1 { g.kick(at: at(0.5), level: 0.8) }
                if inBar == 2 { g.kick(at: b, level: 0.8) }
                if inBar % 2 == 1 { g.snare(at: b, level: 0.8) }
                for h in 0..<2 { g.hat(at: at(Double(h) / 2), level: 0.18) }
                if inBar == 1 || inBar == 3 { g.chord(at: at(0.5), root: 233, length: beat * 0.4, level: 0.15) }
            case "ballad":
                if inBar == 0 { g.kick(at: b, level: 0.9) }
                if inBar == 2 { g.kick(at: b, level: 0.7) }
                if inBar % 2 == 1 { g.snare(at: b, level: 0.6) }
                g.chord(at: b, root: 174.6, length: beat * 0.9, level: 0.12)
            case "rubato intro":
                if inBar % 2 == 0 { g.kick(at: b, level: inBar == 0 ? 1 : 0.8) }
                if inBar % 2 == 1 { g.snare(at: b, level: 0.7) }
                g.hat(at: at(0.5), level: 0.2)
            default:
                fatalError("no style \(style)")
            }
        }
        let ones = stride(from: 0, to: beats.count, by: meter == 3 ? 3 : 8).map { beats[$0] }
        return BeatCorpusTrack(style: style, bpm: bpm, beats: beats, ones: ones, meter: meter, samples: g.finish())
    }
}

extension BeatCorpus {
    /// A dance crew's competition mix: `parts` (style, tempo, seconds) one after another, each
    /// generated as `track` makes it; the beats and ones of each part moved to where it starts.
    public static func medley(_ parts: [(style: String, bpm: Double, seconds: Double)]) -> (parts: [BeatCorpusTrack], starts: [Double], samples: [Float]) {
        var tracks: [BeatCorpusTrack] = [], starts: [Double] = [], samples: [Float] = []
        for p in parts {
            let t = track(p.style, bpm: p.bpm, seconds: p.seconds)
            let start = Double(samples.count) / rate
            starts.append(start)
            tracks.append(BeatCorpusTrack(style: t.style, bpm: t.bpm, beats: t.beats.map { $0 + start }, ones: t.ones.map { $0 + start }, meter: t.meter, samples: []))
            samples += t.samples
        }
        return (tracks, starts, samples)
    }
}

extension String {
    /// A hash that is the same in every run (Swift's own is seeded per process).
    var hashValueStable: UInt64 { utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 } }
}

/// Adds instruments into a buffer.
struct Generator {
    var out: [Float]
    var noise: SplitMix
    let rate = BeatCorpus.rate

    init(seconds: Double, seed: UInt64) {
        out = [Float](repeating: 0, count: Int(seconds * BeatCorpus.rate))
        noise = SplitMix(seed: seed)
    }

    mutating func random() -> Double { Double(noise.next() >> 11) / Double(1 << 53) }

    /// Adds `f(x)` for x seconds from `t` over `length` seconds.
    mutating func add(at t: Double, length: Double, _ f: (Double) -> Double) {
        let s = Int(t * rate)
        guard s >= 0 else { return }
        for i in 0..<Int(length * rate) where s + i < out.count { out[s + i] += Float(f(Double(i) / rate)) }
    }

    mutating func kick(at t: Double, level: Double) {
        add(at: t, length: 0.25) { x in level * 0.8 * sin(2 * .pi * (50 * x + 60 * (1 - exp(-x * 40)) / 40 * 1.5)) * exp(-x * 12) }
    }
    mutating func snare(at t: Double, level: Double) {
        var n: [Double] = (0..<Int(0.2 * rate)).map { _ in 0 }
        for i in n.indices { n[i] = random() - 0.5 }
        add(at: t, length: 0.2) { x in level * (0.5 * n[min(Int(x * 44_100), n.count - 1)] * exp(-x * 20) + 0.3 * sin(2 * .pi * 190 * x) * exp(-x * 30)) }
    }
    mutating func clap(at t: Double, level: Double) {
        for (k, d) in [0.0, 0.011, 0.022].enumerated() {
            var n: [Double] = (0..<Int(0.1 * rate)).map { _ in 0 }
            for i in n.indices { n[i] = random() - 0.5 }
            add(at: t + d, length: 0.1) { x in level * (k == 2 ? 0.5 : 0.3) * n[min(Int(x * 44_100), n.count - 1)] * exp(-x * (k == 2 ? 25 : 120)) }
        }
    }
    /// Noise, high-passed by a first difference.
    mutating func hat(at t: Double, level: Double, open: Bool = false) {
        let length = open ? 0.12 : 0.05
        var n: [Double] = (0...Int(length * rate)).map { _ in 0 }
        for i in n.indices { n[i] = random() - 0.5 }
        add(at: t, length: length) { x in
            let i = min(Int(x * 44_100), n.count - 2)
            return level * 0.5 * (n[i + 1] - n[i]) * exp(-x * (open ? 30 : 90))
        }
    }
    /// A crash cymbal: loud broadband noise, a long decay.
    mutating func crash(at t: Double) {
        var n: [Double] = (0...Int(1.2 * rate)).map { _ in 0 }
        for i in n.indices { n[i] = random() - 0.5 }
        add(at: t, length: 1.2) { x in
            let i = min(Int(x * 44_100), n.count - 2)
            return 0.5 * (0.6 * n[i] + 0.8 * (n[i + 1] - n[i])) * exp(-x * 3)
        }
    }
    mutating func ride(at t: Double, level: Double) {
        add(at: t, length: 0.3) { x in level * 0.3 * (sin(2 * .pi * 3_150 * x) + 0.7 * sin(2 * .pi * 4_370 * x)) * exp(-x * 10) }
    }
    mutating func rim(at t: Double, level: Double) {
        add(at: t, length: 0.06) { x in level * 0.5 * sin(2 * .pi * 2_500 * x) * exp(-x * 80) }
    }
    mutating func cowbell(at t: Double, level: Double) {
        add(at: t, length: 0.15) { x in level * 0.3 * (sin(2 * .pi * 562 * x) + sin(2 * .pi * 845 * x)) * exp(-x * 25) }
    }
    mutating func bass(at t: Double, frequency: Double, length: Double) {
        add(at: t, length: length) { x in 0.35 * sin(2 * .pi * frequency * x) * min(x * 200, 1) * exp(-x * 2) * min((length - x) * 100, 1) }
    }
    mutating func chord(at t: Double, root: Double, length: Double, level: Double) {
        add(at: t, length: length) { x in
            let env = min(x * 100, 1) * exp(-x * 1.5) * min((length - x) * 50, 1)
            return level * env * (sin(2 * .pi * root * x) + sin(2 * .pi * root * 1.26 * x) + sin(2 * .pi * root * 1.5 * x)) / 3
        }
    }

    func finish() -> [Float] {
        let peak = out.reduce(0) { max($0, abs($1)) }
        return peak > 0.95 ? out.map { $0 * 0.95 / peak } : out
    }
}
