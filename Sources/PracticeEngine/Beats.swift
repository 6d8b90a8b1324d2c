// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeDocuments

/// Finding a track's beat grid. The tempo is read from the spectral flux (how much of each mel
/// band is new, from aubio's FFT and mel filter bank: a hat counts as a kick does), the
/// beats at it are tracked by dynamic programming and each moved onto the onset it stands for
/// (where the energy starts to rise, on a 2.9 ms grid), and the octave a dancer counts is chosen
/// from the onsets (`TempoReading`). The "1" comes from the accents: of the `meter` phases the beats
/// can be counted in, the one whose beats are loudest.
public enum BeatAnalysis {
    /// The analysis hop at 44.1 kHz: 512 samples (11.6 ms), as `aubio tempo` and librosa use;
    /// other rates scale it (a power of two), so the analysis hears the same span at any rate.
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
        let found: (fine: [Float], bright: [Float], flux: [Float], lows: [Float])
        do {
            let file = try SoundFile(path: track.path, audioStream: track.audioStream)
            let spectral = try SpectralFlux(sampleRate: rate, hop: hop)
            var buffer = [Float](repeating: 0, count: hop * channels)
            var mono = [Float](repeating: 0, count: hop)
            var fine: [Float] = [], bright: [Float] = []
            var previous: Float = 0
            bright.reserveCapacity(track.info.frames / hop + 1)
            fine.reserveCapacity(track.info.frames / fineHop + 1)
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: hop) }
                if n <= 0 { break }
                // One hop: the mean square of its four quarters, and that of its sample-to-sample
                // difference (the highs weigh in it as the lows do in the energy: a crash, a hat).
                // (Plain while loops over pointers: this runs for every sample, also in debug builds.)
                let high = buffer.withUnsafeBufferPointer { input in
                    mono.withUnsafeMutableBufferPointer { out -> Float in
                        let x = input.baseAddress!, y = out.baseAddress!
                        var high: Float = 0, quarter: Float = 0, i = 0
                        while i < hop {
                            var v: Float = 0
                            if i < n {
                                var c = 0
                                while c < channels { v += x[i * channels + c]; c += 1 }
                                v /= Float(channels)
                            }
                            // A sample that is not a number (a broken float file) counts as silence.
                            if !v.isFinite { v = 0 }
                            y[i] = v
                            quarter += v * v
                            let d = v - previous
                            high += d * d
                            previous = v
                            i += 1
                            if i % fineHop == 0 { fine.append(quarter / Float(fineHop)); quarter = 0 }
                        }
                        spectral.feed(UnsafeBufferPointer(out))
                        return high
                    }
                }
                bright.append(high / Float(hop))
            }
            found = (fine, bright, spectral.values, spectral.lows)
        } catch let error as AubioError {
            throw PracticeError(.unavailable, "\(track.path): cannot find its beats: \(error.message)")
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error)")
        }
        let onsets = Onsets(energy: found.fine, seconds: Double(fineHop) / Double(rate))
        let heard = Envelope(flux: found.flux, seconds: Double(hop) / Double(rate))
        let tempogram = Tempogram(flux: found.flux, seconds: Double(hop) / Double(rate))
        guard let reading = TempoReading.choose(onsets: onsets, heard: heard, tempogram: tempogram) else {
            throw PracticeError(.dataError, "\(track.path): no steady beat found")
        }
        let beats = Onsets.distinct(reading.beats.map(Sidecar.milliseconds).filter { $0 < track.duration }, gap: Onsets.shortestBeat)
        guard beats.count >= 2, let tempo = BeatGrid.tempo(of: beats, span: 8), BeatGrid.tempoRange.contains(tempo) else {
            throw PracticeError(.dataError, "\(track.path): no steady beat found")
        }
        let hopSeconds = Double(hop) / Double(rate)
        // A beat's accent: the loudest hop from 20 ms before it to 80 ms after, in the whole
        // sound, in its highs (a crash marks the one as a louder kick does) and in the rise of its
        // lows (the bass moves on the one: four times the weight, so that a backbeat's snares on
        // 2 and 4 do not take it), each against its median over the beats.
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
        // A hop's energy: the mean of its quarters'.
        let energy: [Float] = stride(from: 0, to: found.fine.count, by: 4).map { (i: Int) -> Float in found.fine[i..<min(i + 4, found.fine.count)].reduce(0, +) / 4 }
        let (loud, high, low) = (normalised(peaks(energy)), normalised(peaks(found.bright)), normalised(peaks(found.lows)))
        let accents = beats.indices.map { loud[$0] + high[$0] + 4 * low[$0] }
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

