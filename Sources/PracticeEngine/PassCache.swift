// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeAudio
import PracticeSystem

/// A drilled loop's passes at high quality, made ahead and kept in memory: a background thread
/// renders each pass asked for (Rubber Band's R3, through its own `Pipeline` on its own copy of
/// the file, at a lower priority than the decoder) and the decoder thread plays a pass from here
/// once it is ready, so the passes after it cost a copy instead of a phase vocoder. A pass made
/// here is the same computation as the live one (the same pipeline, settings and range), so it is
/// the same to the sample, and the change from live to memory, at a pass's start, is not heard.
///
/// Memory is bounded (`limitBytes`, 64 MB by default: 3 min of stereo output at 44.1 kHz); the
/// least recently used passes go first. A pass whose audio ended early, or that failed, is not kept.
final class PassCache: @unchecked Sendable {  // `work` and its fields only under `condition`; `pipeline` on the render thread only
    /// One pass: the source range, and what it is played at. A `cycle` is a plain loop's pass as
    /// it repeats (`makeCycle`), a pass without is a rehearsal's, from silence to silence.
    struct Key: Hashable, Sendable {
        var from: Int
        var end: Int
        var rate: Double
        var pitch: Double
        var formant: Bool
        var cycle = false

        init(from: Int, end: Int, settings: PlaybackSettings, cycle: Bool = false) {
            self.from = from; self.end = end; rate = settings.rate; pitch = settings.pitch; formant = settings.formant
            self.cycle = cycle
        }

        func settings(profile: TimeStretcher.Profile) -> PlaybackSettings {
            var s = PlaybackSettings(rate: rate, pitch: pitch, profile: profile)
            s.quality = .high
            s.formant = formant
            return s
        }
    }

    private struct Work {
        var ready: [Key: [Float]] = [:]
        /// Most recently used last.
        var order: [Key] = []
        var bytes = 0
        /// Passes to make, in order.
        var wanted: [Key] = []
        var quit = false
        var made = 0
        var served = 0
        /// The pass being made.
        var making: Key?
        /// Passes that could not be made (too long for the bound, the file's audio ending early):
        /// not tried again.
        var failed = Set<Key>()
    }

    let limitBytes: Int
    private let open: @Sendable () throws -> SoundFile
    private let outputRate: Int
    private let profile: TimeStretcher.Profile
    private let condition = Condition()
    private var work = Work()
    private var thread: ControlThread?
    private var pipeline: Pipeline?

    /// `open` opens the track again (on the render thread, when the first pass is asked for).
    init(outputRate: Int, profile: TimeStretcher.Profile, limitBytes: Int = 64 << 20, open: @escaping @Sendable () throws -> SoundFile) {
        self.outputRate = outputRate
        self.profile = profile
        self.limitBytes = limitBytes
        self.open = open
    }

    deinit { stop() }

    func stop() {
        condition.lock()
        work.quit = true
        condition.signal()
        let running = thread
        condition.unlock()
        running?.join()
    }

    /// The pass, if it is ready (it becomes the most recently used); nil asks for it, ahead of
    /// whatever else was asked for.
    func pass(_ key: Key) -> [Float]? {
        condition.lock()
        defer { condition.unlock() }
        if let samples = work.ready[key] {
            work.order.removeAll { $0 == key }
            work.order.append(key)
            return samples
        }
        want([key], first: true)
        return nil
    }

    /// Asks for passes to be made (those not ready nor asked for yet), after those asked for before.
    func prepare(_ keys: [Key]) {
        condition.lock()
        want(keys, first: false)
        condition.unlock()
    }

