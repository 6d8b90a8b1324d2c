import FoundationEssentials
import PracticeAudio
import PracticeDocuments

/// How one copy of a song lines up with another, from their Chromaprint fingerprints: the shift
/// at which the most fingerprint bits agree. (The specification: Formats/practice-sidecar.md,
/// "Other copies of the song".)
public struct Alignment: Sendable, Equatable {
    /// Seconds to add to a time on the reference copy to get the same music on this copy.
    public var offset: Double
    /// The share of fingerprint bits that agree over the overlap, from 0 to 1 (unrelated audio
    /// scores about 0.5; another encode of the same audio 0.9 and more).
    public var similarity: Double
    /// Seconds of audio the two copies share at that offset.
    public var overlap: Double

    /// Similar enough, over enough music, to move markers by it.
    public var isConfident: Bool { similarity >= Self.confidentSimilarity && overlap >= min(Self.confidentOverlap, overlapNeeded) }
    /// Set by `align`: the overlap asked of this pair (30 s, or most of a shorter song).
    var overlapNeeded = Alignment.confidentOverlap

    public static let confidentSimilarity = 0.9
    public static let confidentOverlap = 30.0

    public init(offset: Double, similarity: Double, overlap: Double) {
        self.offset = offset; self.similarity = similarity; self.overlap = overlap
    }

    /// The best single offset between `reference` (the fingerprint a sidecar was made on) and
    /// `this` (the copy in hand), within ±`maxShift` seconds; nil when they share too little.
    public static func align(reference: [UInt32], this: [UInt32], itemSeconds: Double, maxShift: Double = 60, around center: Double = 0) -> Alignment? {
        guard !reference.isEmpty, !this.isEmpty, itemSeconds > 0 else { return nil }
        let shortest = min(reference.count, this.count)
        // Shifts are compared over at least half of the shorter copy (and 8 s), so that a short
        // overlap cannot look similar by chance.
        let minimumOverlap = max(min(shortest / 2, Int(confidentOverlap / itemSeconds)), min(Int(8 / itemSeconds), shortest))
        let limit = Int((maxShift / itemSeconds).rounded(.up)), middle = Int((center / itemSeconds).rounded())
        var best: (shift: Int, similarity: Double, overlap: Int)?
        for shift in (middle - limit)...(middle + limit) {
            // reference[i] against this[i + shift]
            let from = max(0, -shift), to = min(reference.count, this.count - shift)
            let overlap = to - from
            guard overlap >= minimumOverlap else { continue }
            var differing = 0
            for i in from..<to { differing += (reference[i] ^ this[i + shift]).nonzeroBitCount }
            let similarity = 1 - Double(differing) / Double(32 * overlap)
            if best.map({ similarity > $0.similarity }) ?? true { best = (shift, similarity, overlap) }
        }
        guard let best else { return nil }
        var a = Alignment(offset: Sidecar.milliseconds(Double(best.shift) * itemSeconds), similarity: best.similarity,
                          overlap: Double(best.overlap) * itemSeconds)
        a.overlapNeeded = Double(minimumOverlap) * itemSeconds
        return a
    }