/// Which octave of the tempo a dancer counts, and the beats at it. The tempo is read where the
/// spectral flux repeats most, weighed by a prior for where counted tempos lie (log-normal around
/// 120 bpm, one octave wide, as librosa's); the beats are tracked at that period by dynamic
/// programming (Ellis's tracker) and moved onto their onsets. A steady beat is heard at its half
/// or double as readily (a click every 0.5 s is also a click every second), so the onsets then
/// decide between the octaves, the prior only where they allow two readings:
/// - doubled where onsets halfway between the beats are nearly as strong as the beats (a
///   backbeat's snares between its kicks);
/// - halved where every other beat has hardly any onset (hats between a backbeat's drums), unless
///   the beat is already divided in four (a trap song's hats): halved, it would be in eight;
/// - tripled where onsets a third of the way are as strong (a fast waltz heard in bars).
struct TempoReading {
    var beats: [Double]
    var tempo: Double
    /// The runner-up reading, shown as "96 bpm (or 48)".
    var other: Double?

    /// Readings a dancer counts in: none slower than 40 or faster than 210 bpm is chosen (a fast
    /// swing or salsa is 200; above, the half is counted).
    static let counted = 40.0...210.0
    /// Below this autocorrelation of the (smoothed) spectral flux at one to four beats there is
    /// no steady beat: noise and a clipped square wave measure 0.04 and less (tones and silence
    /// stop before); whole songs of Debian's wesnoth music 0.22 (the_city_falls) to 0.70, the
    /// generated corpus 0.51 and more.
    static let steadiness = 0.15
    /// Beats whose onsets rise by less than this against a window's mean energy are none (a
    /// tone's ripple, a hiss): measured on the strongest quarter of the beats, so that beats
    /// on soft hats between loud drums still count.
    static let salient = 0.1
    /// Onsets between the beats at least this strong (against the beats') make a tripled
    /// reading as likely as the prior allows.
    static let between = 0.55
    /// Onsets halfway as strong as this (against the beats', compressed) start to speak for
    /// the double; at `halfway.upperBound` they speak for it twice over the prior.
    static let halfway = 0.3...0.5
    /// Every other beat weaker than this (against the others) is no beat.
    static let alternate = 0.3
    /// A beat whose quarters carry at least this much onset (against the beats', in the
    /// spectral flux) is divided in four already, and not halved.
    static let quartered = 0.04

    static func prior(_ bpm: Double) -> Double {
        let octaves = log2(bpm / 120)
        return exp(-0.5 * octaves * octaves)
    }

