// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeAudio
import PracticeDocuments
import PracticeSystem

/// Lining up a whole copy of a song with the one a sidecar was made on: one offset, or one for
/// each part where a section was cut or added, each made finer with this copy's audio.
extension Alignment {
    /// A stretch of the reference's fingerprint items, `from..<to`, found on this copy `shift`
    /// items later.
    struct Run: Equatable {
        var from: Int
        var to: Int
        var shift: Int
        /// Fingerprint bits that differ over the run.
        var differing: Int
        var count: Int { to - from }
    }

    /// Items whose 32 bits differ in at most this many, on average over `smoothing` items, count
    /// as the same music (another encode differs in about 3, unrelated audio in 16).
    static let sameMusicBits = 10.0
    static let smoothing = 16
    /// A part shorter than this is not trusted (a bar or two of a chorus repeats elsewhere).
    static let shortestPart = 10.0
    /// At most this many parts (two cuts or additions): more is another performance, not an edit.
    static let mostParts = 3

    /// The runs of `reference` found on `this`, in order on both (no part moves past another):
    /// the longest run at the best single shift, then the same again before it and after it.
    static func runs(reference r: [UInt32], this t: [UInt32], itemSeconds: Double,
                     r0: Int = 0, r1: Int? = nil, t0: Int = 0, t1: Int? = nil, depth: Int = 0) -> [Run] {
        let r1 = r1 ?? r.count, t1 = t1 ?? t.count
        let shortest = Int(shortestPart / itemSeconds)
        guard depth < 4, r1 - r0 >= shortest, t1 - t0 >= shortest,
              let best = align(reference: Array(r[r0..<r1]), this: Array(t[t0..<t1]), itemSeconds: itemSeconds) else { return [] }
        // reference[i] meets this[i + shift]
        let shift = Int((best.offset / itemSeconds).rounded()) + t0 - r0
        let from = max(r0, t0 - shift), to = min(r1, t1 - shift)
        guard to - from >= shortest else { return [] }
        let bits = (from..<to).map { Double((r[$0] ^ t[$0 + shift]).nonzeroBitCount) }
        // The longest stretch whose smoothed difference stays low.
        let half = smoothing / 2
        var prefix = [0.0]
        for b in bits { prefix.append(prefix.last! + b) }
        func smoothed(_ i: Int) -> Double {
            let a = max(0, i - half), b = min(bits.count, i + half)
            return (prefix[b] - prefix[a]) / Double(b - a)
        }
        var longest: (Int, Int)?, start: Int?
        for i in 0...bits.count {
            let same = i < bits.count && smoothed(i) <= sameMusicBits
            if same, start == nil { start = i }
            if !same, let s = start {
                if longest.map({ i - s > $0.1 - $0.0 }) ?? true { longest = (s, i) }
                start = nil
            }
        }
        guard var (a, b) = longest, b - a >= shortest else { return [] }
        // The smoothing blurs the ends by half its width: trim items that do not match.
        while a < b && bits[a] > sameMusicBits { a += 1 }
        while b > a && bits[b - 1] > sameMusicBits { b -= 1 }
        guard b - a >= shortest else { return [] }
        let run = Run(from: from + a, to: from + b, shift: shift, differing: Int(prefix[b] - prefix[a]))
        let before = runs(reference: r, this: t, itemSeconds: itemSeconds, r0: r0, r1: run.from, t0: t0, t1: run.from + shift, depth: depth + 1)
        let after = runs(reference: r, this: t, itemSeconds: itemSeconds, r0: run.to, r1: r1, t0: run.to + shift, t1: t1, depth: depth + 1)
        return before + [run] + after
    }

    /// Seconds from an item's start to the middle of the audio it stands for (Chromaprint's
    /// 2.6 s window): where a cut found between two items is placed.
    static let itemCentre = 1.3

