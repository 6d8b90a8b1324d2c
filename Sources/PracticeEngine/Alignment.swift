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
    public static func align(reference: [UInt32], this: [UInt32], itemSeconds: Double, maxShift: Double = 60) -> Alignment? {
        guard !reference.isEmpty, !this.isEmpty, itemSeconds > 0 else { return nil }
        let shortest = min(reference.count, this.count)
        // Shifts are compared over at least half of the shorter copy (and 8 s), so that a short
        // overlap cannot look similar by chance.
        let minimumOverlap = max(min(shortest / 2, Int(confidentOverlap / itemSeconds)), min(Int(8 / itemSeconds), shortest))
        let limit = Int((maxShift / itemSeconds).rounded(.up))
        var best: (shift: Int, similarity: Double, overlap: Int)?
        for shift in -limit...limit {
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
