import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeDocuments

/// Finding a track's beat grid. aubio's tracker follows the beat through tempo changes, but it
/// predicts beats on an 11.6 ms grid from a period it rounds to that grid, it can slip onto the
/// off-beats, and it listens a while before its first beat. So each of its beats is moved onto
/// the onset it stands for (where the energy starts to rise, on a 2.9 ms grid), runs on the
/// off-beats are moved onto the beat, the beats are then followed one by one (none skipped, none
/// doubled), and those before the first are filled in (`Onsets.refine`). The tempo is the median
/// spacing; the "1" comes from the accents: of the `meter` phases the beats can be counted in,
/// the one whose beats are loudest.
public enum BeatAnalysis {
    /// The analysis hop at 44.1 kHz: 512 samples (11.6 ms), as `aubio tempo` uses; other rates
    /// scale it (a power of two), so the tracker hears the same span of music at any rate.
    static func hop(sampleRate: Int) -> Int {
        var hop = 16
        while hop < 4_096, Double(hop) * 44_100 < 512 * Double(sampleRate) * 0.75 { hop *= 2 }
        return hop
    }

    /// The grid of `track`, counted in `meter` (8: eights; 4 or 3: bars). Time and memory are
    /// linear in the track's length and bounded on any input: about 2 × 10⁵ numbers a minute.
    public static func analyse(_ track: Track, meter: Int = 8) throws(PracticeError) -> BeatGrid {
        let rate = track.info.sampleRate, channels = track.info.channels
        // The onsets' grid is a quarter of the hop: 128 samples (2.9 ms) at 44.1 kHz.
        let hop = Self.hop(sampleRate: rate), fineHop = hop / 4
        let found: (beats: [Double], energy: [Float], fine: [Float], bright: [Float])
        do {
            let file = try SoundFile(path: track.path)
            let tracker = try BeatTracker(sampleRate: rate, window: 2 * hop, hop: hop)
            var buffer = [Float](repeating: 0, count: hop * channels)
            var mono = [Float](repeating: 0, count: hop)
            var energy: [Float] = [], fine: [Float] = [], bright: [Float] = []
            var previous: Float = 0
            energy.reserveCapacity(track.info.frames / hop + 1)
            bright.reserveCapacity(track.info.frames / hop + 1)
            fine.reserveCapacity(track.info.frames / fineHop + 1)
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: hop) }
                if n <= 0 { break }
                var sum: Float = 0
                for i in 0..<hop {
                    var v: Float = 0
                    if i < n { for c in 0..<channels { v += buffer[i * channels + c] }; v /= Float(channels) }
                    // A sample that is not a number (a broken float file) counts as silence.
                    if !v.isFinite { v = 0 }
                    mono[i] = v
                    sum += v * v
                }
                energy.append(sum / Float(hop))
                // The energy of the sample-to-sample difference: the highs (a crash, a hat) weigh
                // in it as the lows do in `energy`.
                var highs: Float = 0
                for i in 0..<hop { let d = mono[i] - previous; highs += d * d; previous = mono[i] }
                bright.append(highs / Float(hop))
                for q in stride(from: 0, to: hop, by: fineHop) {
                    var e: Float = 0
                    for i in q..<(q + fineHop) { e += mono[i] * mono[i] }
                    fine.append(e / Float(fineHop))
                }
                mono.withUnsafeBufferPointer { tracker.feed($0) }
            }
            found = (tracker.beats, energy, fine, bright)
        } catch let error as AubioError {
            throw PracticeError(.unavailable, "\(track.path): cannot find its beats: \(error.message)")
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error)")
        }
        let onsets = Onsets(energy: found.fine, seconds: Double(fineHop) / Double(rate))
        let tracked = onsets.refine(found.beats.filter { $0 >= 0 && $0 < track.duration })
        guard let reading = TempoReading.choose(tracked, onsets: onsets, duration: track.duration) else {
            throw PracticeError(.dataError, "\(track.path): no steady beat found")
        }
        let beats = Onsets.distinct(reading.beats.map(Sidecar.milliseconds).filter { $0 < track.duration }, gap: Onsets.shortestBeat)
        guard beats.count >= 2, let tempo = BeatGrid.tempo(of: beats, span: 8), BeatGrid.tempoRange.contains(tempo) else {
            throw PracticeError(.dataError, "\(track.path): no steady beat found")
        }
        let hopSeconds = Double(hop) / Double(rate)
        // A beat's accent: the loudest hop from 20 ms before it to 80 ms after.
        // A beat's accent: the loudest hop from 20 ms before it to 80 ms after, in the whole
        // sound and in its highs (a crash marks the one as a louder kick does), each against its
        // median over the beats.
        func peaks(_ e: [Float]) -> [Double] {
            beats.map { t -> Double in
                let a = max(Int((t - 0.02) / hopSeconds), 0), b = min(Int((t + 0.08) / hopSeconds), e.count - 1)
                return a <= b ? Double(e[a...b].max() ?? 0) : 0
            }
        }
        func normalised(_ v: [Double]) -> [Double] {
            let median = v.sorted()[v.count / 2]
            return median > 0 ? v.map { $0 / median } : v.map { _ in 0 }
        }
        let accents = zip(normalised(peaks(found.energy)), normalised(peaks(found.bright))).map { $0 + $1 }
        let phase = loudestPhase(accents, meter: meter)
        var grid = BeatGrid(times: beats, tempo: (tempo * 100).rounded() / 100, one: beats[phase], meter: meter, source: "aubio")
        grid.otherTempo = reading.other.map { (($0 * tempo / reading.tempo) * 100).rounded() / 100 }.flatMap { BeatGrid.tempoRange.contains($0) ? $0 : nil }
        return grid
    }

    /// The first beat of the loudest phase: for bars, the phase (of `meter`) whose beats are the
    /// loudest on average; for eights, the bar's phase first (of 4), then which of its two bars
    /// in eight starts the eight (the louder, else the earlier).
    static func loudestPhase(_ accents: [Double], meter: Int) -> Int {
        func best(_ m: Int, among phases: [Int]) -> Int {
            var top = phases[0], topMean = -1.0
            for p in phases {
                let values = stride(from: p, to: accents.count, by: m).map { accents[$0] }
                let mean = values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
                if mean > topMean * 1.05 { top = p; topMean = mean }
            }
            return top
        }
        guard accents.count >= meter else { return 0 }
        if meter == 8 {
            let bar = best(4, among: Array(0..<4))
            return best(8, among: [bar, bar + 4])
        }
        return best(meter, among: Array(0..<meter))
    }
}