    /// The map from `reference`'s times to this copy's, from the two fingerprints; `refine`
    /// makes each part's offset finer (the engine passes this copy's audio). Not confident when
    /// the parts matched are too few, too short or too unlike.
    static func map(reference r: [UInt32], this t: [UInt32], itemSeconds item: Double, startDifference: Double,
                    duration: Double, refine: (Alignment, ClosedRange<Double>) throws(PracticeError) -> Double) throws(PracticeError) -> TimeMap? {
        let found = runs(reference: r, this: t, itemSeconds: item)
        guard !found.isEmpty else {
            // Nothing like it: the best single shift, only for its score.
            guard let best = align(reference: r, this: t, itemSeconds: item) else { return nil }
            return TimeMap(offset: best.offset + startDifference, similarity: best.similarity, matched: 0, duration: duration, isConfident: false)
        }
        var offsets: [Double] = []
        for run in found {
            let coarse = Alignment(offset: Sidecar.milliseconds(Double(run.shift) * item), similarity: 1, overlap: 0)
            let here = (Double(run.from + run.shift) * item)...(Double(run.to + run.shift) * item + 2 * itemCentre)
            offsets.append(Sidecar.milliseconds(try refine(coarse, here) + startDifference))
        }
        let items = found.reduce(0) { $0 + $1.count }
        let similarity = 1 - Double(found.reduce(0) { $0 + $1.differing }) / Double(32 * items)
        let matched = Double(items) * item
        // The step function: each part reaches halfway into the unmatched stretch after it; audio
        // cut from this copy (the next part's offset is smaller) is missing in the middle of it.
        var pieces = [TimeMap.Piece(start: 0, offset: offsets[0])]
        for k in 1..<found.count {
            let end = Double(found[k - 1].to) * item + itemCentre, next = Double(found[k].from) * item + itemCentre
            let cut = max(offsets[k - 1] - offsets[k], 0)
            let margin = max(next - end - cut, 0) / 2
            if cut > 0 { pieces.append(TimeMap.Piece(start: Sidecar.milliseconds(end + margin), offset: nil)) }
            pieces.append(TimeMap.Piece(start: Sidecar.milliseconds(next - (cut > 0 ? margin : max(next - end, 0) / 2)), offset: offsets[k]))
        }
        let shorter = Double(min(r.count, t.count)) * item
        let confident = similarity >= 0.85 && found.count <= mostParts && matched >= min(0.6 * shorter, confidentOverlap)
            && found.allSatisfy { Double($0.count) * item >= shortestPart }
        return TimeMap(pieces: pieces, similarity: similarity, matched: Sidecar.milliseconds(matched), duration: duration, isConfident: confident)
    }
}

extension TimeMap {
    /// How the copy whose identity is `reference` lines up with the copy whose identity is
    /// `this`, from their fingerprints alone (no audio: to a fingerprint item, ±62 ms), as the git
    /// merge driver needs when two versions of a sidecar were made on different copies.
    public static func between(reference: TrackIdentity, this: TrackIdentity) -> TimeMap? {
        guard let theirs = reference.chromaprint, let ours = this.chromaprint,
              let a = try? Fingerprinter.decode(theirs.fingerprint), let b = try? Fingerprinter.decode(ours.fingerprint),
              a.algorithm == b.algorithm, let item = try? Fingerprinter.itemSeconds() else { return nil }
        return try? Alignment.map(reference: a.raw, this: b.raw, itemSeconds: item, startDifference: ours.start - theirs.start,
                                  duration: this.duration) { (coarse, _) throws(PracticeError) in coarse.offset }
    }
}

extension Track {
    /// How the copy whose identity is `reference` (a sidecar's `audio`) lines up with this track:
    /// from the two fingerprints, each part's offset made finer with this track's audio. Kept
    /// under `XDG.cache/alignment` (keyed by this file, as the identity is, and the reference's
    /// fingerprint), so the next open reads it instead.
    public func alignment(to reference: TrackIdentity) throws(PracticeError) -> TimeMap? {
        guard let theirs = reference.chromaprint else { return nil }
        let key = TrackIdentity.cacheKey(path).map { k in
            SHA256.hash(data: Array("alignment v1\0\(k)\0\(theirs.algorithm)\0\(theirs.start)\0\(theirs.fingerprint)".utf8)).hex
        }
        let cacheFile = key.map { Path.appending("alignment/\($0).json", to: XDG.cache) }
        if let cacheFile, let bytes = ReadableFile.wholeFile(cacheFile), let json = try? JSONValue.parse(bytes), var known = TimeMap(json: json) {
            known.kept = true
            return known
        }
        guard let ours = try identity().chromaprint else { return nil }
        // Loading Chromaprint (it brings FFmpeg's libraries: some 20 ms) overlaps decoding the
        // window that most first parts are made finer with (from 5 s in; see `Alignment.window`).
        let early = Alignment.window(within: 0...duration, item: 0.13)
        let prefetched = Locked<Alignment.Window?>(nil)
        let decoding = ControlThread(name: "practice-window") { [self] in
            let window = try? Alignment.Window(self, start: early.start, seconds: early.seconds, rate: 11_025)
            prefetched.withLock { $0 = window }
        }
        defer { decoding.join() }
        guard let a = try? Fingerprinter.decode(theirs.fingerprint), let b = try? Fingerprinter.decode(ours.fingerprint),
              a.algorithm == b.algorithm, let item = try? Fingerprinter.itemSeconds() else { return nil }
        let found = try Alignment.map(reference: a.raw, this: b.raw, itemSeconds: item, startDifference: ours.start - theirs.start,
                                      duration: duration) { (coarse, range) throws(PracticeError) in
            decoding.join()
            return try Alignment.refine(coarse, reference: a.raw, this: self, within: range, prefetched: prefetched.withLock { $0 }).offset
        }
        if let found, let cacheFile {
            // Best effort: a cache we cannot write only costs time.
            try? AtomicFile.write(Data(found.json.pretty().utf8), to: cacheFile, makingFolder: 0o755)
        }
        return found
    }
}
