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

    /// `coarse` made finer than one fingerprint item (124 ms): this copy's audio, a minute of it
    /// from its middle, is fingerprinted again from `steps` starting points within one item,
    /// and the start whose items agree best with the reference's gives the offset (to about
    /// 124 ms ÷ `steps`). The reference needs only its fingerprint, as a sidecar keeps it.
    public static func refine(_ coarse: Alignment, reference: [UInt32], this track: Track, steps: Int = 8,
                              within range: ClosedRange<Double>? = nil) throws(PracticeError) -> Alignment {
        let item: Double
        do { item = try Fingerprinter.itemSeconds() } catch { throw PracticeError(.unavailable, error.message) }
        let rate = track.info.sampleRate, channels = track.info.channels
        // A minute from the middle of `range` (of this copy; default the whole track).
        let whole = range ?? 0...track.duration
        let span = min(60.0, whole.upperBound - whole.lowerBound)
        let windowStart = max(0, (whole.lowerBound + whole.upperBound) / 2 - span / 2)
        // The window, decoded once (60 s of 16-bit samples: about 10 MB for stereo at 44.1 kHz).
        var samples: [Int16] = []
        do {
            let file = try SoundFile(path: track.path)
            try file.seek(toFrame: Int(windowStart * Double(rate)))
            let frames = Int(min(span + item, track.duration - windowStart) * Double(rate))
            samples = [Int16](repeating: 0, count: frames * channels)
            let n = samples.withUnsafeMutableBufferPointer { file.readShorts(into: $0.baseAddress!, frames: frames) }
            samples.removeLast(max(frames - max(n, 0), 0) * channels)
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error.message)")
        }
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
