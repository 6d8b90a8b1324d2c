// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeAudio
import PracticeSystem

/// A plain render (one range, no loop) over both cores: the output is cut into pieces of about
/// 10 s, two threads stretch them at once, each on its own copy of the file, and the writer takes
/// them in order.
///
/// A piece after the first starts early (so that the stretcher has settled by the piece's start:
/// see `leadInSeconds`) and fades in over the 10 ms where the piece before it fades out. The two
/// are renditions of the same audio, but a stretcher's splices leave each a few milliseconds off
/// the other, in a phase of its own: so the piece is moved (by at most 10 ms) to where its start
/// is most like the end of the piece before, as the stretcher itself does at each splice. The
/// first piece is what one stream gives, to the sample; the length is one stream's, to the frame:
/// each piece starts on a source frame that is a whole number of output frames from the range's
/// start, and takes exactly its share of the output wherever it was moved to.
///
/// Only where that holds: no pitch shift and no resampling (a source frame per `rate` output
/// frames exactly, with `rate` a fraction of at most 100 in the denominator), a file read by
/// libsndfile whose seeks are exact, and enough output for two pieces.
struct SplitRender: Sendable {
    let path: String
    let audioStream: Int?
    let settings: PlaybackSettings
    let outputRate: Int
    let channels: Int
    /// The range in source frames, and the output frames one stream makes of it.
    let start: Int
    let end: Int
    let total: Int
    /// Output frames: where each piece starts (the first at 0), the lead-in of a piece after the
    /// first, and the crossfade between pieces.
    let starts: [Int]
    let leadInFrames: Int
    let fade: Int
    /// How far a piece may be moved to line up with the one before: as far as the crossfade is long.
    var reach: Int { fade }

    static let pieceSeconds = 10.0
    /// How early a piece after the first starts. SoundTouch copies the source a sequence at a
    /// time (30–90 ms with our profiles and its own) and splices each to the one before: from its
    /// first sequence on it plays the source, so 0.1 s is enough. Rubber Band's phase vocoder
    /// takes its phases from the frames before: a quarter of a second. Measured on 84 seams per
    /// profile (four wesnoth songs, 60 s each, at 0.5×, 0.8× and 1.25×), as the normalised
    /// correlation of the two sides at the chosen shift: with SoundTouch 0.92–0.94 on average at
    /// 0.1 s against 0.89–0.94 at 0.25 s, and no lower at 0.05 s; with Rubber Band 0.73 at 0.25 s
    /// and 0.71–0.72 at 0.15, 0.1 and 0.05 s.
    static func leadInSeconds(_ quality: StretchQuality) -> Double { quality == .high ? 0.25 : 0.1 }

    /// The plan for `start..<end` of the file at `path`, or nil where one stream must do it.
    init?(path: String, audioStream: Int?, file: borrowing SoundFile, start: Int, end: Int, settings: PlaybackSettings,
          outputRate: Int, pieceSeconds: Double = SplitRender.pieceSeconds) {
        guard settings.rate != 1, settings.pitch == 0, !settings.formant, outputRate == file.info.sampleRate,
              file.seeksExactly, end > start, sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2,
              let step = Self.denominator(of: settings.rate) else { return nil }
        let total = Int((Double(end - start) / settings.rate).rounded())
        // Pieces and lead-ins in whole steps: `step` output frames are a whole number of source frames.
        func steps(_ seconds: Double) -> Int { max(Int(seconds * Double(outputRate) / Double(step)), 1) * step }
        let piece = steps(pieceSeconds)
        guard total >= 2 * piece else { return nil }
        self.path = path
        self.audioStream = audioStream
        self.settings = settings
        self.outputRate = outputRate
        channels = file.info.channels
        self.start = start
        self.end = end
        self.total = total
        starts = Array(stride(from: 0, to: total - piece / 2, by: piece))
        leadInFrames = steps(Self.leadInSeconds(settings.quality))
        fade = max(1, outputRate / 100)
    }

    /// The smallest q ≤ 100 with rate × q whole, if there is one.
    static func denominator(of rate: Double) -> Int? {
        (1...100).first { q in
            let x = rate * Double(q)
            return abs(x - x.rounded()) < 1e-9
        }
    }

