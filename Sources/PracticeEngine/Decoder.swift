// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import Synchronization
import PracticeDocuments
import PracticeSystem

/// The decoder thread: runs the program (pipeline, and a rehearsal's inserts) into the ring, restarting on each request, and records
/// which ring frames hold which source frames so the heard position can be mapped back.
final class Decoder: @unchecked Sendable {  // program: decoder thread only; the rest under `condition`/`segments`
    struct Request: Sendable {
        var generation: UInt64
        var frame: Int
        var settings: PlaybackSettings
        var loop: LoopRegion?
    }
    /// A generation's stream: it starts at ring frame `ringFrame`, and `timeline` says which source
    /// frames its output holds; it plays up to source frame `endFrame`.
    struct Segment: Sendable {
        var generation: UInt64
        var ringFrame: Int
        var endFrame: Int
        var timeline: Timeline

        /// The source frame heard at ring frame `ring`, and the loop's pass (from 1) in this stream.
        func place(atRing ring: Double) -> (frame: Int, pass: Int)? {
            timeline.place(atOutput: ring - Double(ringFrame)).map { ($0.frame, $0.pass + 1) }
        }

        /// The rate being heard at ring frame `ring`.
        func rate(atRing ring: Double) -> Double? { timeline.rate(atOutput: ring - Double(ringFrame)) }

        /// The count-in's click heard at ring frame `ring`, if one is.
        func countIn(atRing ring: Double) -> (beat: Int, of: Int)? { timeline.countIn(atOutput: ring - Double(ringFrame)) }
    }

    private let program: Program
    private let ring: RingBuffer
    let range: Range<Int>
    private let condition = Condition()
    private var pending: Request?          // under `condition`
    private var latestGeneration: UInt64 = 0   // the newest request taken (under `condition`)
    private var quit = false               // under `condition`
    private var thread: ControlThread?
    private let segments = Locked<[Segment]>([])
    /// Streams begun (requests taken), for tests that count them.
    let streamsStarted = Atomic<Int>(0)
    private let earlyEnds = Locked<[UInt64: (frame: Int, reason: String)]>([:])

    private let outputRate: Int
    /// Called on the decoder thread when a new generation's first frames are in the ring, and
    /// again when it holds `primeFrames` (what the audio thread waits for before it starts it).
    private let onGeneration: @Sendable () -> Void
    private let primeFrames: Int

    /// Whether the audio thread is paused (nothing takes audio from the ring).
    private let isIdle: @Sendable () -> Bool

    /// Seconds of fade in and out at the range's edges (a preview's; 0: none).
    private let edgeFade: Double

    init(program: Program, ring: RingBuffer, range: Range<Int>, outputRate: Int, edgeFade: Double = 0, isIdle: @escaping @Sendable () -> Bool,
         primeFrames: Int = 0, onGeneration: @escaping @Sendable () -> Void) {
        self.primeFrames = primeFrames
        self.edgeFade = edgeFade
        self.isIdle = isIdle
        self.program = program
        program.pieceLimit = 16   // the heard position needs only the newest
        self.ring = ring
        self.range = range
        self.outputRate = outputRate
        self.onGeneration = onGeneration
    }

    func start() {
        condition.lock()
        thread = ControlThread(name: "practice-decode") { [self] in run() }
        condition.unlock()
    }

    func stop() {
        condition.lock()
        let running = thread
        quit = true
        condition.signal()
        condition.unlock()
        running?.join()
    }

    /// Asks for a new stream. Requests carry their generation; one older than a request already
    /// taken or waiting is dropped, so the newest command always wins.
    func request(_ r: Request) {
        condition.lock()
        if r.generation > max(pending?.generation ?? 0, latestGeneration) {
            pending = r
            condition.signal()
        }
        condition.unlock()
    }