/// Which octave of the tempo a dancer counts: a tracker hears a steady beat at its half or double
/// as readily (a click every 0.5 s is also a click every second), and locks onto a backbeat's
/// kicks or onto the hats between the beats. As librosa and Ellis's dynamic-programming tracker
/// weigh the readings with a prior for where counted tempos lie, so do we, but the onsets decide
/// first: the beats are doubled (or tripled) where onsets between them are nearly as strong as the
/// beats themselves, and halved where every other beat has hardly any. Only where the onsets
/// allow two readings does the prior (log-normal around 120 bpm, one octave wide) choose.
struct TempoReading {
    var beats: [Double]
    var tempo: Double
    /// The runner-up reading, shown as "96 bpm (or 48)".
    var other: Double?

    /// Readings a dancer counts in: none slower than 40 or faster than 210 bpm is chosen (a fast
    /// swing or salsa is 200; above, the half is counted).
    static let counted = 40.0...210.0
    /// Below this autocorrelation at the beat's period there is no steady beat (white noise
    /// measures 0.06 at its best lag; whole songs of Debian's wesnoth music 0.12 to 0.34; some
    /// excerpts of them less: those get "no steady beat found").
    static let steadiness = 0.1
    /// Beats whose onsets rise by less than this against a window's mean energy are none (a
    /// tone's ripple, a hiss).
    static let salient = 0.1
    /// Onsets between the beats at least this strong (against the beats') are beats too.
    static let between = 0.55
    /// Every other beat weaker than this (against the others) is no beat.
    static let alternate = 0.3

