import FoundationEssentials
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
    /// The grid for the onsets: 128 samples (2.9 ms at 44.1 kHz).
    static let fineHop = 128

    /// The grid of `track`, counted in `meter` (8: eights; 4 or 3: bars).
    public static func analyse(_ track: Track, meter: Int = 8) throws(PracticeError) -> BeatGrid {
        let rate = track.info.sampleRate, channels = track.info.channels
        let found: (beats: [Double], energy: [Float], fine: [Float], bpm: Double, hop: Int)
        do {
            let file = try SoundFile(path: track.path)
            let tracker = try BeatTracker(sampleRate: rate)
            let hop = tracker.hop
            var buffer = [Float](repeating: 0, count: hop * channels)
            var mono = [Float](repeating: 0, count: hop)
            var energy: [Float] = [], fine: [Float] = []
            energy.reserveCapacity(track.info.frames / hop + 1)
            fine.reserveCapacity(track.info.frames / fineHop + 1)
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: hop) }
                if n <= 0 { break }
                var sum: Float = 0
                for i in 0..<hop {
                    var v: Float = 0
                    if i < n { for c in 0..<channels { v += buffer[i * channels + c] }; v /= Float(channels) }
                    mono[i] = v
                    sum += v * v
                }
                energy.append(sum / Float(hop))
                for q in stride(from: 0, to: hop, by: fineHop) {
                    var e: Float = 0
                    for i in q..<(q + fineHop) { e += mono[i] * mono[i] }
                    fine.append(e / Float(fineHop))
                }
                mono.withUnsafeBufferPointer { tracker.feed($0) }
            }
            found = (tracker.beats, energy, fine, tracker.bpm, hop)
        } catch let error as AubioError {
            throw PracticeError(.unavailable, "\(track.path): cannot find its beats: \(error.message)")
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error)")
        }
        let onsets = Onsets(energy: found.fine, seconds: Double(fineHop) / Double(rate))
        let beats = onsets.refine(found.beats.filter { $0 >= 0 && $0 < track.duration }).map(Sidecar.milliseconds)
        guard beats.count >= 2, let tempo = BeatGrid.tempo(of: beats) ?? (found.bpm > 0 ? found.bpm : nil) else {
            throw PracticeError(.dataError, "\(track.path): no steady beat found")
        }
        let hopSeconds = Double(found.hop) / Double(rate)
        // A beat's accent: the loudest hop from 20 ms before it to 80 ms after.
        let accents = beats.map { t -> Double in
            let a = max(Int((t - 0.02) / hopSeconds), 0), b = min(Int((t + 0.08) / hopSeconds), found.energy.count - 1)
            return a <= b ? Double(found.energy[a...b].max() ?? 0) : 0
        }
        let phase = loudestPhase(accents, meter: meter)
        let one = beats[phase]
        return BeatGrid(times: beats, tempo: (tempo * 100).rounded() / 100, one: one, meter: meter, source: "aubio")
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

/// How sharply the energy rises in each step of a track: where the notes and drums start.
struct Onsets {
    /// The rise of energy into each step (0 where it falls).
    let rise: [Float]
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
        rise = energy.indices.map { i in i < 4 ? 0 : max(window[i] - window[i - 4], 0) }
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

    /// Beats as a tracker predicted them, each moved onto its onset, runs on the off-beats moved
    /// onto the beats, then followed beat by beat.
    func refine(_ predicted: [Double]) -> [Double] {
        let beats = onTheBeat(predicted.compactMap { t in peak(from: t - 0.07, to: t + 0.07).map(\.time) })
        guard beats.count >= 4 else { return beats }
        // Then beat by beat from the first: the next is the first found beat between 0.75 and
        // 1.25 spacings on (the spacing of the last four, so a tempo change is followed), unless
        // it is more than 40 ms from one spacing on and an onset there is at least half as
        // strong (the tracker's guess was off); where none was found, the onset one spacing on
        // (else the place itself). No beat is skipped, none doubled.
        guard var spacing = BeatGrid.tempo(of: beats).map({ 60 / $0 }) else { return beats }
        func strengthAt(_ t: Double) -> Float { peak(from: t - 0.01, to: t + 0.01)?.strength ?? 0 }
        // An onset weaker than a quarter of the typical beat's is none.
        let typical = beats.map(strengthAt).sorted()[beats.count / 2]
        let weak = typical / 4
        var out = [beats[0]]
        var k = 1
        let end = beats.last! + 0.5 * spacing
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
            out.append(chosen)
            let recent = out.suffix(5)
            if recent.count >= 3, let local = BeatGrid.tempo(of: Array(recent)) { spacing = 60 / local }
        }
        // Before the first beat the tracker found (it listens a while first): back towards the
        // start at the first spacing, while there are onsets on those beats.
        let first = BeatGrid.tempo(of: Array(out.prefix(5))).map { 60 / $0 } ?? spacing
        var t = out[0] - first
        while t >= 0, let there = peak(from: t - 0.04, to: t + 0.04), there.strength > weak {
            out.insert(there.time, at: 0)
            t = there.time - first
        }
        return onTheBeat(out)
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
