// SPDX-License-Identifier: GPL-3.0-or-later
internal import CALSA   // eventfd
import Glibc
import Synchronization

/// A sound device whose clock the caller advances by hand: the engine's twin of ALSA's `null`
/// (mpv's `ao_null`), for engine tests that are exact and need no sound server.
///
/// The audio thread writes into a device buffer of `bufferFrames`, as into a real card; time
/// passes only when a test calls `play(frames:)`, which hears the frames the device holds, in
/// order, and hands them back. A device that holds nothing waits for the audio thread instead of
/// underrunning (an ideal device), so positions and heard samples are exact to the frame.
///
/// `@unchecked Sendable`: a single-producer, single-consumer ring. The audio thread is the only
/// writer of `written` and `discardedTo` and of slots in [written, played + capacity); the
/// consumer (`play`) is the only writer of `played` and `clockFrames` (published together under a
/// sequence count, so the audio thread reads a consistent pair) and reads only [played, written).
public final class VirtualOutput: AudioOutput, @unchecked Sendable {
    public let format: OutputFormat
    public let name = "virtual"
    public let periodFrames: Int
    public let bufferFrames: Int
    private let storage: UnsafeMutablePointer<Float>

    private let written = Atomic<Int>(0)
    /// Frames before this index were dropped (`drop()`): never heard.
    private let discardedTo = Atomic<Int>(0)
    private let sequence = Atomic<UInt64>(0)
    /// Frames taken from the device, heard or discarded.
    private let played = Atomic<Int>(0)
    /// Frames heard: the device's clock.
    private let clockFrames = Atomic<Int>(0)
    /// Once unplugged, the device swallows everything at once (as `null` does).
    private let unplugged = Atomic<Bool>(false)
    /// Broken down (`breakDown`), with the code writes fail with (0: working): nothing more is
    /// heard, and `reopen` fails until `repair`.
    private let broken = Atomic<Int32>(0)
    /// Readable when the consumer took frames (wakes a full writer) and when the writer wrote.
    private let consumedFD: Int32
    private let writtenFD: Int32
    private let pollFDs: UnsafeMutablePointer<pollfd>

    /// `periodFrames` 1764 and `bufferFrames` 10584: 40 ms and 240 ms at 44.1 kHz, as a player's
    /// `ALSAOutput` asks of a card.
    public init(sampleRate: Int, channels: Int, periodFrames: Int? = nil, bufferFrames: Int? = nil) {
        format = OutputFormat(sampleRate: sampleRate, channels: channels)
        let period = ALSAOutput.defaultPeriodMicroseconds
        self.periodFrames = periodFrames ?? sampleRate * Int(period) / 1_000_000
        self.bufferFrames = bufferFrames ?? sampleRate * Int(ALSAOutput.bufferMicroseconds(period: period)) / 1_000_000
        storage = .allocate(capacity: self.bufferFrames * channels)
        storage.initialize(repeating: 0, count: self.bufferFrames * channels)
        consumedFD = eventfd(0, Int32(EFD_NONBLOCK))
        writtenFD = eventfd(0, Int32(EFD_NONBLOCK))
        pollFDs = .allocate(capacity: 2)
        pollFDs.initialize(repeating: pollfd(), count: 2)
    }

    deinit {
        storage.deallocate()
        pollFDs.deallocate()
        close(consumedFD)
        close(writtenFD)
    }

    // MARK: The test's side

    /// How many times the audio thread dropped what the device held (every command while playing does).
    public var drops: Int { dropCount.load(ordering: .acquiring) }
    private let dropCount = Atomic<Int>(0)

    /// Frames the device holds that have not been heard.
    public var queuedFrames: Int { written.load(ordering: .acquiring) - max(played.load(ordering: .acquiring), discardedTo.load(ordering: .acquiring)) }

    /// Lets `frames` frames of time pass: hears what the device holds, in order, and returns those
    /// samples (interleaved). While the device holds nothing it waits for the audio thread, until
    /// `stopWaiting()` says nothing more will come (a paused or finished player) or `timeout`
    /// seconds pass without a frame; then it returns what was heard. The minute is a guard against
    /// a stopped thread only: on a loaded machine (a suite took 124 s instead of 0.4 once, builds
    /// beside it) a player's threads can be held for seconds, and a shorter wait would hand back
    /// fewer frames than asked for, putting the test's clock behind its player's.
    public func play(frames: Int, timeout: Double = 60, stopWaiting: () -> Bool = { false }) -> [Float] {
        let ch = format.channels
        var heard: [Float] = []
        heard.reserveCapacity(frames * ch)
        var idleSince = monotonicNanoseconds()
        while heard.count < frames * ch {
            if broken.load(ordering: .acquiring) != 0 { break }   // a device that is gone plays nothing
            var p = played.load(ordering: .relaxed)
            let w = written.load(ordering: .acquiring)
            let skipTo = discardedTo.load(ordering: .acquiring)
            if skipTo > p { p = skipTo }
            let n = min(w - p, frames - heard.count / ch)
            if n > 0 {
                for i in 0..<n {
                    let slot = (p + i) % bufferFrames
                    for c in 0..<ch { heard.append(storage[slot * ch + c]) }
                }
                publish(played: p + n, clock: clockFrames.load(ordering: .relaxed) + n)
                signalEvent(consumedFD)
                idleSince = monotonicNanoseconds()
                continue
            }
            if p != played.load(ordering: .relaxed) { publish(played: p, clock: clockFrames.load(ordering: .relaxed)); signalEvent(consumedFD) }
            if stopWaiting() { break }
            if Double(monotonicNanoseconds() - idleSince) / 1e9 > timeout { break }
            awaitEvent(writtenFD, timeoutMs: 2)
        }
        return heard
    }