    static func prior(_ bpm: Double) -> Double {
        let octaves = log2(bpm / 120)
        return exp(-0.5 * octaves * octaves)
    }

    /// The reading of `beats` (as tracked) the onsets and the prior favour; nil where no beat is steady.
    static func choose(_ tracked: [Double], onsets: Onsets, duration: Double) -> TempoReading? {
        let envelope = onsets.envelope()
        // Where the onsets repeat most (weighed by the prior): the tempo the tracker should be
        // on, up to an octave or a third. A tracker off it by another ratio (locked onto a
        // clave, a dotted figure) is not followed: a steady grid at that period, each beat then
        // moved onto its onset and followed beat by beat, is.
        let global = envelope.bestPeriod(in: 60 / counted.upperBound...60 / counted.lowerBound, weight: { prior(60 / $0) })
        var beats = tracked
        let trackedTempo = BeatGrid.tempo(of: tracked)
        var consistent = false
        if let t = trackedTempo {
            if let g = global {
                let ratio: Double = t * g.period / 60
                let multiples: [Double] = [1.0 / 3, 0.5, 1, 2, 3]
                consistent = multiples.contains { abs(ratio / $0 - 1) < 0.04 }
            } else {
                consistent = true
            }
        }
        if (!consistent || tracked.count < 4), let global, global.correlation >= steadiness {
            beats = onsets.refine(envelope.steadyGrid(period: global.period, duration: duration))
        }
        guard beats.count >= 4, let found = BeatGrid.tempo(of: beats), found.isFinite else { return nil }
        guard onsets.salience(beats) >= salient else { return nil }
        guard envelope.correlation(atPeriod: 60 / found) >= steadiness
              || envelope.correlation(atPeriod: 120 / found) >= steadiness else { return nil }
        var tempo = found
        var other: Double?
        var direction = 0.0
        // Outside what a dancer counts: the half (or the double) is, whatever the onsets say.
        while tempo > counted.upperBound, beats.count >= 8 { other = tempo; tempo /= 2; beats = onsets.regrid(beats, by: 0.5); direction = -1 }
        while tempo < counted.lowerBound, tempo * 2 <= counted.upperBound { other = tempo; tempo *= 2; beats = onsets.regrid(beats, by: 2); direction = 1 }
        // At most two steps (a tracker two octaves off), never back the way it came.
        for _ in 0..<2 {
            let e = onsets.evidence(beats)
            var scored: [(factor: Double, score: Double)] = [(1, prior(tempo))]
            func support(_ ratio: Double) -> Double { min(max(ratio / between, 0), 1.25) }
            if direction >= 0 {
                if counted.contains(tempo * 2) { scored.append((2, prior(tempo * 2) * support(e.halves))) }
                if counted.contains(tempo * 3) { scored.append((3, prior(tempo * 3) * support(e.thirds))) }
            }
            if direction <= 0, counted.contains(tempo / 2), beats.count >= 8 {
                // Every other beat much weaker: a strong case for half; all alike: a weak one.
                let halving = e.alternate <= alternate ? 1.25 : 1.25 - 0.85 * min((e.alternate - alternate) / (1 - alternate), 1)
                scored.append((0.5, prior(tempo / 2) * halving))
            }
            let ranked = scored.sorted { $0.score > $1.score }
            if ranked[0].factor == 1 {
                if other == nil { other = ranked.count > 1 ? tempo * ranked[1].factor : nil }
                break
            }
            other = tempo
            direction = ranked[0].factor > 1 ? 1 : -1
            tempo *= ranked[0].factor
            beats = onsets.regrid(beats, by: ranked[0].factor)
        }
        return TempoReading(beats: beats, tempo: tempo, other: other)
    }
}

