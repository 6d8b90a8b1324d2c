// SPDX-License-Identifier: GPL-3.0-or-later
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

    /// `coarse` made finer than one fingerprint item (124 ms): this copy's audio, 10 s near the
    /// start of `range` (`window`), is fingerprinted again from `steps` starting points within
    /// one item, and the start whose items agree best with the reference's gives the offset (to
    /// about 124 ms ÷ `steps`). The reference needs only its fingerprint, as a sidecar keeps it.
    /// The window is decoded once and taken to Chromaprint's own rate and one channel once
    /// (soxr), so that the passes only fingerprint; `prefetched` is that window when the caller
    /// decoded it already.
    public static func refine(_ coarse: Alignment, reference: [UInt32], this track: Track, steps: Int = 8,
                              within range: ClosedRange<Double>? = nil, prefetched: Window? = nil) throws(PracticeError) -> Alignment {
        let timing: (item: Double, window: Double, rate: Int)
        do { timing = try Fingerprinter.timing() } catch { throw PracticeError(.unavailable, error.message) }
        let item = timing.item, rate = timing.rate
        let wanted = window(within: range ?? 0...track.duration, item: item)
        let samples: [Int16]
        if let prefetched, prefetched.start == wanted.start, prefetched.rate == rate, prefetched.seconds >= wanted.seconds {
            samples = Array(prefetched.samples.prefix(Int(wanted.seconds * Double(rate))))
        } else {
            samples = try Window(track, start: wanted.start, seconds: wanted.seconds, rate: rate).samples
        }
        let windowStart = wanted.start
        // Fingerprinted from `k`/`steps` of an item into the window: where that puts the
        // reference's items on this copy, and how well they agree.
        func pass(_ k: Int) throws(PracticeError) -> (offset: Double, similarity: Double)? {
            let skip = Int((Double(k) / Double(steps) * item * Double(rate)).rounded())
            guard skip < samples.count else { return nil }
            let raw: [UInt32]
            do {
                let fingerprinter = try Fingerprinter(sampleRate: rate, channels: 1)
                try samples.withUnsafeBufferPointer { (all) throws(ChromaprintError) in try fingerprinter.feed(UnsafeBufferPointer(rebasing: all[skip...])) }
                raw = try fingerprinter.finish()
            } catch {
                throw PracticeError(.unavailable, error.message)
            }
            let start = windowStart + Double(skip) / Double(rate)
            // This window's item j is at start + j·item on this copy, so near the coarse offset
            // the reference's item i meets item i + (offset − start) ÷ item.
            return align(reference: reference, this: raw, itemSeconds: item, maxShift: 2 * item, around: coarse.offset - start)
                .map { (start + $0.offset, $0.similarity) }
        }
        // Every other start, then the two beside the best of them (the agreement rises and falls
        // once over an item): 6 passes where trying all 8 finds the same.
        var tried: [Int: (offset: Double, similarity: Double)] = [:]
        for k in stride(from: 0, to: steps, by: 2) { tried[k] = try pass(k) }
        if let first = tried.max(by: { $0.value.similarity < $1.value.similarity })?.key {
            for k in [(first + steps - 1) % steps, (first + 1) % steps] where tried[k] == nil { tried[k] = try pass(k) }
        }
        let best = tried.values.max { $0.similarity < $1.similarity }
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

extension Alignment {
    /// A part of a copy decoded for `refine`: `seconds` from `start`, mixed to one channel and
    /// taken to `rate` (Chromaprint's own) with soxr, as 16-bit samples.
    public struct Window: Sendable {
        public let start: Double
        public let seconds: Double
        public let rate: Int
        public let samples: [Int16]

        public init(_ track: Track, start: Double, seconds: Double, rate: Int) throws(PracticeError) {
            self.start = start; self.seconds = seconds; self.rate = rate
            let inRate = track.info.sampleRate, channels = track.info.channels
            let frames = max(Int(seconds * Double(inRate)), 0)
            var interleaved = [Float](repeating: 0, count: frames * channels)
            var got = 0
            do {
                let file = try SoundFile(path: track.path, audioStream: track.audioStream)
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
            let mono = [Float](unsafeUninitializedCapacity: got) { out, count in
                interleaved.withUnsafeBufferPointer { frames in
                    for i in 0..<got {
                        var sum: Float = 0
                        for c in 0..<channels { sum += frames[i * channels + c] }
                        out[i] = sum / Float(channels)
                    }
                }
                count = got
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
            self.samples = out.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
        }
    }

    /// Seconds `refine` decodes of a copy, and the cover of the last item started in them.
    static let windowSeconds = 10.0

    /// Where `refine` looks in a part found at `range` (seconds on this copy): from 5 s into the
    /// copy when the part covers that (seeking far into an MP3 costs more than fingerprinting,
    /// and most first parts do, so the caller can decode it early), else 5 s into the part or as
    /// late as fits.
    static func window(within range: ClosedRange<Double>, item: Double) -> (start: Double, seconds: Double) {
        let length = range.upperBound - range.lowerBound
        let span = min(windowSeconds, length)
        if range.lowerBound <= 5 && range.upperBound >= 5 + span { return (5, span + item) }
        return (max(0, range.lowerBound + min(5, length - span)), span + item)
    }
}