    /// The reading the onsets and the prior favour; nil where no beat is steady. `heard`: the
    /// spectral flux's envelope, and `tempogram` its local periodicities, where the tempo is read
    /// (every instrument counts in them); `onsets`, the energy's, place the beats. A song whose
    /// tempo changes (a crew's mix of songs) has its octave chosen section by section
    /// (`Tempogram.sections`); `tempo` and `other` are then the longest section's.
    static func choose(onsets: Onsets, heard: Envelope, tempogram: Tempogram) -> TempoReading? {
        let envelope = onsets.envelope()
        let sections = tempogram.sections()
        guard !sections.isEmpty else { return nil }
        let tracked = onsets.trimmed(onsets.snap(heard.track(sections: sections, with: envelope)))
        guard tracked.count >= 4, let found = BeatGrid.tempo(of: tracked), found.isFinite else { return nil }
        guard onsets.salience(tracked) >= salient else { return nil }
        // Smoothed, so that a beat whose period falls between two steps correlates at both.
        let smooth = heard.smoothed(5)
        guard (1...4).contains(where: { smooth.correlation(atPeriod: Double($0) * 60 / found) >= steadiness }) else { return nil }
        var beats: [Double] = [], longest: TempoReading?
        for (k, section) in sections.enumerated() {
            let last = k == sections.count - 1
            let slice = tracked.filter { $0 >= section.start && ($0 < section.end || last) }
            guard slice.count >= 4, let tempo = BeatGrid.tempo(of: slice), tempo.isFinite else { beats += slice; continue }
            let reading = octave(slice, tempo: tempo, onsets: onsets, heard: heard)
            // Where two sections meet, a beat closer than half a beat to the one before is none.
            let beat = 60 / reading.tempo
            beats += reading.beats.filter { t in beats.last.map { t - $0 >= 0.5 * beat } ?? true }
            if reading.beats.count > longest?.beats.count ?? 0 { longest = reading }
        }
        guard let longest, beats.count >= 4 else { return nil }
        return TempoReading(beats: beats, tempo: longest.tempo, other: longest.other)
    }

    /// The octave of one stretch of steady `beats` at `tempo`, chosen by the rules above.
    static func octave(_ slice: [Double], tempo start: Double, onsets: Onsets, heard: Envelope) -> TempoReading {
        var beats = slice, tempo = start
        var other: Double?
        var direction = 0.0
        // Outside what a dancer counts: the half (or the double) is, whatever the onsets say.
        while tempo > counted.upperBound, beats.count >= 8 { other = tempo; tempo /= 2; beats = onsets.regrid(beats, by: 0.5); direction = -1 }
        while tempo < counted.lowerBound, tempo * 2 <= counted.upperBound { other = tempo; tempo *= 2; beats = onsets.regrid(beats, by: 2); direction = 1 }
        // At most two steps (a reading two octaves off), never back the way it came.
        for _ in 0..<2 {
            let e = onsets.evidence(beats), quarters = heard.quarters(beats)
            var scored: [(factor: Double, score: Double)] = [(1, prior(tempo))]
            if direction >= 0 {
                let doubling = 1.25 * min(max((e.halves - halfway.lowerBound) / (halfway.upperBound - halfway.lowerBound), 0), 1)
                let tripling = min(max(e.thirds / between, 0), 1.25)
                if counted.contains(tempo * 2) { scored.append((2, prior(tempo * 2) * doubling)) }
                if counted.contains(tempo * 3) { scored.append((3, prior(tempo * 3) * tripling)) }
            }
            if direction <= 0, counted.contains(tempo / 2), beats.count >= 8, quarters < quartered {
                // Every other beat much weaker: a strong case for half (up to 1.8 times the
                // prior); a little weaker, a weak one; 0.7 as strong or more, none.
                let halving = e.alternate <= alternate
                    ? 1.25 + 0.55 * min((alternate - e.alternate) / 0.2, 1)
                    : 1.25 * (1 - min((e.alternate - alternate) / 0.4, 1))
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
        // The other reading a dancer might count: the octave the onsets ruled out, else the
        // nearer to the prior's centre of the half and the double.
        if other == nil {
            other = [tempo / 2, tempo * 2].filter { counted.contains($0) }.max { prior($0) < prior($1) }
        }
        return TempoReading(beats: beats, tempo: tempo, other: other)
    }
}

/// How the spectral flux repeats, window by window, as librosa's tempogram has it: in windows of
/// 4.5 s (a Hann window over them) every 0.74 s, the autocorrelation at each lag a beat can last
/// (40 to 210 bpm), against the window's own power. Its mean over the windows reads a whole
/// song's tempo (a loud passage weighs no more than a soft one), its mean over a stretch of them
/// a section's.
struct Tempogram {
    let seconds: Double
    /// The lags (in steps) each row holds, one either side of the range besides.
    let lags: ClosedRange<Int>
    /// Each window's autocorrelation, lag by lag, one row after another (Float: two hours are
    /// 10⁴ rows of about 120 lags).
    let rows: [Float]
    /// Where each row's window starts and how long it is (steps).
    let starts: [Int]
    let width: Int

    init(flux: [Float], seconds: Double) {
        self.seconds = seconds
        let lo = max(1, Int((60 / TempoReading.counted.upperBound / seconds).rounded(.down)) - 1)
        let hi = Int((60 / TempoReading.counted.lowerBound / seconds).rounded(.up)) + 1
        lags = lo...hi
        let width = min(flux.count, Int((4.46 / seconds).rounded())), step = max(1, Int((0.74 / seconds).rounded()))
        self.width = width
        var rows: [Float] = [], starts: [Int] = []
        if width > hi {
            rows.reserveCapacity((flux.count / step + 1) * (hi - lo + 1))
            let shape = (0..<width).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(width - 1)) }
            var segment = [Double](repeating: 0, count: width)
            var start = 0
            while start + width <= flux.count {
                for i in 0..<width { segment[i] = Double(flux[start + i]) * shape[i] }
                var power = 0.0
                for v in segment { power += v * v }
                if power > 0 {
                    for lag in lo...hi { rows.append(Float(laggedProduct(segment, 0..<(width - lag), lag: lag) / power)) }
                    starts.append(start)
                }
                start += step
            }
        }
        self.rows = rows
        self.starts = starts
    }

