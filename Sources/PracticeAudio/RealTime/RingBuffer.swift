// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// A single-producer, single-consumer ring of interleaved float frames (decoder → audio thread).
///
/// - Only the producer advances `write`, only the consumer advances `read`; the producer never
///   touches `read`, not even to drop data.
/// - Counters are frame indices that only grow (`&+`); slot = index & mask; fill = write &- read.
/// - Each side loads the other's index `.acquiring` and publishes its own `.releasing`.
/// - Storage is allocated once in `init` and freed in `deinit`.
/// - Generations: after a command (seek, rate change, …) the producer starts a new generation and
///   publishes the frame index where it begins; the consumer then skips everything before it.
///
/// `@unchecked Sendable`: the producer writes only slots in [write, read + capacity) and the consumer
/// reads only [read, write); the atomics order those accesses.
public final class RingBuffer: @unchecked Sendable {
    public let capacity: Int          // frames, a power of two
    public let channels: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Float>

    private let writeIndex = Atomic<Int>(0)
    private let readIndex = Atomic<Int>(0)
    /// The generation whose data the producer is writing now.
    private let writerGeneration = Atomic<UInt64>(0)
    /// The frame index where `writerGeneration` begins.
    private let generationStart = Atomic<Int>(0)
    /// The frame index where the current generation's stream ends, or `Int.max` while it goes on.
    private let endIndex = Atomic<Int>(Int.max)

    public init(minimumFrames: Int, channels: Int) {
        var c = 1
        while c < minimumFrames { c <<= 1 }
        capacity = c
        mask = c - 1
        self.channels = channels
        storage = .allocate(capacity: c * channels)
        storage.initialize(repeating: 0, count: c * channels)
    }

    deinit { storage.deallocate() }

    // MARK: Producer (decoder thread)

    /// Frames the producer may write now.
    public var freeFrames: Int { capacity - (writeIndex.load(ordering: .relaxed) &- readIndex.load(ordering: .acquiring)) }
    /// The producer's next frame index.
    public var producerIndex: Int { writeIndex.load(ordering: .relaxed) }

    /// Whether the consumer has skipped to the producer's current generation. Until it has, the
    /// ring still looks full of the old stream's frames (which the consumer will drop unplayed).
    public var consumerInCurrentGeneration: Bool {
        readIndex.load(ordering: .acquiring) &- generationStart.load(ordering: .relaxed) >= 0
    }

    /// Copies up to `frames` frames in; returns how many fitted.
    public func write(_ source: UnsafePointer<Float>, frames: Int) -> Int {
        let w = writeIndex.load(ordering: .relaxed)
        let n = min(frames, capacity - (w &- readIndex.load(ordering: .acquiring)))
        guard n > 0 else { return 0 }
        let first = min(n, capacity - (w & mask))
        (storage + (w & mask) * channels).update(from: source, count: first * channels)
        if n > first { storage.update(from: source + first * channels, count: (n - first) * channels) }
        writeIndex.store(w &+ n, ordering: .releasing)
        return n
    }

    /// Starts generation `generation` at the current write index and returns that index.
    @discardableResult
    public func beginGeneration(_ generation: UInt64) -> Int {
        let w = writeIndex.load(ordering: .relaxed)
        endIndex.store(Int.max, ordering: .relaxed)
        generationStart.store(w, ordering: .relaxed)
        writerGeneration.store(generation, ordering: .releasing)
        return w
    }

    /// Marks the current generation's stream as ending at the current write index.
    public func markEnd() { endIndex.store(writeIndex.load(ordering: .relaxed), ordering: .releasing) }

    // MARK: Consumer (audio thread)

    /// The generation the producer is on; if it differs from the consumer's, call `skipToGeneration`.
    public var producerGeneration: UInt64 { writerGeneration.load(ordering: .acquiring) }

    /// Drops everything before the producer's current generation; returns the new read index.
    public func skipToGeneration() -> Int {
        let start = generationStart.load(ordering: .acquiring)
        let r = readIndex.load(ordering: .relaxed)
        if start &- r > 0 { readIndex.store(start, ordering: .releasing); return start }
        return r
    }

    /// Frames ready for the consumer.
    public var availableFrames: Int { writeIndex.load(ordering: .acquiring) &- readIndex.load(ordering: .relaxed) }
    /// The consumer's next frame index.
    public var consumerIndex: Int { readIndex.load(ordering: .relaxed) }
    /// Whether the producer has marked the current stream's end.
    public var hasEnded: Bool { endIndex.load(ordering: .acquiring) != Int.max }
    /// Whether the consumer has taken every frame of a stream that has ended.
    public var isAtEnd: Bool { readIndex.load(ordering: .relaxed) == endIndex.load(ordering: .acquiring) }

    /// Copies up to `frames` frames out; returns how many.
    public func read(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let r = readIndex.load(ordering: .relaxed)
        let n = min(frames, writeIndex.load(ordering: .acquiring) &- r)
        guard n > 0 else { return 0 }
        let first = min(n, capacity - (r & mask))
        out.update(from: storage + (r & mask) * channels, count: first * channels)
        if n > first { (out + first * channels).update(from: storage, count: (n - first) * channels) }
        readIndex.store(r &+ n, ordering: .releasing)
        return n
    }
}
