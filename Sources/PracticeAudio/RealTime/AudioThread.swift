// SPDX-License-Identifier: GPL-3.0-or-later
internal import CALSA
import Glibc
import Synchronization
import PracticeSystem

/// Whether the audio thread should be sending frames to the device.
public enum Transport: UInt8, Sendable {
    case paused = 0
    case playing = 1
}

/// The real-time thread that moves frames from the ring to the output.
///
/// It never allocates, locks, logs, or calls libsndfile or SoundTouch: everything it touches is
/// allocated in `init`, and control reaches it only through the atomics below and the ring's
/// generation. While the device is full it polls the device's descriptors together with an
/// eventfd that every command writes to, so a command is seen at once.
///
/// `@unchecked Sendable`: the scratch buffer and the output are touched only by the audio thread
/// once it runs; all other shared state is atomic.
public final class AudioThread<Output: AudioOutput>: @unchecked Sendable {
    public let ring: RingBuffer
    public let output: Output
    public let clock = AudioClock()

    /// A `Transport`'s raw value. (An `Atomic<Transport>` decodes through generic code that, in a
    /// debug build, looks up type metadata and allocates on every load: RealTimeRulesTests caught it.)
    private let transportValue = Atomic<UInt8>(Transport.paused.rawValue)
    /// The generation the control side wants heard: the thread plays no other one. Not an older
    /// one (the decoder may still be writing it when a command has already asked to play), nor a
    /// newer one (the decoder may have begun it before the command that asked for it has said
    /// whether it plays: a pause at a new place would be heard for a moment).
    public let wantedGeneration = Atomic<UInt64>(0)
    /// Underruns recovered so far.
    public let underruns = Atomic<Int>(0)
    /// The last generation whose stream played to its end (0: none).
    public let endedGeneration = Atomic<UInt64>(0)
    /// A negative C error code if the device failed (the thread then waits until it is cleared).
    public let failure = Atomic<Int32>(0)
    private let quit = Atomic<Bool>(false)
    /// How many times the thread went idle for want of a generation it was asked to play (a test
    /// waits for the next one to know the thread has looked at what it was given, and decided).
    public let idled = Atomic<UInt64>(0)
    private let wakeFD: Int32
    private let scratch: UnsafeMutablePointer<Float>
    private let chunkFrames: Int
    /// Frames the ring must hold before a new stream starts, so it does not underrun at once.
    public let primeFrames: Int
    private var thread = pthread_t()
    private var started = false
    /// Whether the thread got SCHED_FIFO.
    public private(set) var isRealTime = false
    /// The thread's `pthread_t`, once started (for tests that watch what it does).
    public var threadID: UInt { UInt(thread) }