    /// The mean of rows `range`, lag by lag.
    func mean(_ range: Range<Int>) -> [Double] {
        let n = lags.count
        var sums = [Double](repeating: 0, count: n)
        for r in range { for j in 0..<n { sums[j] += Double(rows[r * n + j]) } }
        return sums.map { $0 / Double(max(range.count, 1)) }
    }

    /// The period (seconds) within `range` where the flux repeats most over rows `rows` (all of
    /// them unless said), each lag weighed by `weight` (the prior), made finer than the steps
    /// by a parabola through the peak; nil where the track is too short (under 4.5 s) or silent.
    func bestPeriod(in range: ClosedRange<Double>, rows: Range<Int>? = nil, weight: (Double) -> Double) -> Double? {
        guard !starts.isEmpty else { return nil }
        let mean = mean(rows ?? 0..<starts.count)
        return Self.peak(mean, lags: lags, seconds: seconds, in: range, weight: weight)
    }

    static func peak(_ values: [Double], lags: ClosedRange<Int>, seconds: Double, in range: ClosedRange<Double>, weight: (Double) -> Double) -> Double? {
        let lo = max(lags.lowerBound + 1, Int((range.lowerBound / seconds).rounded(.up)))
        let hi = min(lags.upperBound - 1, Int((range.upperBound / seconds).rounded(.down)))
        guard lo <= hi else { return nil }
        func at(_ lag: Int) -> Double { values[lag - lags.lowerBound] }
        let best = (lo...hi).max { at($0) * weight(Double($0) * seconds) < at($1) * weight(Double($1) * seconds) }!
        return (Double(best) + parabolicOffset(at(best - 1), at(best), at(best + 1))) * seconds
    }

    /// The shortest section a tempo change makes: 12 s (a crew's mix holds a song longer; a
    /// fill or a break is shorter).
    static let shortestSection = 12.0
    /// Tempos further apart than this (in octaves, either folded into one octave) are another
    /// section's: 0.07 is 5 %.
    static let apart = 0.07