    /// Output frames piece `k` adds to the file, not counting the crossfade into the next piece.
    func length(of k: Int) -> Int { (k + 1 < starts.count ? starts[k + 1] : total) - starts[k] }

    /// Stretches piece `k` on `pipeline` into `piece` (emptied first, its room kept): its lead-in
    /// (the first `leadIn(k)` frames, to be dropped), its own frames, and (but for the last) the
    /// `fade` frames that lie under the next piece's start and `reach` more, for moving it. False
    /// if the file gave less, or `stop` said so.
    func make(_ k: Int, on pipeline: Pipeline, into piece: Piece, stop: () -> Bool = { false }) throws -> Bool {
        let lead = leadIn(k)
        let from = start + Int((Double(starts[k] - lead) * settings.rate).rounded())
        try pipeline.start(at: from, end: end, settings: settings)
        let want = (lead + length(of: k) + (k + 1 < starts.count ? fade + reach : 0)) * channels
        // Written over from the start (the stretcher writes into it), with room for a last receive.
        piece.samples.reserveCapacity(want + Pipeline.receiveFrames * channels)
        var count = 0
        while count < want, !stop(), try pipeline.produce(into: &piece.samples, count: &count) {}
        guard count >= want, pipeline.earlyEnd == nil else { return false }
        piece.samples.removeLast(piece.samples.count - want)
        return true
    }

    /// A piece's samples, in a box that is handed from a thread to the writer and back: the box is
    /// what is shared, so the samples have one owner and change in place (as an array handed
    /// over, a second reference made the writer's crossfade copy 3.5 MB per piece).
    final class Piece: @unchecked Sendable {   // used by one thread at a time, handed over under a lock
        var samples: [Float] = []
    }

    /// Frames piece `k` starts early by (none for the first).
    func leadIn(_ k: Int) -> Int { k == 0 ? 0 : min(leadInFrames, starts[k]) }

    /// Why a split render stopped: the file gave less than its header said (a single stream
    /// then renders it and says so), or it was interrupted.
    enum Stop: Error { case fileShort, interrupted }

    /// Renders every piece, two at a time, and hands the output to `write` in order; returns the
    /// frames written. At most three pieces are in memory at once (3.5 MB each for 10 s of stereo),
    /// and their buffers go round: a piece is made in one the writer is done with, so that a
    /// render does not fault in 3.5 MB of fresh pages per piece (4,800 of a 5-minute render's
    /// 11,600 page faults).
    func run(write: (UnsafePointer<Float>, Int) throws -> Void, interrupted: () -> Bool, progress: (Double) -> Void) throws -> Int {
        let state = Shared(count: starts.count)
        let workers = (0..<2).map { _ in
            ControlThread(name: "practice-render") { [self] in
                var pipeline: Pipeline?
                while let k = state.next() {
                    let piece = state.spare()
                    var made = false
                    do {
                        if pipeline == nil {
                            pipeline = try Pipeline(file: SoundFile(path: path, audioStream: audioStream), outputRate: outputRate, settings: settings)
                        }
                        made = try make(k, on: pipeline!, into: piece, stop: state.isStopped)
                    } catch {}
                    state.finish(k, made ? piece : nil)
                }
            }
        }
        defer {
            state.stop()
            for w in workers { w.join() }
        }
        var written = 0
        var tail: [Float] = []   // the crossfade's far side: the last `fade` frames of the piece before
        for k in starts.indices {
            guard let taken = state.take(k, interrupted: interrupted) else { throw Stop.interrupted }
            guard let piece = taken else { throw Stop.fileShort }
            // The last piece has nothing after its end: it may only move earlier.
            let at = (leadIn(k) + (tail.isEmpty ? 0 : bestShift(of: piece.samples, at: leadIn(k), under: tail, last: k + 1 == starts.count))) * channels
            if !tail.isEmpty {
                // In two steps: a slice of the samples alive while they change would make them copy themselves.
                let faded = PassCache.linearFade(from: tail[...], into: piece.samples[at...], frames: fade, channels: channels)
                piece.samples.replaceSubrange(at..<(at + tail.count), with: faded)
            }
            let own = length(of: k)
            tail = k + 1 < starts.count ? Array(piece.samples[(at + own * channels)..<(at + (own + fade) * channels)]) : []
            try piece.samples.withUnsafeBufferPointer { try write($0.baseAddress! + at, own) }
            state.recycle(piece)
            written += own
            progress(Double(written) / Double(total))
        }
        return written
    }