    /// Whether the pass is ready (it does not count as a use).
    func isReady(_ key: Key) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return work.ready[key] != nil
    }

    /// Nothing being made, nothing asked for.
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return work.making == nil && work.wanted.isEmpty
    }

    /// A pass was played from here (the decoder says).
    func served() {
        condition.lock()
        work.served += 1
        condition.unlock()
    }

    /// Bytes held now, passes made and passes played from memory since the start.
    var usage: (bytes: Int, made: Int, served: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (work.bytes, work.made, work.served)
    }

    /// Under `condition`.
    private func want(_ keys: [Key], first: Bool) {
        let new = keys.filter { work.ready[$0] == nil && work.making != $0 && !work.failed.contains($0) }
        guard !new.isEmpty, !work.quit else { return }
        work.wanted.removeAll { new.contains($0) }
        work.wanted.insert(contentsOf: new, at: first ? 0 : work.wanted.count)
        if thread == nil { thread = ControlThread(name: "practice-cache") { [self] in run() } }
        condition.signal()
    }

    private func run() {
        // Below the decoder and the rest of the player: what is ahead never takes from what is heard.
        // (On Linux a nice value is a thread's: 0 here is this thread.)
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        while true {
            condition.lock()
            while !work.quit && work.wanted.isEmpty { condition.wait() }
            if work.quit { condition.unlock(); return }
            let key = work.wanted.removeFirst()
            work.making = key
            condition.unlock()
            let samples = key.cycle ? makeCycle(key) : make(key)
            condition.lock()
            if let samples { keep(samples, for: key) } else if !work.quit { work.failed.insert(key) }
            work.making = nil
            condition.unlock()
        }
    }

    /// Renders one pass as the decoder plays it (`Program.beginPass`); nil if it failed, ended
    /// early, would not fit, or the cache is stopping.
    private func make(_ key: Key) -> [Float]? {
        guard let pipeline = startedPipeline(key, loop: nil, edgeFade: Program.passFade) else { return nil }
        guard let samples = produce(pipeline, frames: nil), pipeline.earlyEnd == nil else { return nil }
        return samples
    }

    /// A plain loop's pass as it repeats: the loop played from A without end (seams crossfaded,
    /// the stretcher going on through them), and its second pass cut out, `cycleFrames` long.
    /// Where the cut's end meets its start again, the frames that followed its end are faded
    /// (linearly, over a seam's 10 ms) into its first: played over and over, it goes on as the
    /// live stream would, with no step.
    private func makeCycle(_ key: Key) -> [Float]? {
        let loop = LoopRegion(start: key.from, end: key.end)
        guard let pipeline = startedPipeline(key, loop: loop, edgeFade: 0) else { return nil }
        let ch = pipeline.info.channels
        let n = Self.cycleFrames(loop, sourcePerOutput: pipeline.sourceFramesPerOutputFrame)
        let fade = min(pipeline.seamOutputFrames, n)
        guard let out = produce(pipeline, frames: 2 * n + fade), out.count >= (2 * n + fade) * ch else { return nil }
        var cycle = Array(out[(n * ch)..<(2 * n * ch)])
        cycle.replaceSubrange(0..<(fade * ch), with: Self.linearFade(from: out[(2 * n * ch)...], into: out[(n * ch)...], frames: fade, channels: ch))
        return cycle
    }

    /// `frames` frames going linearly from `outgoing` to `incoming` (interleaved, `channels` a
    /// frame, from each slice's start): for two takes of the same music, whose sum it keeps.
    static func linearFade(from outgoing: ArraySlice<Float>, into incoming: ArraySlice<Float>, frames: Int, channels: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        let a0 = outgoing.startIndex, b0 = incoming.startIndex
        for i in 0..<frames {
            let a = (Float(i) + 0.5) / Float(frames)
            for c in 0..<channels { out[i * channels + c] = outgoing[a0 + i * channels + c] * (1 - a) + incoming[b0 + i * channels + c] * a }
        }
        return out
    }

    /// Output frames of one pass of `loop` at `sourcePerOutput` (each pass after the first is
    /// exactly the loop's length in source frames).
    static func cycleFrames(_ loop: LoopRegion, sourcePerOutput: Double) -> Int {
        max(Int((Double(loop.length) / sourcePerOutput).rounded()), 1)
    }

    /// The render thread's pipeline, started on `key`'s range; nil if it cannot be.
    private func startedPipeline(_ key: Key, loop: LoopRegion?, edgeFade: Double) -> Pipeline? {
        do {
            if pipeline == nil { pipeline = try Pipeline(file: open(), outputRate: outputRate, settings: key.settings(profile: profile)) }
            try pipeline?.start(at: key.from, end: key.end, loop: loop, edgeFade: edgeFade, settings: key.settings(profile: profile))
            return pipeline
        } catch {
            return nil
        }
    }

    /// What `pipeline` produces, to its end or (`frames`) at least that many frames; nil if it
    /// failed, would not fit, or the cache is stopping.
    private func produce(_ pipeline: Pipeline, frames: Int?) -> [Float]? {
        let ch = pipeline.info.channels
        let limit = limitBytes / MemoryLayout<Float>.size
        var samples: [Float] = []
        var blocks = 0
        do {
            while try pipeline.produce({ p, n in samples.append(contentsOf: UnsafeBufferPointer(start: p, count: n * ch)) }) {
                if let frames, samples.count >= frames * ch { break }
                blocks += 1
                if samples.count > limit { return nil }
                if blocks % 8 == 0 {
                    condition.lock()
                    let quit = work.quit
                    condition.unlock()
                    if quit { return nil }
                }
            }
        } catch {
            return nil
        }
        return samples
    }

    /// Under `condition`.
    private func keep(_ samples: [Float], for key: Key) {
        let size = samples.count * MemoryLayout<Float>.size
        guard size <= limitBytes else { work.failed.insert(key); return }
        while work.bytes + size > limitBytes, let oldest = work.order.first {
            work.order.removeFirst()
            work.bytes -= (work.ready.removeValue(forKey: oldest)?.count ?? 0) * MemoryLayout<Float>.size
        }
        work.ready[key] = samples
        work.order.append(key)
        work.bytes += size
        work.made += 1
    }
}