    /// The track's stretches of one tempo, each with the period where its rows repeat most
    /// (weighed by the prior): one section for a song at one tempo, or one that drifts; a
    /// section more where the tempo moves by more than 5 % (up to an octave: 128 after 88 is
    /// 176's half) and stays there for at least 12 s. Each row's tempo is the best of its own
    /// (folded into one octave), the median of nine rows (6.7 s) around it.
    func sections() -> [TempoSection] {
        let range = 60 / TempoReading.counted.upperBound...60 / TempoReading.counted.lowerBound
        let prior = { (p: Double) in TempoReading.prior(60 / p) }
        guard let whole = bestPeriod(in: range, weight: prior) else { return [] }
        let minimum = Int((Self.shortestSection / (0.74)).rounded())
        let all = [TempoSection(start: 0, end: .infinity, period: whole)]
        guard starts.count >= 2 * minimum else { return all }
        let n = lags.count
        // Each row's tempo as a fraction of an octave (0 ..< 1): where on the circle it lies.
        let folded = (0..<starts.count).map { r -> Double in
            let row = (0..<n).map { Double(rows[r * n + $0]) }
            let p = Self.peak(row, lags: lags, seconds: seconds, in: range, weight: prior) ?? whole
            let o = log2(p)
            return o - o.rounded(.down)
        }
        func distance(_ a: Double, _ b: Double) -> Double { let d = abs(a - b); return min(d, 1 - d) }
        // The circular median of a stretch: the value nearest all the others.
        func median(_ v: ArraySlice<Double>) -> Double { v.min { a, b in v.reduce(0) { $0 + distance($1, a) } < v.reduce(0) { $0 + distance($1, b) } }! }
        let smooth = folded.indices.map { median(folded[max($0 - 4, 0)..<min($0 + 5, folded.count)]) }
        // A new section where the tempo leaves the section's own and stays away for `minimum`
        // rows; sections shorter than that are none.
        var bounds = [0]
        var reference = median(smooth[0..<minimum])
        var r = minimum
        while r + minimum <= smooth.count {
            if smooth[r..<(r + minimum)].allSatisfy({ distance($0, reference) > Self.apart }) {
                bounds.append(r)
                reference = median(smooth[r..<(r + minimum)])
                r += minimum
            } else {
                r += 1
            }
        }
        guard bounds.count > 1 else { return all }
        bounds.append(starts.count)
        let centre = Double(width) / 2
        return (0..<(bounds.count - 1)).map { k in
            let rows = bounds[k]..<bounds[k + 1]
            return TempoSection(start: k == 0 ? 0 : (Double(starts[bounds[k]]) + centre) * seconds,
                                end: k == bounds.count - 2 ? .infinity : (Double(starts[bounds[k + 1]]) + centre) * seconds,
                                period: bestPeriod(in: range, rows: rows, weight: prior) ?? whole)
        }
    }
}

/// A stretch of a track at one tempo: from `start` to `end` (seconds), a beat every `period`
/// seconds (in the octave the tempogram and the prior favour; the onsets choose the counted one).
struct TempoSection {
    var start: Double
    var end: Double
    var period: Double
}

/// Where the peak of a parabola through three neighbouring values lies, in steps from the middle
/// one (within half a step; 0 where the middle one is no peak).
func parabolicOffset(_ a: Double, _ b: Double, _ c: Double) -> Double {
    a - 2 * b + c < 0 ? min(max(0.5 * (a - c) / (a - 2 * b + c), -0.5), 0.5) : 0
}

/// The sum of `v[i] × v[i + lag]` for `i` in `range`: an autocorrelation's term.
func laggedProduct(_ v: [Double], _ range: Range<Int>, lag: Int) -> Double {
    var sum = 0.0
    for i in range { sum += v[i] * v[i + lag] }
    return sum
}

/// An envelope on the analysis hop's grid (about 11.6 ms): the spectral flux, or the energy's
/// rise compressed (a drum's transient is not a hundred times a note's); its mean removed.
struct Envelope {
    let values: [Double]
    let seconds: Double