/// An onset envelope on a grid of about 11.6 ms: the rise of energy, compressed (a drum's
/// transient is not a hundred times a note's), its mean removed.
struct Envelope {
    let values: [Double]
    let seconds: Double

    /// The period within `range` (seconds) at which the envelope repeats most, each lag's
    /// autocorrelation weighed by `weight` (the prior), made finer than the grid by a parabola
    /// through the peak; and how strongly it repeats there. Nil for an envelope too short.
    func bestPeriod(in range: ClosedRange<Double>, weight: (Double) -> Double) -> (period: Double, correlation: Double)? {
        let n = values.count
        let power = values.reduce(0) { $0 + $1 * $1 } / Double(max(n, 1))
        let lo = max(2, Int((range.lowerBound / seconds).rounded(.down))), hi = min(Int((range.upperBound / seconds).rounded(.up)), n / 3)
        guard power > 0, lo + 2 <= hi else { return nil }
        var ac = [Double](repeating: 0, count: hi + 2)
        for lag in (lo - 1)...(hi + 1) {
            var sum = 0.0
            for i in 0..<(n - lag) { sum += values[i] * values[i + lag] }
            ac[lag] = sum / Double(n - lag) / power
        }
        var best = lo
        for lag in lo...hi where ac[lag] * weight(Double(lag) * seconds) > ac[best] * weight(Double(best) * seconds) { best = lag }
        let (a, b, c) = (ac[best - 1], ac[best], ac[best + 1])
        let shift = a - 2 * b + c < 0 ? min(max(0.5 * (a - c) / (a - 2 * b + c), -0.5), 0.5) : 0
        return ((Double(best) + shift) * seconds, b)
    }

    /// Beats every `period` seconds over `duration`, at the phase where the envelope is strongest.
    func steadyGrid(period: Double, duration: Double) -> [Double] {
        let step = period / seconds
        guard step >= 1, !values.isEmpty else { return [] }
        var bestPhase = 0, bestSum = -Double.infinity
        for phase in 0..<Int(step.rounded(.up)) {
            var sum = 0.0, t = Double(phase)
            while Int(t.rounded()) < values.count { sum += values[Int(t.rounded())]; t += step }
            if sum > bestSum { bestSum = sum; bestPhase = phase }
        }
        return Array(stride(from: Double(bestPhase) * seconds, to: duration, by: period))
    }

    /// How strongly the envelope repeats after `period` seconds: its autocorrelation there
    /// (1: exactly; 0: no more than chance), the best within ±3 % (a tracker's period is rounded).
    func correlation(atPeriod period: Double) -> Double {
        let n = values.count
        let power = values.reduce(0) { $0 + $1 * $1 } / Double(max(n, 1))
        guard power > 0, period > 0 else { return 0 }
        let lo = max(1, Int((period * 0.97 / seconds).rounded(.down))), hi = Int((period * 1.03 / seconds).rounded(.up))
        var best = -1.0
        var lag = lo
        while lag <= hi, lag < n / 2 {
            var sum = 0.0
            for i in 0..<(n - lag) { sum += values[i] * values[i + lag] }
            best = max(best, sum / Double(n - lag) / power)
            lag += 1
        }
        return best
    }
}

/// How sharply the energy rises in each step of a track: where the notes and drums start.
struct Onsets {
    /// The rise of energy into each step (0 where it falls).
    let rise: [Float]
    /// The mean energy of a window (four steps) over the track: what rises are measured against.
    let typicalLevel: Float
    let seconds: Double

