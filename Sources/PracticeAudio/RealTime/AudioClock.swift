// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import Glibc

/// What the audio thread last measured: which ring frame was being heard, and when.
/// A sequence lock: the audio thread never waits; readers retry while a write is in progress.
///
/// `@unchecked Sendable`: only the audio thread calls `publish`; readers only call `read`.
public final class AudioClock: @unchecked Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let heardFrame = Atomic<Int>(0)
    private let queuedFrames = Atomic<Int>(0)
    private let timeNs = Atomic<Int64>(0)
    private let running = Atomic<Bool>(false)

    public init() {}

    public struct Reading: Sendable {
        /// The ring frame index being heard at `timeNs`.
        public var heardFrame: Int
        /// Frames written after `heardFrame` (the device's delay): the position cannot pass them.
        public var queuedFrames: Int
        /// The output's clock (`AudioOutput.nowNanoseconds`) at the measurement.
        public var timeNs: Int64
        /// Whether the device was playing (so the position advances in real time after `timeNs`).
        public var running: Bool
    }

    /// Audio thread: records a measurement: `frame` heard at `time` on the output's clock, with
    /// `queued` frames written after it.
    public func publish(heardFrame frame: Int, queued: Int = 0, at time: Int64, running isRunning: Bool) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        heardFrame.store(frame, ordering: .relaxed)
        queuedFrames.store(queued, ordering: .relaxed)
        timeNs.store(time, ordering: .relaxed)
        running.store(isRunning, ordering: .relaxed)
        sequence.store(s &+ 2, ordering: .releasing)
    }

    /// Any thread: the latest consistent measurement.
    public func read() -> Reading {
        while true {
            let s1 = sequence.load(ordering: .acquiring)
            if s1 & 1 != 0 { sched_yield(); continue }
            let r = Reading(heardFrame: heardFrame.load(ordering: .relaxed), queuedFrames: queuedFrames.load(ordering: .relaxed),
                            timeNs: timeNs.load(ordering: .relaxed),
                            running: running.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == s1 { return r }
        }
    }

    /// Any thread: the frame heard at `now` on the output's clock, extrapolated from the latest
    /// measurement at `sampleRate` while the device runs, never past the frames written.
    public func heardFrame(at now: Int64, sampleRate: Int) -> Double {
        let r = read()
        guard r.running else { return Double(r.heardFrame) }
        // Whole frames: a device plays whole frames, and a virtual clock's nanoseconds then map back exactly.
        let elapsed = (Double(max(now - r.timeNs, 0)) / 1e9 * Double(sampleRate)).rounded()
        return Double(r.heardFrame) + min(elapsed, Double(r.queuedFrames))
    }
}

/// CLOCK_MONOTONIC in nanoseconds (no allocation: safe on the audio thread).
@inline(__always)
public func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