    init(values: [Double], seconds: Double) {
        self.values = values
        self.seconds = seconds
    }

    /// Each value averaged with its neighbours under a triangle `width` steps wide: a beat whose
    /// period falls between two steps then correlates at both (a sharp envelope would match
    /// only every other beat at either).
    func smoothed(_ width: Int) -> Envelope {
        guard width > 1, values.count > width else { return self }
        let w = (0..<width).map { Double(min($0 + 1, width - $0)) }
        let total = w.reduce(0, +)
        var out = [Double](repeating: 0, count: values.count)
        for i in values.indices {
            var sum = 0.0
            for (k, x) in w.enumerated() { let j = i + k - width / 2; if j >= 0 && j < values.count { sum += x * values[j] } }
            out[i] = sum / total
        }
        return Envelope(values: out, seconds: seconds)
    }

    /// The spectral flux's values, their mean removed.
    init(flux: [Float], seconds: Double) {
        let mean = flux.reduce(0) { $0 + Double($1) } / Double(max(flux.count, 1))
        values = flux.map { Double($0) - mean }
        self.seconds = seconds
    }

    /// The period the beat has around each step: in windows of 8 s every 2 s, the lag at which
    /// the envelope repeats most, each lag weighed by its nearness to the neighbouring window's
    /// (a quarter away weighs 0.6, half an octave 0.2), from the window of each section where its
    /// period repeats most, forwards and backwards to the section's ends; between the windows'
    /// centres, a straight line. A song that speeds up, or a verse at 100 bpm and a chorus at 120,
    /// is followed one window at a time, between 40 and 210 bpm; a jump further than that is
    /// another section.
    func localPeriods(_ sections: [TempoSection]) -> [Double] {
        let n = values.count
        let width = Int(8 / seconds), hop = max(1, Int(2 / seconds))
        let lo = max(2, Int((60 / TempoReading.counted.upperBound / seconds).rounded(.down)))
        let hi = max(lo, Int((60 / TempoReading.counted.lowerBound / seconds).rounded(.up)))
        func inRange(_ step: Double) -> Bool { step >= Double(lo) && step <= Double(hi) }
        guard !sections.isEmpty, n > width, hi + 1 < width / 2, sections.allSatisfy({ inRange($0.period / seconds) }) else {
            return [Double](repeating: (sections.first?.period ?? 0) / seconds, count: n)
        }
        let starts = Array(stride(from: 0, through: n - width, by: hop))
        let centres = starts.map { $0 + width / 2 }
        func correlation(_ start: Int, _ lag: Int) -> Double {
            laggedProduct(values, start..<(start + width - lag), lag: lag) / Double(width - lag)
        }
        func read(_ k: Int, near previous: Double) -> Double {
            let near = max(lo, Int((previous / 1.3).rounded(.down))), far = min(hi, Int((previous * 1.3).rounded(.up)))
            guard near + 1 < far else { return previous }
            let ac = (near...far).map { correlation(starts[k], $0) }
            var best = 1, bestScore = -Double.infinity
            for j in 1..<(ac.count - 1) {
                let o = log(Double(near + j) / previous), score = ac[j] * exp(-8 * o * o)
                if score > bestScore { bestScore = score; best = j }
            }
            // A window with nothing repeating keeps its neighbour's period.
            guard ac[best] > 0 else { return previous }
            return Double(near + best) + parabolicOffset(ac[best - 1], ac[best], ac[best + 1])
        }
        var found = [Double](repeating: 0, count: starts.count)
        // Each section's windows (those centred in it; a section too short for one of its own
        // takes the window nearest it), read from its anchor outwards.
        for section in sections {
            let step = section.period / seconds
            var mine = starts.indices.filter { Double(centres[$0]) * seconds >= section.start && Double(centres[$0]) * seconds < section.end }
            if mine.isEmpty { mine = [starts.indices.min { abs(Double(centres[$0]) * seconds - section.start) < abs(Double(centres[$1]) * seconds - section.start) }!] }
            let anchor = mine.max { correlation(starts[$0], Int(step.rounded())) < correlation(starts[$1], Int(step.rounded())) }!
            found[anchor] = read(anchor, near: step)
            for k in stride(from: anchor + 1, through: mine.last!, by: 1) { found[k] = read(k, near: found[k - 1]) }
            for k in stride(from: anchor - 1, through: mine.first!, by: -1) { found[k] = read(k, near: found[k + 1]) }
        }
        // A window's reading against its neighbours' in its section: the median of three.
        let section = starts.indices.map { k in sections.lastIndex { Double(centres[k]) * seconds >= $0.start } ?? 0 }
        let steady = found.indices.map { k -> Double in
            let around = [k - 1, k, k + 1].filter { found.indices.contains($0) && section[$0] == section[k] }.map { found[$0] }.sorted()
            return around.count == 3 ? around[1] : found[k]
        }
        var out = [Double](repeating: 0, count: n)
        var k = 0
        for t in 0..<n {
            while k + 1 < centres.count, centres[k + 1] <= t { k += 1 }
            if t <= centres[0] { out[t] = steady[0] } else if k + 1 >= centres.count { out[t] = steady[k] } else {
                let f = Double(t - centres[k]) / Double(centres[k + 1] - centres[k])
                out[t] = steady[k] + f * (steady[k + 1] - steady[k])
            }
        }
        return out
    }