    /// Where, within `reach` of `lead`, the piece's start is most like `tail` (the end of the
    /// piece before it): the shift with the largest normalised cross-correlation over the fade.
    func bestShift(of piece: [Float], at lead: Int, under tail: [Float], last: Bool) -> Int {
        var best = 0, bestScore = -Double.infinity
        let n = tail.count
        piece.withUnsafeBufferPointer { p in
            tail.withUnsafeBufferPointer { t in
                for shift in -reach...(last ? 0 : reach) {
                    let base = (lead + shift) * channels
                    precondition(base >= 0 && base + n <= p.count)
                    let (dot, energy) = Self.correlation(p.baseAddress! + base, t.baseAddress!, n)
                    let score = energy > 0 ? dot / energy.squareRoot() : 0
                    if score > bestScore || (score == bestScore && abs(shift) < abs(best)) { best = shift; bestScore = score }
                }
            }
        }
        return best
    }

    /// The dot product of `a` and `b` and the energy of `a`, over `n` samples, eight lanes at a
    /// time in single precision (the writer runs this for every shift of every seam: 883 × 882
    /// samples at 44.1 kHz stereo; element by element, with bounds checks, it was 3 % of a
    /// render's CPU, in four lanes of doubles 1 %). A lane sums at most a few hundred products of
    /// samples within ±1, so its rounding (a part in 10⁵ at worst) is far below what tells two
    /// shifts apart.
    static func correlation(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ n: Int) -> (dot: Double, energy: Double) {
        var dot = SIMD8<Float>(), energy = SIMD8<Float>()
        var i = 0
        while i <= n &- 8 {
            let x = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
            let y = UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self)
            dot += x * y
            energy += x * x
            i &+= 8
        }
        var d = Double(dot.sum()), e = Double(energy.sum())
        while i < n {
            let x = Double(a[i])
            d += x * Double(b[i])
            e += x * x
            i += 1
        }
        return (d, e)
    }

    /// The pieces between the threads and the writer: which is next to make, what is made, and
    /// the buffers the writer is done with.
    private final class Shared: @unchecked Sendable {   // every field is only touched with `condition` locked
        private let condition = Condition()
        private let count: Int
        private var nextPiece = 0
        private var taken = 0
        private var made: [Int: Piece?] = [:]
        private var spares: [Piece] = []
        private var stopped = false

        init(count: Int) { self.count = count }

        /// The next piece to make, once fewer than two are made ahead of the writer; nil when
        /// there are none left or the writer stopped.
        func next() -> Int? {
            condition.lock()
            defer { condition.unlock() }
            while !stopped && nextPiece < count && nextPiece >= taken + 2 { condition.wait() }
            guard !stopped, nextPiece < count else { return nil }
            nextPiece += 1
            return nextPiece - 1
        }

        /// A buffer to make a piece in: one the writer is done with, if there is one.
        func spare() -> Piece {
            condition.lock()
            defer { condition.unlock() }
            return spares.popLast() ?? Piece()
        }

        /// Takes back the buffer of a piece that is written.
        func recycle(_ piece: Piece) {
            condition.lock()
            spares.append(piece)
            condition.unlock()
        }

        func finish(_ k: Int, _ piece: Piece?) {
            condition.lock()
            made[k] = .some(piece)
            condition.broadcast()
            condition.unlock()
        }

        /// Waits for piece `k` and takes it (.some(nil) if it could not be made); nil once
        /// `interrupted` says so (asked first, and every 50 ms while it waits).
        func take(_ k: Int, interrupted: () -> Bool) -> Piece?? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if interrupted() { return nil }
                if made[k] != nil { break }
                condition.wait(seconds: 0.05)
            }
            taken = k + 1
            condition.broadcast()
            return made.removeValue(forKey: k)!
        }

        func isStopped() -> Bool {
            condition.lock()
            defer { condition.unlock() }
            return stopped
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