    /// `energy`: the mean square of each step. The rise into step i is the energy of the four
    /// steps ending with it over the four before (11.6 ms windows at 44.1 kHz: long enough that
    /// a low note's own swing does not count as onsets, short enough to place them).
    init(energy: [Float], seconds: Double) {
        self.seconds = seconds
        var window: [Float] = Array(repeating: 0, count: energy.count)
        var sum: Float = 0
        for i in energy.indices {
            sum += energy[i]
            if i >= 4 { sum -= energy[i - 4] }
            window[i] = sum
        }
        // A rise below -100 dB is none.
        typicalLevel = window.isEmpty ? 0 : window.reduce(0, +) / Float(window.count)
        rise = energy.indices.map { i in
            guard i >= 4 else { return 0 }
            let r = window[i] - window[i - 4]
            return r > 1e-10 ? r : 0
        }
    }

    /// The strongest rise between `a` and `b` seconds: its time (where the step that ends it
    /// begins: the onset is in it) and strength.
    func peak(from a: Double, to b: Double) -> (time: Double, strength: Float)? {
        let i0 = max(Int((a / seconds).rounded(.down)), 0), i1 = min(Int((b / seconds).rounded(.up)), rise.count - 1)
        guard i0 <= i1 else { return nil }
        var best = i0
        for i in i0...i1 where rise[i] > rise[best] { best = i }
        // The onset is where the rise began in earnest (half its peak: a slow attack peaks late),
        // and a four-step window's rise is whole three steps after it.
        var first = best
        while first > max(i0 - 3, 4), rise[first - 1] >= 0.5 * rise[best] { first -= 1 }
        return (Double(max(first - 3, 0)) * seconds, rise[best])
    }

    /// The envelope for tempo readings: four steps to one (11.6 ms at 44.1 kHz), each rise
    /// compressed against the typical rise, the mean removed.
    func envelope() -> Envelope {
        let group = 4
        var summed: [Double] = []
        summed.reserveCapacity(rise.count / group + 1)
        var i = 0
        while i < rise.count {
            var e = 0.0
            for j in i..<min(i + group, rise.count) { e += Double(rise[j]) }
            summed.append(e)
            i += group
        }
        let nonzero = summed.filter { $0 > 0 }
        let typical = nonzero.isEmpty ? 0 : nonzero.reduce(0, +) / Double(nonzero.count)
        guard typical > 0, typical.isFinite else { return Envelope(values: [], seconds: seconds * Double(group)) }
        var values = summed.map { log1p($0 / typical) }
        let mean = values.reduce(0, +) / Double(max(values.count, 1))
        for k in values.indices { values[k] -= mean }
        return Envelope(values: values, seconds: seconds * Double(group))
    }

    /// The beats read at `factor` times their tempo: 2 and 3 add beats between each pair (on
    /// the onset there, if any, else evenly), ½ keeps every other one (the stronger half).
    func regrid(_ beats: [Double], by factor: Double) -> [Double] {
        guard beats.count >= 2 else { return beats }
        if factor < 1 {
            func strength(_ phase: Int) -> Double {
                stride(from: phase, to: beats.count, by: 2).reduce(0) { $0 + Double(peak(from: beats[$1] - 0.02, to: beats[$1] + 0.02)?.strength ?? 0) }
            }
            let phase = strength(1) > strength(0) * 1.05 ? 1 : 0
            return stride(from: phase, to: beats.count, by: 2).map { beats[$0] }
        }
        let parts = Int(factor.rounded())
        guard parts > 1 else { return beats }
        let typical = beats.map { Double(peak(from: $0 - 0.02, to: $0 + 0.02)?.strength ?? 0) }.sorted()[beats.count / 2]
        var out: [Double] = []
        out.reserveCapacity(beats.count * parts)
        for k in beats.indices {
            out.append(beats[k])
            let gap = k + 1 < beats.count ? beats[k + 1] - beats[k] : beats[k] - beats[k - 1]
            if k + 1 == beats.count, beats[k] + gap * Double(parts - 1) / Double(parts) >= Double(rise.count) * seconds { continue }
            for j in 1..<parts {
                let t = beats[k] + gap * Double(j) / Double(parts), reach = min(0.05, 0.12 * gap)
                if let p = peak(from: t - reach, to: t + reach), Double(p.strength) > 0.1 * typical, p.time > out.last! + 0.25 * gap / Double(parts) {
                    out.append(p.time)
                } else {
                    out.append(t)
                }
            }
        }
        return out
    }