    /// Beats about each section's period apart (as the music around them has it: `localPeriods`)
    /// where the onsets are strongest, found as Ellis's dynamic-programming tracker finds them
    /// (and librosa's): each step's best score is its own onset strength (this envelope's and
    /// `other`'s, on the same grid, each against its spread) plus the best score a beat before
    /// it, minus a penalty growing with the square of how far (in octaves) that gap is from the
    /// period there; the beats are read back from the best step near the end. Linear in the steps
    /// times the period's length.
    func track(sections: [TempoSection], with other: Envelope) -> [Double] {
        let n = min(values.count, other.values.count)
        guard let period = sections.map(\.period).max(), sections.allSatisfy({ $0.period / seconds >= 2 }), n > Int(2 * period / seconds) else { return [] }
        let steps = localPeriods(sections)
        func spread(_ v: [Double]) -> Double {
            let s = (v.prefix(n).reduce(0) { $0 + $1 * $1 } / Double(n)).squareRoot()
            return s > 0 ? s : 1
        }
        let a = spread(values), b = spread(other.values)
        let strength = (0..<n).map { values[$0] / a + other.values[$0] / b }
        // librosa's "tightness": how far a gap may stray from the period.
        let tightness = 100.0
        var score = [Double](repeating: 0, count: n), back = [Int](repeating: -1, count: n)
        for t in 0..<n {
            let step = steps[t]
            let lo = max(1, Int((step / 2).rounded())), hi = Int((2 * step).rounded())
            var best = 0.0, from = -1
            if t >= lo {
                for gap in lo...min(hi, t) {
                    let o = log(Double(gap) / step)
                    let s = score[t - gap] - tightness * o * o
                    if from < 0 || s > best { best = s; from = t - gap }
                }
            }
            // A first beat starts a chain of its own where nothing before it scores.
            if from >= 0, best > 0 { score[t] = strength[t] + best; back[t] = from } else { score[t] = strength[t] }
        }
        var last = n - 1
        for t in max(0, n - Int(steps[n - 1].rounded(.up)))..<n where score[t] > score[last] { last = t }
        var beats: [Double] = []
        var t = last
        while t >= 0 { beats.append(Double(t) * seconds); t = back[t] }
        return beats.reversed()
    }