    /// `primeFrames`: frames the ring must hold before a new stream starts (default: two of the
    /// output's periods).
    public init(ring: RingBuffer, output: Output, primeFrames: Int? = nil) {
        self.ring = ring
        self.output = output
        self.primeFrames = primeFrames ?? 2 * output.periodFrames
        chunkFrames = 4096   // 93 ms at 44.1 kHz: one pass tops up what a 40 ms period played
        scratch = .allocate(capacity: chunkFrames * ring.channels)
        scratch.initialize(repeating: 0, count: chunkFrames * ring.channels)
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK))
    }

    deinit {
        stop()
        scratch.deallocate()
        close(wakeFD)
    }

    /// Starts the thread, asking for SCHED_FIFO first and falling back to a normal thread.
    /// Returns whether it runs with real-time priority.
    @discardableResult
    public func start() -> Bool {
        precondition(!started)
        started = true
        let context = Unmanaged.passRetained(ThreadEntry(name: "practice-audio") { [self] in run() }).toOpaque()
        let body = ThreadEntry.cEntry
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setinheritsched(&attr, Int32(PTHREAD_EXPLICIT_SCHED))
        pthread_attr_setschedpolicy(&attr, SCHED_FIFO)
        var param = sched_param()
        param.sched_priority = RealTimePriority.audio
        pthread_attr_setschedparam(&attr, &param)
        if pthread_create(&thread, &attr, body, context) == 0 {
            isRealTime = true
            return true
        }
        // Refused (no CAP_SYS_NICE / RLIMIT_RTPRIO): a normal thread works on an idle desktop.
        guard pthread_create(&thread, nil, body, context) == 0 else {
            Unmanaged<ThreadEntry>.fromOpaque(context).release()
            failure.store(-EAGAIN, ordering: .releasing)
            return false
        }
        return false
    }

    /// Stops the thread and waits for it. Safe to call twice.
    public func stop() {
        guard started, !quit.load(ordering: .acquiring) else { return }
        quit.store(true, ordering: .releasing)
        wake()
        pthread_join(thread, nil)
    }

    /// Wakes the thread so it sees a new command at once.
    public func wake() { signalEvent(wakeFD) }

    private func sleep(timeoutMs: Int32) { awaitEvent(wakeFD, timeoutMs: timeoutMs) }

    /// The loop. Audio thread only.
    private func run() {
        let ring = self.ring, output = self.output, clock = self.clock
        var generation: UInt64 = 0
        var holding = false       // the device holds frames of this generation
        var primed = false
        while !quit.load(ordering: .acquiring) {
            let producer = ring.producerGeneration
            if producer != generation {
                if holding { output.drop(); holding = false }
                let start = ring.skipToGeneration()
                generation = producer
                primed = false
                clock.publish(heardFrame: start, at: output.nowNanoseconds, running: false)
                continue
            }
            if generation == 0 {
                sleep(timeoutMs: 5)   // nothing decoded yet; the decoder wakes us when it starts
                continue
            }
            if transportValue.load(ordering: .acquiring) != Transport.playing.rawValue || wantedGeneration.load(ordering: .acquiring) != generation {
                if holding {
                    // Pausing drops what the device holds: the pause is heard at once, and the
                    // control side resumes from the heard position.
                    let delay = output.delay()
                    output.drop()
                    holding = false
                    clock.publish(heardFrame: ring.consumerIndex - delay.frames, at: delay.atNanoseconds, running: false)
                }
                idled.add(1, ordering: .releasing)
                sleep(timeoutMs: 1_000)   // every command wakes us (`wake()`); paused means idle
                continue
            }
            if endedGeneration.load(ordering: .relaxed) == generation {
                sleep(timeoutMs: 1_000)
                continue
            }
            let available = ring.availableFrames
            if available == 0 {
                if ring.isAtEnd {
                    if holding && !output.drain(wakeFD: wakeFD) {
                        measure()   // still playing out; a command is seen at the top at once
                        continue
                    }
                    holding = false
                    clock.publish(heardFrame: ring.consumerIndex, at: output.nowNanoseconds, running: false)
                    endedGeneration.store(generation, ordering: .releasing)
                } else {
                    sleep(timeoutMs: 2)   // the decoder is filling the ring
                }
                continue
            }
            if !primed {
                // The decoder wakes us once they are there.
                if available < primeFrames && !ring.hasEnded { sleep(timeoutMs: 2); continue }
                primed = true
            }
            let writable = output.writableFrames()
            if writable <= 0 {
                // Wakes when a period has played or a command arrives (the eventfd), whichever first.
                if output.waitWritable(timeoutMs: 100, wakeFD: wakeFD) { clearEvent(wakeFD) }
                continue
            }
            let n = ring.read(into: scratch, frames: min(available, writable, chunkFrames))
            switch output.write(scratch, count: n) {
            case .written(let recovered):
                if recovered > 0 { underruns.add(recovered, ordering: .relaxed) }
            case .failed(let code):
                // What was heard stops where it stood (what the device held is lost with it); then
                // the thread leaves the device alone until the player has opened it again
                // (`deviceReopened`), or for good.
                let now = output.nowNanoseconds
                clock.publish(heardFrame: Int(clock.heardFrame(at: now, sampleRate: output.format.sampleRate)), at: now, running: false)
                holding = false
                failure.store(code, ordering: .releasing)
                while failure.load(ordering: .acquiring) != 0 && !quit.load(ordering: .acquiring) { sleep(timeoutMs: 1_000) }
                continue
            }
            holding = true
            measure()
        }
        if holding { output.drop() }
    }

    /// Publishes the ring frame being heard, and the frames queued after it. Queued-but-unstarted
    /// frames also count as delay; the start threshold is 20 ms, so treating "delay > 0" as
    /// running errs by at most that, once per stream. Audio thread only.
    private func measure() {
        let delay = output.delay()
        clock.publish(heardFrame: ring.consumerIndex - delay.frames, queued: delay.frames, at: delay.atNanoseconds, running: delay.frames > 0)
    }
}

/// The audio thread as the control side drives it, whatever its output: the player holds one of
/// these, so a real device and a virtual one go through the same engine code.
public protocol AudioThreadControl: AnyObject, Sendable {
    var clock: AudioClock { get }
    var audioOutput: any AudioOutput { get }
    var isRealTime: Bool { get }
    /// The thread's `pthread_t`, once started.
    var threadID: UInt { get }
    @discardableResult func start() -> Bool
    func stop()
    /// Wakes the thread from its wait (a command came, or a new stream's frames are in the ring).
    func wake()
    /// Frames of a new stream the ring must hold before the thread starts it on the device:
    /// the producer wakes the thread when they are there.
    var primeFrames: Int { get }
    /// Plays or pauses generation `generation` (no other is heard).
    func setTransport(_ t: Transport, generation: UInt64)
    var isPlaying: Bool { get }
    /// Underruns recovered so far.
    var underrunCount: Int { get }
    /// The last generation whose stream played to its end (0: none).
    var lastEndedGeneration: UInt64 { get }
    /// A negative C error code if the device failed (and has not been opened again), else 0.
    var failureCode: Int32 { get }
    /// After a failure: opens the device again (`AudioOutput.reopen`); 0 or a negative error code.
    /// The audio thread still waits: `deviceReopened` lets it go on.
    func reopenDevice() -> Int32
    /// The device works again: the failure is cleared and the audio thread goes on.
    func deviceReopened()
}

extension AudioThread: AudioThreadControl {
    public var audioOutput: any AudioOutput { output }
    public func setTransport(_ t: Transport, generation: UInt64) {
        wantedGeneration.store(generation, ordering: .releasing)
        transportValue.store(t.rawValue, ordering: .releasing)
    }
    public var isPlaying: Bool { transportValue.load(ordering: .relaxed) == Transport.playing.rawValue }
    public var underrunCount: Int { underruns.load(ordering: .relaxed) }
    public var lastEndedGeneration: UInt64 { endedGeneration.load(ordering: .acquiring) }
    public var failureCode: Int32 { failure.load(ordering: .acquiring) }
    public func reopenDevice() -> Int32 {
        guard failure.load(ordering: .acquiring) != 0 else { return 0 }
        let code = output.reopen()
        // Back, but unable to play as before (another rate): that failure is for good.
        if code != 0, !output.isGone(failure: code) { failure.store(code, ordering: .releasing) }
        return code
    }
    public func deviceReopened() {
        failure.store(0, ordering: .releasing)
        wake()
    }
}