    /// How strongly the beats stand out: the median beat's rise against a window's mean energy.
    /// A steady tone's ripple is a few hundredths; a note or a drum starting, a tenth and more.
    func salience(_ beats: [Double]) -> Double {
        guard !beats.isEmpty, typicalLevel > 0 else { return 0 }
        let strengths = beats.map { Double(peak(from: $0 - 0.02, to: $0 + 0.02)?.strength ?? 0) }.sorted()
        return strengths[strengths.count / 2] / Double(typicalLevel)
    }

    /// How strong the onsets are halfway (and a third of the way) between the beats, and on
    /// every other beat, each against the beats' (medians, compressed as the envelope is).
    func evidence(_ beats: [Double]) -> (halves: Double, thirds: Double, alternate: Double) {
        guard beats.count >= 3 else { return (0, 0, 1) }
        let scale = max(rise.reduce(0) { $0 + Double($1) } / Double(max(rise.count, 1)), 1e-20)
        func strength(_ t: Double, reach: Double) -> Double { log1p(Double(peak(from: t - reach, to: t + reach)?.strength ?? 0) / scale) }
        func median(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
        var on: [Double] = [], half: [Double] = [], third: [Double] = []
        for k in 0..<(beats.count - 1) {
            let gap = beats[k + 1] - beats[k], reach = min(0.04, 0.1 * gap)
            on.append(strength(beats[k], reach: reach))
            half.append(strength(beats[k] + gap / 2, reach: reach))
            third.append(max(min(strength(beats[k] + gap / 3, reach: reach), strength(beats[k] + 2 * gap / 3, reach: reach)), 0))
        }
        let beat = median(on)
        guard beat > 0 else { return (0, 0, 1) }
        let even = median(stride(from: 0, to: on.count, by: 2).map { on[$0] }), odd = median(stride(from: 1, to: on.count, by: 2).map { on[$0] })
        return (median(half) / beat, median(third) / beat, min(even, odd) / max(max(even, odd), 1e-20))
    }

    /// Beats closer than `gap` seconds to the one before are one beat.
    static func distinct(_ beats: [Double], gap: Double) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(beats.count)
        for t in beats where t.isFinite && (out.last.map { t - $0 >= gap } ?? true) { out.append(t) }
        return out
    }

    /// The shortest beat a grid has: 400 bpm.
    static let shortestBeat = 60.0 / 400
    /// The longest: 20 bpm.
    static let longestBeat = 60.0 / 20