    /// How much of the beats' onset their quarters carry: between each beat and the next, the
    /// weaker of the strongest values near a quarter and three quarters of the way, against the
    /// strongest near the beat (medians over the beats; values over the envelope's least).
    func quarters(_ beats: [Double]) -> Double {
        guard beats.count >= 3, let floor = values.min() else { return 0 }
        func strength(_ t: Double, reach: Double) -> Double {
            let i0 = max(Int(((t - reach) / seconds).rounded(.down)), 0), i1 = min(Int(((t + reach) / seconds).rounded(.up)), values.count - 1)
            return i0 <= i1 ? values[i0...i1].max()! - floor : 0
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        var on: [Double] = [], quarter: [Double] = []
        for k in 0..<(beats.count - 1) {
            let gap = beats[k + 1] - beats[k], reach = min(0.03, 0.1 * gap), near = min(0.03, 0.05 * gap)
            on.append(strength(beats[k], reach: reach))
            quarter.append(min(strength(beats[k] + gap / 4, reach: near), strength(beats[k] + 3 * gap / 4, reach: near)))
        }
        let beat = median(on)
        return beat > 0 ? median(quarter) / beat : 0
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
            best = max(best, laggedProduct(values, 0..<(n - lag), lag: lag) / Double(n - lag) / power)
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

    /// The strength of the strongest rise within `reach` seconds of `t` (0 where none).
    func strength(at t: Double, reach: Double = 0.02) -> Double {
        Double(peak(from: t - reach, to: t + reach)?.strength ?? 0)
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
            func total(_ phase: Int) -> Double { stride(from: phase, to: beats.count, by: 2).reduce(0) { $0 + strength(at: beats[$1]) } }
            let phase = total(1) > total(0) * 1.05 ? 1 : 0
            return stride(from: phase, to: beats.count, by: 2).map { beats[$0] }
        }
        let parts = Int(factor.rounded())
        guard parts > 1 else { return beats }
        let typical = beats.map { strength(at: $0) }.sorted()[beats.count / 2]
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

    /// How strongly the beats stand out: the rise of the beat a quarter of them exceed, against a
    /// window's mean energy. A steady tone's ripple is a few hundredths; a note or a drum
    /// starting, a tenth and more.
    func salience(_ beats: [Double]) -> Double {
        guard !beats.isEmpty, typicalLevel > 0 else { return 0 }
        let strengths = beats.map { strength(at: $0) }.sorted()
        return strengths[strengths.count * 3 / 4] / Double(typicalLevel)
    }

    /// How strong the onsets are halfway (and a third of the way) between the beats, and on
    /// every other beat, each against the beats' (medians, compressed as the envelope is).
    func evidence(_ beats: [Double]) -> (halves: Double, thirds: Double, alternate: Double) {
        guard beats.count >= 3 else { return (0, 0, 1) }
        let scale = max(rise.reduce(0) { $0 + Double($1) } / Double(max(rise.count, 1)), 1e-20)
        func strength(_ t: Double, reach: Double) -> Double { log1p(self.strength(at: t, reach: reach) / scale) }
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

    /// Each beat moved onto the onset within 40 ms of it, if there is one.
    func snap(_ beats: [Double]) -> [Double] {
        Self.distinct(beats.map { t in peak(from: t - 0.04, to: t + 0.04).map(\.time) ?? t }, gap: Self.shortestBeat)
    }

    /// Without the beats at either end that have hardly any onset (the tracker's chain runs from
    /// the track's first step to its last, through a silent start or a fade): those whose onset
    /// is weaker than a twentieth of the median beat's.
    func trimmed(_ beats: [Double]) -> [Double] {
        let strengths = beats.map { strength(at: $0) }
        guard !strengths.isEmpty else { return beats }
        let threshold = 0.05 * strengths.sorted()[strengths.count / 2]
        guard let first = strengths.firstIndex(where: { $0 > threshold }), let last = strengths.lastIndex(where: { $0 > threshold }) else { return [] }
        return Array(beats[first...last])
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
}
