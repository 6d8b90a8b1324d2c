import Synchronization
import Glibc

/// What the audio thread last measured: which ring frame was being heard, and when.
/// A sequence lock: the audio thread never waits; readers retry while a write is in progress.
///
/// `@unchecked Sendable`: only the audio thread calls `publish`; readers only call `read`.
public final class AudioClock: @unchecked Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let heardFrame = Atomic<Int>(0)
    private let timeNs = Atomic<Int64>(0)
    private let running = Atomic<Bool>(false)

    public init() {}

    public struct Reading: Sendable {
        /// The ring frame index being heard at `timeNs`.
        public var heardFrame: Int
        /// CLOCK_MONOTONIC nanoseconds of the measurement.
        public var timeNs: Int64
        /// Whether the device was playing (so the position advances in real time after `timeNs`).
        public var running: Bool
    }

    /// Audio thread: records a measurement.
    public func publish(heardFrame frame: Int, running isRunning: Bool) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        heardFrame.store(frame, ordering: .relaxed)
        timeNs.store(monotonicNanoseconds(), ordering: .relaxed)
        running.store(isRunning, ordering: .relaxed)
        sequence.store(s &+ 2, ordering: .releasing)
    }

    /// Any thread: the latest consistent measurement.
    public func read() -> Reading {
        while true {
            let s1 = sequence.load(ordering: .acquiring)
            if s1 & 1 != 0 { sched_yield(); continue }
            let r = Reading(heardFrame: heardFrame.load(ordering: .relaxed), timeNs: timeNs.load(ordering: .relaxed),
                            running: running.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == s1 { return r }
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds (no allocation: safe on the audio thread).
@inline(__always)
public func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