    /// Beats as a tracker predicted them, each moved onto its onset, runs on the off-beats moved
    /// onto the beats, then followed beat by beat. Linear in the beats and bounded on any input:
    /// each step moves on by at least half a beat, and a beat lasts 0.15 to 3 s.
    func refine(_ predicted: [Double]) -> [Double] {
        let beats = Self.distinct(onTheBeat(Self.distinct(predicted.compactMap { t in peak(from: t - 0.07, to: t + 0.07).map(\.time) }, gap: Self.shortestBeat)), gap: Self.shortestBeat)
        guard beats.count >= 4 else { return beats }
        // Then beat by beat from the first: the next is the first found beat between 0.75 and
        // 1.25 spacings on (the spacing of the last four, so a tempo change is followed), unless
        // it is more than 40 ms from one spacing on and an onset there is at least half as
        // strong (the tracker's guess was off); where none was found, the onset one spacing on
        // (else the place itself). No beat is skipped, none doubled.
        guard let median = BeatGrid.tempo(of: beats).map({ 60 / $0 }), median.isFinite else { return beats }
        // The spacing follows the music within half to twice the median (and 0.15 to 3 s).
        let allowed = max(0.5 * median, Self.shortestBeat)...min(2 * median, Self.longestBeat)
        guard allowed.lowerBound < allowed.upperBound else { return beats }
        var spacing = min(max(median, allowed.lowerBound), allowed.upperBound)
        func strengthAt(_ t: Double) -> Float { peak(from: t - 0.01, to: t + 0.01)?.strength ?? 0 }
        // An onset weaker than a quarter of the typical beat's is none.
        let typical = beats.map(strengthAt).sorted()[beats.count / 2]
        let weak = typical / 4
        var out = [beats[0]]
        var k = 1
        // To the end of the track: past the tracker's last beat (it stops a second or more
        // before the end), onsets carry the beat on.
        let end = Double(rise.count) * seconds
        while true {
            let t = out.last!, expected = t + spacing
            if expected > end { break }
            while k < beats.count, beats[k] < t + 0.75 * spacing { k += 1 }
            let found = k < beats.count && beats[k] <= t + 1.25 * spacing ? beats[k] : nil
            let there = peak(from: expected - 0.07, to: expected + 0.07).flatMap { $0.strength > weak ? $0 : nil }
            var next = found
            if let f = found, abs(f - expected) > 0.04, let p = there, abs(p.time - expected) < abs(f - expected), p.strength >= 0.5 * strengthAt(f) { next = p.time }
            // Past the last beat found, only onsets carry the beat on.
            guard var chosen = next ?? there?.time ?? (expected < beats.last! ? expected : nil) else { break }
            // Half a beat either way, an onset twice as strong is the beat (the tracker was on
            // the off-beats).
            for side in [-0.5, 0.5] {
                let c = chosen + side * spacing
                if c > t + 0.25 * spacing, let p = peak(from: c - 0.06, to: c + 0.06), p.strength > 2 * max(strengthAt(chosen), weak) { chosen = p.time; break }
            }
            // Every step moves on by at least half a beat (an onset found behind would loop).
            if chosen < t + 0.5 * spacing { chosen = expected }
            out.append(chosen)
            let recent = out.suffix(5)
            if recent.count >= 3, let local = BeatGrid.tempo(of: Array(recent)) { spacing = min(max(60 / local, allowed.lowerBound), allowed.upperBound) }
        }
        // Before the first beat the tracker found (it listens a while first): back towards the
        // start at the first spacing, while there are onsets on those beats.
        let first = BeatGrid.tempo(of: Array(out.prefix(5))).map { min(max(60 / $0, allowed.lowerBound), allowed.upperBound) } ?? spacing
        var before: [Double] = []
        var t = out[0] - first
        while t >= 0, let there = peak(from: t - 0.04, to: t + 0.04), there.strength > weak {
            let placed = min(there.time, (before.last ?? out[0]) - 0.5 * first)
            guard placed >= 0 else { break }
            before.append(placed)
            t = placed - first
        }
        return Self.distinct(onTheBeat(before.reversed() + out), gap: Self.shortestBeat)
    }

    /// Where, over eight beats, what lies between the beats (30–70 % of the way to the next) is
    /// clearly stronger than the beats, those are the beats: a run on the off-beats moved on.
    func onTheBeat(_ beats: [Double]) -> [Double] {
        guard beats.count >= 4 else { return beats }
        let strength = beats.map { t in Double(peak(from: t - 0.02, to: t + 0.02)?.strength ?? 0) }
        let between: [(time: Double, strength: Double)?] = beats.indices.map { k in
            guard k + 1 < beats.count else { return nil }
            let gap = beats[k + 1] - beats[k]
            return peak(from: beats[k] + 0.3 * gap, to: beats[k] + 0.7 * gap).map { ($0.time, Double($0.strength)) }
        }
        var moved = beats
        for k in beats.indices {
            let window = max(0, k - 4)..<min(beats.count, k + 4)
            let on = window.map { strength[$0] }.reduce(0, +)
            let off = window.compactMap { between[$0]?.strength }.reduce(0, +)
            if off > 1.5 * on, let b = between[k] { moved[k] = b.time }
        }
        return moved.sorted()
    }

}