    /// From now on the device takes everything at once and hears nothing (so a player can stop
    /// without a test playing out its drain).
    public func unplug() {
        unplugged.store(true, ordering: .releasing)
        signalEvent(consumedFD)
    }

    /// The device goes away, as a sound server that is killed: what it holds is never heard, the
    /// next write fails with `code` (-EIO: gone, as `isGone` says; another: failed for good), and
    /// opening it again fails with that code until `repair()`.
    public func breakDown(failing code: Int32? = nil) {
        broken.store(code ?? -EIO, ordering: .releasing)
        signalEvent(consumedFD)
    }

    /// The device can be opened again (the sound server is back): the player's next `reopen` works.
    public func repair() { broken.store(0, ordering: .releasing) }

    private func publish(played p: Int, clock: Int) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        played.store(p, ordering: .releasing)   // hands the slots read back to the writer
        clockFrames.store(clock, ordering: .relaxed)
        sequence.store(s &+ 2, ordering: .releasing)
    }

    /// A consistent (played, clock) pair (audio thread).
    private func consumerSnapshot() -> (played: Int, clock: Int) {
        while true {
            let s1 = sequence.load(ordering: .acquiring)
            if s1 & 1 != 0 { continue }
            let r = (played.load(ordering: .relaxed), clockFrames.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == s1 { return r }
        }
    }

    private func nanoseconds(_ frames: Int) -> Int64 { Int64(frames) * 1_000_000_000 / Int64(format.sampleRate) }

    // MARK: AudioOutput (the audio thread's side)

    public func writableFrames() -> Int {
        if unplugged.load(ordering: .acquiring) || broken.load(ordering: .acquiring) != 0 { return bufferFrames }   // broken: the write says so
        return bufferFrames - (written.load(ordering: .relaxed) - played.load(ordering: .acquiring))
    }

    public func waitWritable(timeoutMs: Int32, wakeFD: Int32) -> Bool {
        // Storage made once: a tuple here instantiated its type metadata, which allocates, on the audio thread.
        pollFDs[0] = pollfd(fd: consumedFD, events: Int16(POLLIN), revents: 0)
        pollFDs[1] = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        let woke = poll(pollFDs, 2, timeoutMs) > 0 && pollFDs[1].revents & Int16(POLLIN) != 0
        clearEvent(consumedFD)
        return woke
    }

    public func write(_ frames: UnsafePointer<Float>, count: Int) -> WriteResult {
        let ch = format.channels
        var done = 0
        while done < count {
            let code = broken.load(ordering: .acquiring)
            if code != 0 { return .failed(code: code) }
            if unplugged.load(ordering: .acquiring) { return .written(underruns: 0) }
            let w = written.load(ordering: .relaxed)
            let n = min(count - done, bufferFrames - (w - played.load(ordering: .acquiring)))
            if n <= 0 { awaitEvent(consumedFD, timeoutMs: 10); continue }
            for i in 0..<n {
                let slot = (w + i) % bufferFrames
                for c in 0..<ch { storage[slot * ch + c] = frames[(done + i) * ch + c] }
            }
            written.store(w + n, ordering: .releasing)
            done += n
        }
        signalEvent(writtenFD)
        return .written(underruns: 0)
    }

    public func delay() -> DeviceDelay {
        let (p, clock) = consumerSnapshot()
        let w = written.load(ordering: .relaxed)
        let frames = unplugged.load(ordering: .acquiring) ? 0 : w - max(p, discardedTo.load(ordering: .relaxed))
        return DeviceDelay(frames: frames, atNanoseconds: nanoseconds(clock))
    }

    public var nowNanoseconds: Int64 { nanoseconds(clockFrames.load(ordering: .acquiring)) }

    /// True once the test has heard everything the device holds (or unplugged it); else waits
    /// until it hears some, or a command wakes the audio thread.
    public func drain(wakeFD: Int32) -> Bool {
        if unplugged.load(ordering: .acquiring) || delay().frames == 0 { return true }
        if waitWritable(timeoutMs: 10, wakeFD: wakeFD) { clearEvent(wakeFD) }
        return false
    }

    public func drop() {
        discardedTo.store(written.load(ordering: .relaxed), ordering: .releasing)
        dropCount.add(1, ordering: .releasing)
        signalEvent(writtenFD)
    }

    public func describe(failure code: Int32) -> String { "failed (virtual device error \(code))" }

    /// Broken down (-EIO) is gone until repaired.
    public func isGone(failure code: Int32) -> Bool { code == -EIO }

    /// Works once repaired: what the device held before it broke down is gone (the audio thread,
    /// waiting after its failed write, writes nothing meanwhile).
    public func reopen() -> Int32 {
        let code = broken.load(ordering: .acquiring)
        guard code == 0 else { return code }
        discardedTo.store(written.load(ordering: .acquiring), ordering: .releasing)
        signalEvent(writtenFD)
        return 0
    }
}