    /// Has the thread look at the ring again at once (the transport turned to playing: it drains).
    func wake() {
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    func segment(forGeneration g: UInt64) -> Segment? { segments.withLock { $0.last { $0.generation == g } } }
    func earlyEnd(forGeneration g: UInt64) -> (frame: Int, reason: String)? { earlyEnds.withLock { $0[g] } }

    /// Copies a rehearsal's new pieces into the generation's segment, for the heard position.
    private func publishTimeline(of generation: UInt64) {
        let timeline = program.timeline
        segments.withLock { s in
            if let k = s.lastIndex(where: { $0.generation == generation }), s[k].timeline != timeline { s[k].timeline = timeline }
        }
    }

    /// What the decoder thread is doing (its one state; the request waiting and `quit` are the
    /// control side's, under `condition`).
    private enum Phase: Equatable {
        /// No stream to produce: before the first request, after the end, after a failure.
        case idle
        /// A new generation has started; its first block is not in the ring yet.
        case starting
        /// Writing blocks until the ring is full.
        case filling
        /// The ring was full: waiting until half of it has played, so the thread wakes a few times
        /// a second rather than for every block.
        case waiting
    }

    private func run() {
        var phase = Phase.idle
        var carry: [Float] = []          // produced frames that did not fit in the ring yet
        var generationStart = 0          // the ring's frame index where the latest generation starts
        var primed = true                // the audio thread was woken for its `primeFrames` of it
        var carryOffset = 0              // frames of `carry` already written
        func canWrite(carryPending: Bool) -> Bool {
            carryPending ? ring.freeFrames > 0 : (phase != .waiting || !ring.consumerInCurrentGeneration) && ring.freeFrames >= Pipeline.blockFrames
        }
        let channels = ring.channels
        while true {
            condition.lock()
            // Refill in bursts: once the ring is full, wait until half of it has played, so the
            // thread wakes a few times a second rather than for every block. Right after a restart the
            // ring looks full until the audio thread has skipped the old stream: poll briefly then.
            let caughtUp = ring.consumerInCurrentGeneration
            if phase == .filling && caughtUp && ring.freeFrames < Pipeline.blockFrames { phase = .waiting }
            if phase == .waiting && ring.freeFrames >= ring.capacity / 2 { phase = .filling }
            while !quit && pending == nil && (phase == .idle || !canWrite(carryPending: carryOffset < carry.count / channels)) {
                if phase != .idle {
                    // Paused, nothing drains the ring: wait long, but not untimed. A command signals,
                    // yet the transport may turn to playing just after the audio thread took the new
                    // generation; 0.25 s is well within the ring's 0.74 s, so that costs no underrun.
                    let missing = ring.capacity / 2 - ring.freeFrames
                    let wait = !ring.consumerInCurrentGeneration ? 0.002 : isIdle() ? 0.25 : max(0.01, Double(missing) / Double(outputRate))
                    condition.wait(seconds: wait)
                    if phase == .waiting && ring.freeFrames >= ring.capacity / 2 { phase = .filling }
                } else {
                    condition.wait()
                }
            }
            if quit { condition.unlock(); return }
            let request = pending
            pending = nil
            if let request { latestGeneration = request.generation }
            condition.unlock()
            if request != nil { streamsStarted.add(1, ordering: .relaxed) }

            if let request {
                carry.removeAll(keepingCapacity: true)
                carryOffset = 0
                do {
                    try program.start(at: request.frame, end: range.upperBound, loop: request.loop, edgeFade: edgeFade, settings: request.settings)
                    let ringFrame = ring.beginGeneration(request.generation)
                    generationStart = ringFrame
                    let segment = Segment(generation: request.generation, ringFrame: ringFrame,
                                          endFrame: request.loop?.end ?? range.upperBound, timeline: program.timeline)
                    segments.withLock { s in
                        s.append(segment)
                        if s.count > 64 { s.removeFirst(s.count - 64) }
                    }
                    phase = .starting
                } catch {
                    ring.beginGeneration(request.generation)
                    ring.markEnd()
                    earlyEnds.withLock { $0[request.generation] = (request.frame, "processing failed: \(error)") }
                    phase = .idle
                    continue
                }
            }
            guard phase != .idle else { continue }
            let generation = ring.producerGeneration

            // Write what is left over from the last block first.
            if carryOffset < carry.count / channels {
                let n = carry.withUnsafeBufferPointer {
                    ring.write($0.baseAddress! + carryOffset * channels, frames: carry.count / channels - carryOffset)
                }
                carryOffset += n
                if carryOffset < carry.count / channels { continue }
                carry.removeAll(keepingCapacity: true)
                carryOffset = 0
            }
            do {
                defer { publishTimeline(of: generation) }
                let more = try program.produce { p, n in
                    // A program may hand over more than once a call (a loop's fade into its
                    // cycle): once some is carried, the rest goes after it.
                    let written = carry.isEmpty ? ring.write(p, frames: n) : 0
                    if written < n { carry.append(contentsOf: UnsafeBufferPointer(start: p + written * channels, count: (n - written) * channels)) }
                }
                if phase == .starting {
                    phase = .filling
                    primed = ring.producerIndex &- generationStart >= primeFrames
                    onGeneration()
                } else if !primed, ring.producerIndex &- generationStart >= primeFrames {
                    // The audio thread waits for this much before it starts the stream: it
                    // starts now, not at its next look.
                    primed = true
                    onGeneration()
                }
                if !more {
                    if carry.isEmpty {
                        ring.markEnd()
                        phase = .idle
                    } else {
                        // Finish writing the carry, then mark the end.
                        while !carry.isEmpty {
                            condition.lock()
                            let interrupted = quit || pending != nil
                            if !interrupted && ring.freeFrames == 0 { condition.wait(seconds: 0.02) }
                            condition.unlock()
                            if interrupted { break }
                            let n = carry.withUnsafeBufferPointer {
                                ring.write($0.baseAddress! + carryOffset * channels, frames: carry.count / channels - carryOffset)
                            }
                            carryOffset += n
                            if carryOffset == carry.count / channels { carry.removeAll(keepingCapacity: true); carryOffset = 0 }
                        }
                        if carry.isEmpty { ring.markEnd(); phase = .idle }
                    }
                    if let e = program.earlyEnd { earlyEnds.withLock { $0[generation] = e } }
                }
            } catch {
                earlyEnds.withLock { $0[generation] = (program.sourceFrame, "processing failed: \(error)") }
                ring.markEnd()
                phase = .idle
            }
        }
    }
}