    /// `coarse` made finer than one fingerprint item (124 ms): this copy's audio, `span` seconds
    /// from near the start of `range`, is fingerprinted again from `steps` starting points within one
    /// item, and the start whose items agree best with the reference's gives the offset (to about
    /// 124 ms ÷ `steps`). The reference needs only its fingerprint, as a sidecar keeps it. The
    /// window is decoded once and taken to Chromaprint's own rate and one channel once (soxr), so
    /// that the eight passes only fingerprint.
    public static func refine(_ coarse: Alignment, reference: [UInt32], this track: Track, steps: Int = 8,
                              within range: ClosedRange<Double>? = nil, span wanted: Double = 15) throws(PracticeError) -> Alignment {
        let timing: (item: Double, window: Double, rate: Int)
        do { timing = try Fingerprinter.timing() } catch { throw PracticeError(.unavailable, error.message) }
        let item = timing.item, rate = timing.rate
        let whole = range ?? 0...track.duration
        let span = min(wanted, whole.upperBound - whole.lowerBound)
        // Near the start of the range (a few seconds in, past any fade): seeking far into an MP3
        // costs more than fingerprinting.
        let windowStart = max(0, whole.lowerBound + min(5, whole.upperBound - whole.lowerBound - span))
        let samples: [Int16]
        do {
            samples = try Self.mono(track, from: windowStart, seconds: min(span + item, track.duration - windowStart), rate: rate)
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error.message)")
        }
        let channels = 1
        var best: (offset: Double, similarity: Double)?
        for k in 0..<steps {
            let skip = Int((Double(k) / Double(steps) * item * Double(rate)).rounded())
            guard skip * channels < samples.count else { break }
            let raw: [UInt32]
            do {
                let fingerprinter = try Fingerprinter(sampleRate: rate, channels: channels)
                try samples.withUnsafeBufferPointer { (all) throws(ChromaprintError) in try fingerprinter.feed(UnsafeBufferPointer(rebasing: all[(skip * channels)...])) }
                raw = try fingerprinter.finish()
            } catch {
                throw PracticeError(.unavailable, error.message)
            }
            let start = windowStart + Double(skip) / Double(rate)
            // This window's item j is at start + j·item on this copy, so near the coarse offset
            // the reference's item i meets item i + (offset − start) ÷ item.
            guard let found = align(reference: reference, this: raw, itemSeconds: item, maxShift: 2 * item, around: coarse.offset - start),
                  best.map({ found.similarity > $0.similarity }) ?? true else { continue }
            best = (start + found.offset, found.similarity)
        }
        // The similarity and overlap stay the whole song's; only the offset is made finer.
        var refined = coarse
        if let best { refined.offset = Sidecar.milliseconds(best.offset) }
        return refined
    }

    /// `seconds` of the track from `start`, mixed to one channel and resampled to `rate` (soxr),
    /// as 16-bit samples.
    static func mono(_ track: Track, from start: Double, seconds: Double, rate: Int) throws(PracticeError) -> [Int16] {
        let inRate = track.info.sampleRate, channels = track.info.channels
        let frames = max(Int(seconds * Double(inRate)), 0)
        var interleaved = [Float](repeating: 0, count: frames * channels)
        var got = 0
        do {
            let file = try SoundFile(path: track.path)
            try file.seek(toFrame: Int(start * Double(inRate)))
            got = interleaved.withUnsafeMutableBufferPointer { b in
                var done = 0
                while done < frames {
                    let n = file.read(into: b.baseAddress! + done * channels, frames: frames - done)
                    if n <= 0 { break }
                    done += n
                }
                return done
            }
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error.message)")
        }
        var mono = [Float](repeating: 0, count: got)
        for i in 0..<got {
            var sum: Float = 0
            for c in 0..<channels { sum += interleaved[i * channels + c] }
            mono[i] = sum / Float(channels)
        }
        var out: [Float]
        do {
            let resampler = try Resampler(inputRate: Double(inRate), outputRate: Double(rate), channels: 1)
            out = [Float](repeating: 0, count: resampler.outputCapacity(forInput: got) + 1024)
            var produced = 0, consumed = 0
            try out.withUnsafeMutableBufferPointer { (o) throws(SoxrError) in
                try mono.withUnsafeBufferPointer { (m) throws(SoxrError) in
                    while consumed < got {
                        let r = try resampler.process(m.baseAddress! + consumed, frames: got - consumed, into: o.baseAddress! + produced, capacity: o.count - produced)
                        consumed += r.consumed; produced += r.produced
                        if r.consumed == 0 && r.produced == 0 { break }
                    }
                    while produced < o.count {
                        let r = try resampler.process(nil, frames: 0, into: o.baseAddress! + produced, capacity: o.count - produced)
                        if r.produced == 0 { break }
                        produced += r.produced
                    }
                }
            }
            out.removeLast(out.count - produced)
        } catch {
            throw PracticeError(.software, "resampling for the fingerprint failed: \(error)")
        }
        return out.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
    }

    /// The alignment of the copy whose identity is `this` with the one a sidecar recorded, from
    /// their stored fingerprints; nil when either has none or they do not decode.
    public static func align(reference: TrackIdentity, this: TrackIdentity) -> Alignment? {
        guard let a = reference.chromaprint, let b = this.chromaprint,
              let ra = try? Fingerprinter.decode(a.fingerprint), let rb = try? Fingerprinter.decode(b.fingerprint),
              ra.algorithm == rb.algorithm, let item = try? Fingerprinter.itemSeconds() else { return nil }
        guard var found = align(reference: ra.raw, this: rb.raw, itemSeconds: item) else { return nil }
        found.offset = Sidecar.milliseconds(found.offset + b.start - a.start)
        return found
    }
}
