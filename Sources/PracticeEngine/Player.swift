// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Dispatch
import Glibc
import PracticeAudio
import Synchronization
import PracticeDocuments
import PracticeSystem

/// Where a player's sound goes.
public enum OutputChoice: Sendable {
    /// An ALSA PCM by name (`default` reaches PipeWire or PulseAudio; `null` swallows everything).
    case alsa(String)
    /// A device whose clock the caller advances (`VirtualOutput.play(frames:)`): exact engine tests.
    case virtual(VirtualOutput)
}

/// What the player's ticker waits on between its looks (publishing the position, finding a new
/// pass or the end): the system's monotonic clock, or, in tests, one that moves only when the test
/// says, so what the ticker publishes over a stretch of time is exact.
public protocol TickerClock: Sendable {
    /// Returns once `seconds` have gone by on this clock, or as soon as `wake` is signalled (a
    /// command changed something to look at).
    func wait(_ seconds: Double, or wake: TickerWake)
    /// The ticker is done for good (its player stopped): it will not wait again.
    func tickerEnded()
}

/// The system's monotonic clock.
public struct SystemTickerClock: TickerClock {
    public init() {}
    public func wait(_ seconds: Double, or wake: TickerWake) { _ = wake.take(within: seconds) }
    public func tickerEnded() {}
}

/// What wakes a player's ticker before its time (a command, a new subscriber): a semaphore that
/// also counts what was signalled and what was taken, so a test's clock can tell a ticker that was
/// woken and has not run yet from one that is waiting (`isPending`, `takenCount`).
public final class TickerWake: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let signalled = Atomic<UInt64>(0)
    private let taken = Atomic<UInt64>(0)

    public init() {}

    public func signal() {
        signalled.add(1, ordering: .sequentiallyConsistent)
        semaphore.signal()
    }

    /// Waits for a signal (`seconds` nil: for ever); whether one came.
    @discardableResult
    public func take(within seconds: Double? = nil) -> Bool {
        let came = seconds.map { semaphore.wait(timeout: .now() + $0) == .success } ?? { semaphore.wait(); return true }()
        if came { taken.add(1, ordering: .sequentiallyConsistent) }
        return came
    }

    /// Takes every signal already given (many commands are one change to look at).
    public func takeAll() { while take(within: 0) {} }

    /// Whether a signal was given that the ticker has not taken yet.
    public var isPending: Bool { signalled.load(ordering: .sequentiallyConsistent) > takenCount }

    /// How many signals were taken so far.
    public var takenCount: UInt64 { taken.load(ordering: .sequentiallyConsistent) }
}

/// How a player starts.
public struct PlayerOptions: Sendable {
    public var output = OutputChoice.alsa("default")
    /// The ALSA PCM name (`default` reaches PipeWire or PulseAudio).
    public var device: String {
        get { if case .alsa(let name) = output { name } else { "virtual" } }
        set { output = .alsa(newValue) }
    }
    /// How often views hear the position while playing.
    public var tickInterval = Duration.milliseconds(100)
    /// The clock the ticker waits on: the system's, or a test's that moves only when told.
    public var tickerClock: any TickerClock = SystemTickerClock()
    /// The sound device's period in microseconds (its buffer: `ALSAOutput.bufferMicroseconds`): how often the audio
    /// thread wakes. Commands do not wait for it (they drop the device's buffer), so a player
    /// nobody watches (in the background) takes longer ones and wakes less.
    public var devicePeriodMicroseconds = ALSAOutput.defaultPeriodMicroseconds
    public var settings = PlaybackSettings()
    /// The audio stream of a container with several (nil: the first).
    public var audioStream: Int?
    /// Range in seconds on the source timeline; nil = start / end of the track.
    public var from: Double?
    public var to: Double?
    public var startPlaying = true
    /// Seconds of fade in where the range starts (and wherever play starts in it) and of fade
    /// out where it ends (a preview's); 0: none.
    public var edgeFade: Double = 0
    /// A region to repeat; playback starts at `from` (a lead-in) or at the loop's start.
    public var loop: LoopRange?
    /// A video's picture mirrored from the start (`--mirror`, or the track's saved place).
    public var mirror = false
    /// A video's window, for a session that has one to show (a file with a picture, and a
    /// display): shown unless `--no-video`. Nil: no picture in this session.
    public var video: VideoState?
    /// The sidecar that names markers for controllers' jumps, instead of the track's own (`--markers`).
    public var sidecar: String?
    /// Tags shown instead of the file's own (title, artist, album): a song document's.
    public var tags: [String: String] = [:]
    /// When the device goes away (the sound server stopped), wait for it and play on from the
    /// heard position when it is back, instead of failing (`--reconnect`).
    public var reconnect = false
    /// How often a player waiting for its device tries to open it again; twice as long each time
    /// the device went away again within 2 s of coming back (at most 16 times as long).
    public var reconnectInterval = Duration.milliseconds(500)
    /// What the player does when the range (or a loop's last pass) has played.
    public var atEnd = EndPolicy.finish
    public init() {}
}

/// What a player does at the end of what it plays.
public enum EndPolicy: Sendable, Equatable {
    /// Stays finished: a script's or a status line's player ends there.
    case finish
    /// Publishes `finished`, then goes back, paused, ready to play again: to the start of the
    /// range (`--from`), or, when a loop's passes ran out, to the loop's start with every pass to
    /// play again. A person's player (the practice screen's, one in the background).
    case rewind
}

/// A loop as controllers ask for it: seconds on the source timeline, `passes` times (nil: until stopped).
public struct LoopRange: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var passes: Int?
    /// The loop's name in the sidecar, for views.
    public var name: String?
    /// Count-in, gaps, pre-roll, trainer.
    public var rehearsal: Rehearsal
    public init(start: Double, end: Double, passes: Int? = nil, name: String? = nil, rehearsal: Rehearsal = Rehearsal()) {
        self.start = start; self.end = end; self.passes = passes; self.name = name; self.rehearsal = rehearsal
    }
    /// The shortest loop we play: 50 ms, so each pass is longer than its 10 ms seam.
    public static let minimumSeconds = Sidecar.shortestLoop
}

/// The player's loop, for views: being played (`isOn`), or set and switched off.
public struct LoopState: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var name: String?
    /// The pass being heard, from 1.
    public var pass: Int
    public var passes: Int?
    public var isOn: Bool
    /// Count-in, gaps, pre-roll and trainer around its passes.
    public var rehearsal: Rehearsal
    /// During a count-in: the click being heard (from 1) and how many there are.
    public var countIn: CountInBeat?
    public struct CountInBeat: Sendable, Equatable {
        public var beat: Int
        public var of: Int
        public init(beat: Int, of: Int) { self.beat = beat; self.of = of }
    }
    public init(start: Double, end: Double, name: String?, pass: Int, passes: Int?, isOn: Bool = true, rehearsal: Rehearsal = Rehearsal()) {
        self.start = start; self.end = end; self.name = name; self.pass = pass; self.passes = passes
        self.isOn = isOn; self.rehearsal = rehearsal
    }
}

/// A snapshot of the player that any observer can show.
public struct PlayerState: Sendable, Equatable {
    public var title: String
    public var path: String
    public var tags: [String: String]
    /// The position being **heard**, in seconds on the source timeline.
    public var position: Double
    public var duration: Double
    public var rate: Double
    public var pitch: Double
    /// The stretcher playing: SoundTouch (fast) or Rubber Band's R3 (high); fast below 8 kHz,
    /// which R3 does not take, whatever was asked.
    public var quality = StretchQuality.fast
    /// A voice's formants kept through a pitch shift (with `quality` high).
    public var formant = false
    public var isPlaying: Bool
    /// The range played to its end.
    public var isFinished: Bool
    public var underruns: Int
    /// The file ended or failed to decode before the range's end: what happened.
    public var earlyEnd: String?
    /// The output device failed for good: what happened, in words, naming the device.
    public var failure: String?
    /// The output device went away and the player waits for it to come back (`--reconnect`):
    /// what happened, in words, naming the device. Nothing is heard meanwhile; the position holds.
    public var deviceLost: String?
    public var loop: LoopState?
    /// Whether the audio thread got real-time priority (SCHED_FIFO); without it a busy machine may make it skip.
    public var isRealTime = true
    /// A video's picture shown mirrored (left and right swapped), as a mirror shows a dancer: a
    /// setting of the session that the video window follows, kept with the track's place.
    public var isMirrored = false
    /// The video's window, for a session that has one (shown or hidden, full screen or not): a
    /// view that the window follows. Nil: no picture in this session.
    public var video: VideoState?
    /// After an end with `EndPolicy.rewind`, until the next command: what ended (the track, or
    /// the loop's passes), for views to say why the player went back.
    public var rewound: Rewound?
    public enum Rewound: Sendable, Equatable {
        /// The range played to its end: back at its start.
        case track
        /// The loop's passes (this many) ran out: back at its start.
        case passes(Int)
    }

    public init(title: String, path: String, tags: [String: String] = [:], position: Double, duration: Double,
                rate: Double = 1, pitch: Double = 0, isPlaying: Bool, isFinished: Bool = false, underruns: Int = 0,
                earlyEnd: String? = nil, failure: String? = nil, loop: LoopState? = nil) {
        self.title = title; self.path = path; self.tags = tags; self.position = position; self.duration = duration
        self.rate = rate; self.pitch = pitch; self.isPlaying = isPlaying; self.isFinished = isFinished
        self.underruns = underruns; self.earlyEnd = earlyEnd; self.failure = failure; self.loop = loop
    }
}


/// A video's window: shown or hidden (`v`), full screen or not (`f`).
public struct VideoState: Sendable, Equatable {
    public var isShown: Bool
    public var isFullScreen: Bool
    public init(isShown: Bool = true, isFullScreen: Bool = false) {
        self.isShown = isShown; self.isFullScreen = isFullScreen
    }
}

/// One change of the player, for views. Every state change is published once, in the order the
/// commands were carried out, to every subscriber (`Player.events`); ticks only to subscribers
/// that take them, and not at all when none does.
public struct PlayerEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// The first event a subscriber gets: the state when it subscribed.
        case snapshot
        /// Commands, from any controller.
        /// `qualityChanged`: the stretcher, or its formants setting.
        case played, paused, seeked, rateChanged, pitchChanged, qualityChanged, loopChanged, mirrorChanged, videoChanged
        /// Time went by while playing (every `PlayerOptions.tickInterval`).
        case tick
        /// A loop's next pass began (`state.loop.pass`).
        case passStarted
        /// The range played to its end.
        case finished
        /// The device failed for good (`state.failure`).
        case failed
        /// The device went away; the player waits for it (`state.deviceLost`, `--reconnect`).
        case deviceLost
        /// The device is back: playing on (if it was) from where it was heard.
        case deviceBack
        /// The player stopped; nothing follows.
        case stopped
    }
    public var kind: Kind
    /// The state right after the change.
    public var state: PlayerState
    /// 1, 2, 3… over all of the player's events (a snapshot repeats the latest): a subscriber that
    /// keeps only the newest events can tell that it missed some.
    public var sequence: UInt64
    /// The output device's clock when the event was published, in seconds (monotonic on a card,
    /// the frames heard on a virtual device): time heard, for a journal. 0 from a remote player.
    public var clock: Double
    public init(kind: Kind, state: PlayerState, sequence: UInt64, clock: Double = 0) {
        self.kind = kind; self.state = state; self.sequence = sequence; self.clock = clock
    }
}

/// The hub: one engine that any number of controllers drive (keyboard, control socket, stdin,
/// MPRIS, a web remote) and any number of views observe. Commands are accepted from any thread.
///
/// **One serial path.** Every command runs whole inside one lock (`engine`): it reads the heard
/// position, decides, hands the decoder a request stamped with a new generation, sets the audio
/// thread's transport and publishes its event, before the next command starts. So commands from
/// several controllers apply one after the other, the decoder's requests arrive in generation order
/// (it drops any older than one it has), and every subscriber sees the same events in the same order.
/// Events are collected on the serial path and delivered after its lock is released (`Outbox`),
/// so a subscriber may call the player back; a command returns once its events are delivered.
///
/// Three threads besides the callers': a decoder thread that runs the `Program` into the ring, the
/// real-time audio thread that moves the ring to the device, and a ticker that publishes the position
/// while playing and notices what no command causes (a loop's next pass, the end, a failed device).
/// Every command restarts the stream at the heard position with a new generation: the audio thread
/// drops what the device holds, so a seek, rate change or pause is heard within one device period
/// plus one decoded block.
public final class Player: Sendable {
    public let track: Track
    /// The track's tags with `PlayerOptions.tags` over them, as views show them.
    public let tags: [String: String]
    /// Where controllers' marker names are looked up: nil for the track's own sidecar.
    public let sidecar: String?
    public let outputFormat: OutputFormat
    /// The output's name (`default`, `pulse`, `virtual`…), for messages.
    public let deviceName: String
    private let audio: any AudioThreadControl
    /// The real-time thread's `pthread_t` (for tests that watch what it does).
    var audioThreadID: UInt { audio.threadID }
    /// Streams the decoder has begun (for tests that count them).
    var streamsStarted: Int { decoder.streamsStarted.load(ordering: .relaxed) }
    /// Whether the audio thread runs with SCHED_FIFO.
    public var isRealTime: Bool { audio.isRealTime }
    /// When (on the output's clock) the audio thread last measured the device (for tests on a
    /// virtual device, which wait for the measurement that includes the frames they heard).
    public var lastMeasurementNanoseconds: Int64 { audio.clock.read().timeNs }

    /// A rehearsal's passes made ahead at high quality: the bytes they hold, how many were made,
    /// and how many were played from memory.
    public var passesMadeAhead: (bytes: Int, made: Int, played: Int) {
        let u = passCache.usage
        return (u.bytes, u.made, u.served)
    }
    private let decoder: Decoder
    /// A rehearsal's passes at high quality, made ahead and played from memory.
    private let passCache: PassCache
    private let engine: Locked<Engine>
    private let subscribers = Locked<[UUID: Subscriber]>([:])
    /// A view or controller listening: where its events go (its stream, or its handler), how it
    /// is told there are no more, and whether it takes ticks now.
    private struct Subscriber {
        let deliver: @Sendable (PlayerEvent) -> Void
        let finish: @Sendable () -> Void
        let wantsTicks: @Sendable () -> Bool
        /// The sequence of the snapshot it started with: older events still on their way out
        /// are not for it.
        let since: UInt64
    }
    /// Events published on the serial path, on their way to the subscribers (outside it).
    private let outbox = Outbox()
    private let tickInterval: Duration
    private let tickerClock: any TickerClock
    private let atEnd: EndPolicy
    /// Seconds between tries to open a device that went away; nil: a failure is for good.
    private let reconnect: Double?
    /// Signalled by commands so the ticker notices a change of transport at once.
    private let tickWake = TickerWake()

    /// What the controllers asked for most recently, and what was last published.
    private struct Engine {
        var generation: UInt64 = 0
        var settings: PlaybackSettings
        var playing: Bool
        /// Where the latest generation starts (source frame), for the moments before it is heard.
        var startFrame: Int
        /// The loop, and whether it is played (a loop switched off keeps its ends for switching on).
        var loop: LoopRange?
        var loopOn = true
        var activeLoop: LoopRange? { loopOn ? loop : nil }
        var mirror = false
        var video: VideoState?
        /// Passes of the loop heard before the latest generation started (a pause or a rate change
        /// restarts the stream without restarting the count).
        var passesBefore = 0
        /// The passes a trainer's loop had reached when it was switched off: switched on again,
        /// the trainer goes on from there.
        var trainerPassesWhenOff: Int?
        var sequence: UInt64 = 0
        var published: PlayerState?
        var stopped = false
        /// The request of a restart not yet sent: the command's event is computed first, so it
        /// says where the command put the player before the threads move on from there.
        var pending: Decoder.Request?
        /// `--reconnect`: when the device last came back, the seconds between tries to open it
        /// while it is gone (longer for a device that keeps going away: see `deviceWentAway`),
        /// and when the next try is due.
        var deviceBackAt: ContinuousClock.Instant?
        var retryDelay = 0.0
        var nextTry = ContinuousClock.now
        /// What the last rewind at the end was for (`PlayerState.rewound`); cleared by a restart.
        var rewound: PlayerState.Rewound?
        /// The latest generation was made paused and has not played since: its audio waits in the
        /// ring from `startFrame` as playing would make it, so playing plays it instead of making
        /// the same again (a session starts paused, then plays).
        var unheard = false
    }

    /// Opens the track and the device and starts the threads (playing if `options.startPlaying`).
    public init(path: String, options: PlayerOptions) throws(PracticeError) {
        sidecar = options.sidecar
        tickInterval = options.tickInterval
        tickerClock = options.tickerClock
        atEnd = options.atEnd
        reconnect = options.reconnect ? options.reconnectInterval.seconds : nil
        let opened = try Track.open(path, audioStream: options.audioStream)
        // A player seeks (loops, jumps): what that needs is built now, beside the rest.
        opened.file.prepareToSeek()
        let track = opened.track
        self.track = track
        tags = track.tags.merging(options.tags) { _, shown in shown }
        let range = try track.playRange(from: options.from, to: options.to, loop: options.loop)
        let (from, to) = (range.start, range.end)

        // 32768 frames = 0.74 s at 44.1 kHz of decoded audio between decoder and device; at high
        // rates half a second, so that it holds what the audio thread waits for before it starts
        // (two 40 ms periods: at 768 kHz, more than 32768 frames; it waited for ever).
        let ring = RingBuffer(minimumFrames: max(32_768, track.info.sampleRate / 2), channels: track.info.channels)
        let audio: any AudioThreadControl
        // The stretcher's and resampler's libraries open on a thread of their own while the
        // device is taken and set up (it opens on its own thread from the launch's start), not
        // after it: the pipeline below waits for them only if they are still opening (exec to
        // the first write, see bench/realtime/README).
        let settings = options.settings
        _ = ControlThread(name: "practice-load") { Pipeline.loadLibraries(for: settings) }
        switch options.output {
        case .alsa(let device):
            do {
                let output = try ALSAOutput(device: device, sampleRate: track.info.sampleRate, channels: track.info.channels,
                                            periodMicroseconds: options.devicePeriodMicroseconds, bufferMicroseconds: ALSAOutput.bufferMicroseconds(period: options.devicePeriodMicroseconds))
                audio = AudioThread(ring: ring, output: output)
            } catch {
                throw PracticeError(.unavailable, "cannot play \(path): no usable audio device '\(device)' (\(error.function): \(error.message)); pick one with --device, or write a file with 'practice render'")
            }
        case .virtual(let output):
            guard output.format == OutputFormat(sampleRate: track.info.sampleRate, channels: track.info.channels) else {
                throw PracticeError(.usage, "\(path): the virtual device is \(output.format), the track \(track.info.sampleRate) Hz, \(track.info.channels) channels")
            }
            audio = AudioThread(ring: ring, output: output)
        }
        self.audio = audio
        outputFormat = audio.audioOutput.format
        deviceName = audio.audioOutput.name
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(file: opened.file, outputRate: outputFormat.sampleRate, settings: options.settings)
            pipeline.lengthIsEstimate = opened.track.lengthIsEstimate
        } catch {
            throw PracticeError(.software, "\(path): cannot set up processing: \(error)")
        }
        let audioStream = track.audioStream
        passCache = PassCache(outputRate: outputFormat.sampleRate, profile: options.settings.profile) { try SoundFile(path: path, audioStream: audioStream) }
        decoder = Decoder(program: Program(pipeline: pipeline, cache: passCache), ring: ring, range: from..<to, outputRate: outputFormat.sampleRate, edgeFade: options.edgeFade,
                          isIdle: { !audio.isPlaying }, primeFrames: audio.primeFrames, onGeneration: { audio.wake() })
        engine = Locked(Engine(settings: options.settings, playing: options.startPlaying, startFrame: from, loop: options.loop, mirror: options.mirror, video: options.video))
        // The decoder first, with its request: it fills the ring while the audio thread is made.
        decoder.start()
        engine.withLock { c in
            restart(&c, at: from, settings: options.settings, playing: options.startPlaying, passesBefore: 0)
            send(&c)
        }
        audio.start()
        engine.withLock { c in c.published = snapshot(c) }
        startTicker()
    }

    deinit { shutDown() }

    /// Opens the libraries a player with `settings` reads, stretches and resamples with, on the
    /// caller's thread (a player's device thread, once the device is open: `ALSAOutput.prepare`).
    public static func loadLibraries(for settings: PlaybackSettings) { Pipeline.loadLibraries(for: settings) }

    // MARK: Commands (any thread; each runs whole on the serial path)

    public func play() { _ = playFromHere() }

    /// Plays, and returns the state and the output's clock as the command left them: playing, at
    /// the place it starts from, before anything is heard (a player already playing: as it is).
    /// What a journal's recorder made a moment later counts from (on a device that takes sound
    /// faster than it plays, a short track may be over by then).
    public func playFromHere() -> (state: PlayerState, clock: Double) {
        command { c in
            guard !c.stopped, !c.playing || audio.lastEndedGeneration == c.generation else { return (snapshot(c), clockSeconds) }
            // The clock before the audio thread is let go, and the state as the command left it:
            // on such a device the thread may play a stream made while paused to its end before
            // `snapshot` looks (a 0.5 s track on ALSA's `null`, one run in six), and a session
            // that starts finished has nothing heard to record.
            let clock = clockSeconds
            play(&c)
            var s = snapshot(c)
            s.position = Double(c.startFrame) / Double(track.info.sampleRate)
            s.isPlaying = c.playing && audio.failureCode == 0
            s.isFinished = false
            return (s, clock)
        }
    }

    public func pause() { command { c in if !c.stopped { pause(&c) } } }

    public func togglePause() {
        command { c in
            guard !c.stopped else { return }
            if c.playing && audio.lastEndedGeneration != c.generation { pause(&c) } else { play(&c) }
        }
    }

    private func play(_ c: inout Engine) {
        let finished = audio.lastEndedGeneration == c.generation
        if c.playing && !finished { return }
        if c.unheard && !finished {
            c.playing = true
            c.unheard = false
            c.rewound = nil
            if c.pending == nil {   // sent paused: the audio thread starts the stream it holds
                setTransport(c)
                decoder.wake()   // it refills as the ring drains, not at its paused pace
            }
        } else if finished {
            restart(&c, at: c.activeLoop.map { track.frame(clamping: $0.start) } ?? decoder.range.lowerBound, settings: c.settings, playing: true, passesBefore: 0)
        } else {
            restart(&c, at: heardFrame(c), settings: c.settings, playing: true)
        }
        publish(&c, .played)
    }

    private func pause(_ c: inout Engine) {
        guard c.playing else { return }
        // Remember where we are, then stop: resuming restarts from here.
        let at = heardFrame(c)
        let heardPasses = currentPass(c).map { $0 - 1 }   // kept while paused, and counted on from on resume
        c.playing = false
        c.startFrame = at
        if let heardPasses { c.passesBefore = heardPasses }
        audio.setTransport(.paused, generation: c.generation)
        audio.wake()
        publish(&c, .paused)
    }

    /// Jumps to `seconds` on the source timeline (anywhere before the range's end: `--from` is not a fence). With a loop, a
    /// seek before it plays into it, and one past its end lands on its last moment.
    public func seek(to seconds: Double) {
        command { c in
            guard !c.stopped else { return }
            restart(&c, at: track.frame(clamping: seconds), settings: c.settings, playing: c.playing)
            publish(&c, .seeked)
        }
    }

    /// Jumps to `seconds` and plays (a marker's or a lyric line's place), as one command.
    public func jump(to seconds: Double) {
        command { c in
            guard !c.stopped else { return }
            restart(&c, at: track.frame(clamping: seconds), settings: c.settings, playing: true)
            publish(&c, .seeked)
        }
    }


    /// Where playing started (`--from`), in seconds: where the end of the range sends a session back to.
    public var startPosition: Double { Double(decoder.range.lowerBound) / Double(track.info.sampleRate) }

    /// Sets the tempo (clamped to `PlaybackSettings.rateRange`), pitch unchanged.
    public func setRate(_ rate: Double) {
        guard rate.isFinite else { return }
        change(.rateChanged) { $0.rate = min(max(rate, PlaybackSettings.rateRange.lowerBound), PlaybackSettings.rateRange.upperBound) }
    }

    /// Sets the pitch shift in semitones (clamped to ±12), tempo unchanged.
    public func setPitch(_ semitones: Double) {
        guard semitones.isFinite else { return }
        change(.pitchChanged) { $0.pitch = min(max(semitones, PlaybackSettings.pitchRange.lowerBound), PlaybackSettings.pitchRange.upperBound) }
    }

    /// Changes the stretcher (the same tempo and pitch; what is heard goes on from the heard position).
    public func setQuality(_ quality: StretchQuality) {
        change(.qualityChanged) { $0.quality = quality }
    }

    /// Keeps a voice's formants through a pitch shift, or not; on, the stretcher is Rubber Band's.
    public func setFormant(_ on: Bool) {
        change(.qualityChanged) {
            $0.formant = on
            if on { $0.quality = .high }
        }
    }

    /// Changes the settings and goes on from the heard position.
    private func change(_ kind: PlayerEvent.Kind, _ edit: (inout PlaybackSettings) -> Void) {
        command { c in
            guard !c.stopped else { return }
            var s = c.settings
            edit(&s)
            restart(&c, at: heardFrame(c), settings: s, playing: c.playing)
            publish(&c, kind)
        }
    }

    /// Repeats `loop` (nil: forget the loop and play on); `on: false` sets its ends without
    /// playing it. Playback goes on from the heard position if it lies before the loop's end, else
    /// from the loop's start; the pass count starts again unless `keepingCount` (the same loop, its
    /// ends moved a little). Changing only the name changes nothing that is heard.
    public func setLoop(_ loop: LoopRange?, keepingCount: Bool = false, on: Bool = true) throws(PracticeError) {
        if let loop { try Self.check(loop, in: track) }
        command { c in
            guard !c.stopped else { return }
            if var renamed = c.loop, let loop, c.loopOn == on {
                renamed.name = loop.name
                if renamed == loop {
                    c.loop = loop
                    publish(&c, .loopChanged)
                    return
                }
            }
            let at = heardFrame(c)
            let wasOn = c.activeLoop != nil
            c.loop = loop
            c.loopOn = on
            guard on || wasOn else { publish(&c, .loopChanged); return }   // nothing heard changes
            restart(&c, at: placeInLoop(at, c), settings: c.settings, playing: c.playing, passesBefore: keepingCount ? nil : 0)
            publish(&c, .loopChanged)
        }
    }

    /// Where playing goes on from `frame` when the loop changes: there if it is before the active
    /// loop's end, else the loop's start.
    private func placeInLoop(_ frame: Int, _ c: Engine) -> Int {
        guard let loop = c.activeLoop, frame >= track.frame(clamping: loop.end) else { return frame }
        return track.frame(clamping: loop.start)
    }

    /// After the last pass of a loop with a number of passes (or to start it over): back to the
    /// loop's start, paused, with every pass to play again, as the end of the track goes back to
    /// its start. Nothing happens without an active loop.
    public func rewindLoop() {
        command { c in
            guard !c.stopped, let loop = c.activeLoop else { return }
            restart(&c, at: track.frame(clamping: loop.start), settings: c.settings, playing: false, passesBefore: 0)
            publish(&c, .paused)
        }
    }

    /// Shows a video's picture mirrored, or not (nothing that is heard changes).
    public func setMirror(_ on: Bool) {
        command { c in
            guard !c.stopped, c.mirror != on else { return }
            c.mirror = on
            publish(&c, .mirrorChanged)
        }
    }

    /// Shows or hides a video's window, or makes it full screen or not (nothing that is heard
    /// changes); nil leaves that side as it is. Full screen shows it. False when this session has
    /// no picture to show.
    @discardableResult
    public func setVideo(shown: Bool? = nil, fullScreen: Bool? = nil) -> Bool {
        command { c in
            guard !c.stopped, var video = c.video else { return false }
            if let fullScreen { video.isFullScreen = fullScreen }
            if let shown { video.isShown = shown }
            if fullScreen == true { video.isShown = true }
            if video != c.video {
                c.video = video
                publish(&c, .videoChanged)
            }
            return true
        }
    }

    /// Switches the loop on or off, keeping its ends (nothing happens without a loop).
    /// A trainer's loop switched off plays on at the speed the trainer had reached; switched on
    /// again, the trainer goes on from the pass it had reached.
    public func setLooping(_ on: Bool) {
        command { c in
            guard !c.stopped, let loop = c.loop, c.loopOn != on else { return }
            let at = heardFrame(c)
            var settings = c.settings
            var passes = 0
            if loop.rehearsal.trainer != nil {
                if on {
                    passes = c.trainerPassesWhenOff ?? 0
                } else {
                    settings.rate = heardRate(c)
                    c.trainerPassesWhenOff = (currentPass(c) ?? 1) - 1
                }
            }
            c.loopOn = on
            restart(&c, at: placeInLoop(at, c), settings: settings, playing: c.playing, passesBefore: passes)
            publish(&c, .loopChanged)
        }
    }

    public static func check(_ loop: LoopRange, in track: Track) throws(PracticeError) {
        guard loop.start.isFinite, loop.end.isFinite, loop.start >= 0, loop.end <= track.duration + 0.0005 else {
            throw PracticeError(.usage, "the loop \(Timecode.format(loop.start, decimals: 3))–\(Timecode.format(loop.end, decimals: 3)) is not inside \(track.path) (\(Timecode.format(track.duration, decimals: 3)))")
        }
        guard loop.end - loop.start >= LoopRange.minimumSeconds else {
            throw PracticeError(.usage, "a loop must be at least \(Int(LoopRange.minimumSeconds * 1000)) ms long (\(Timecode.format(loop.start, decimals: 3))–\(Timecode.format(loop.end, decimals: 3)))")
        }
        if let passes = loop.passes, passes < 1 { throw PracticeError(.usage, "a loop plays at least once (got \(passes) times)") }
    }

    /// Stops the threads, closes the device and ends every subscriber's stream with `stopped`.
    /// The player takes no commands afterwards.
    public func stop() {
        let first = engine.withLock { c in
            defer { c.stopped = true }
            return !c.stopped
        }
        guard first else { return }
        shutDown()
        command { c in
            publish(&c, .stopped)
            outbox.post(.finishAll)   // after `stopped`, in order
        }
    }

    /// Runs `body` on the serial path (the engine's lock held), then, with the lock released,
    /// delivers what it published: a subscriber may call the player back.
    private func command<R>(_ body: (inout Engine) -> R) -> R {
        let result = engine.withLock(body)
        outbox.deliver(to: self)
        return result
    }

    /// What the outbox delivers, in the order it was posted (outside the engine's lock).
    fileprivate func deliver(_ item: Outbox.Item) {
        switch item {
        case .event(let event, let only):
            // A subscriber gets the events after its snapshot (`since`), and its snapshot.
            for (id, s) in subscribers.withLock({ Array($0) }) where only.map({ $0 == id }) ?? (event.sequence > s.since) {
                if event.kind != .tick || s.wantsTicks() { s.deliver(event) }
            }
        case .finishAll:
            // Finishing runs a stream's onTermination, which takes the subscribers' lock itself.
            let all = subscribers.withLock { obs in
                defer { obs.removeAll() }
                return Array(obs.values)
            }
            for s in all { s.finish() }
        }
    }

    private func shutDown() {
        audio.stop()
        decoder.stop()
        passCache.stop()
        tickWake.signal()
    }

    /// Starts a new generation at `frame` (its request goes out with the command's event: `publish`). `passesBefore` is how many passes of the loop have
    /// been heard already (nil: keep counting from where the current generation is).
    private func restart(_ c: inout Engine, at frame: Int, settings: PlaybackSettings, playing: Bool, passesBefore: Int? = nil) {
        let heardPasses = passesBefore ?? currentPass(c).map { $0 - 1 } ?? 0
        c.generation += 1
        c.rewound = nil
        c.settings = settings
        c.playing = playing
        c.unheard = !playing
        c.passesBefore = heardPasses
        let region = c.activeLoop.map { l in
            LoopRegion(start: track.frame(clamping: l.start), end: track.frame(clamping: l.end),
                       passes: l.passes.map { max($0 - heardPasses, 1) }, rehearsal: l.rehearsal, firstPass: heardPasses)
        }
        // The one clamp: a stream starts inside the track and before the loop's end (or the range's).
        // `--from` is where playing starts, not a fence: a seek may go before it (Home, a marker).
        let start = min(max(frame, 0), (region?.end ?? decoder.range.upperBound) - 1)
        c.startFrame = start
        c.pending = .init(generation: c.generation, frame: start, settings: settings, loop: region)
    }

    /// Hands the decoder the restart's request and sets the audio thread's transport.
    private func send(_ c: inout Engine) {
        guard let request = c.pending else { return }
        c.pending = nil
        decoder.request(request)
        setTransport(c)
    }

    /// Has the audio thread play or pause the latest generation as the engine says, at once, and
    /// the ticker look again.
    private func setTransport(_ c: Engine) {
        audio.setTransport(c.playing ? .playing : .paused, generation: c.generation)
        audio.wake()
        tickWake.signal()
    }

    // MARK: State (computed on the serial path)

    /// The source frame being heard now.
    private func heardFrame(_ c: Engine) -> Int {
        guard c.playing else { return c.startFrame }
        guard let segment = decoder.segment(forGeneration: c.generation) else { return c.startFrame }
        if audio.lastEndedGeneration == c.generation { return segment.endFrame }
        return segment.place(atRing: heardRingFrame(from: segment.ringFrame))?.frame ?? c.startFrame
    }

    /// The ring frame being heard, for a generation that starts at ring frame `ringFrame` (never
    /// before it: until the device reports the new stream playing, it is at its start).
    private func heardRingFrame(from ringFrame: Int) -> Double {
        max(audio.clock.heardFrame(at: audio.audioOutput.nowNanoseconds, sampleRate: outputFormat.sampleRate), Double(ringFrame))
    }

    /// The rate being heard: the trainer's for the pass playing, else the one asked for.
    private func heardRate(_ c: Engine) -> Double {
        guard let trainer = c.activeLoop?.rehearsal.trainer else { return c.settings.rate }
        if c.playing, let segment = decoder.segment(forGeneration: c.generation),
           let rate = segment.rate(atRing: heardRingFrame(from: segment.ringFrame)) {
            return rate
        }
        // Paused (or not started yet): the rate of the pass that plays next.
        return trainer.rate(forPass: (currentPass(c) ?? 1) - 1)
    }

    /// The pass of the loop being heard (from 1), counting passes before the latest restart.
    private func currentPass(_ c: Engine) -> Int? {
        guard c.activeLoop != nil else { return nil }
        guard c.playing, let segment = decoder.segment(forGeneration: c.generation) else { return c.passesBefore + 1 }
        return c.passesBefore + (segment.place(atRing: heardRingFrame(from: segment.ringFrame))?.pass ?? 1)
    }

    private func snapshot(_ c: Engine) -> PlayerState {
        let finished = audio.lastEndedGeneration == c.generation
        let failure = audio.failureCode
        let waiting = isWaitingForTheDevice(failure)
        let rate = Double(track.info.sampleRate)
        var s = PlayerState(
            title: tags["title"] ?? track.displayTitle, path: track.path, tags: tags,
            position: Double(heardFrame(c)) / rate, duration: track.duration,
            rate: heardRate(c), pitch: c.settings.pitch,
            isPlaying: c.playing && !finished && failure == 0 && !c.stopped, isFinished: finished,
            underruns: audio.underrunCount,
            earlyEnd: decoder.earlyEnd(forGeneration: c.generation).map {
                "\(track.path): \($0.reason) at \(Timecode.format(Double($0.frame) / rate, decimals: 3)) of \(Timecode.format(track.duration, decimals: 3))"
            },
            failure: failure == 0 || waiting ? nil : "audio device '\(deviceName)' \(audio.audioOutput.describe(failure: failure)); your markers and loops are saved",
            loop: c.loop.map { LoopState(start: $0.start, end: $0.end, name: $0.name, pass: currentPass(c) ?? 1, passes: $0.passes,
                                         isOn: c.loopOn, rehearsal: $0.rehearsal) })
        s.isRealTime = isRealTime
        s.isMirrored = c.mirror
        // What plays: below Rubber Band's lowest rate SoundTouch stretches whatever was asked
        // (Pipeline.finer), with no formants kept; the setting itself is kept for the next track.
        let finer = track.info.sampleRate >= RubberBandStretcher.lowestSampleRate
        s.quality = finer ? c.settings.quality : .fast
        s.formant = finer && c.settings.formant
        s.video = c.video
        s.rewound = c.rewound
        if waiting {
            s.deviceLost = "waiting for audio device '\(deviceName)' to come back: it \(audio.audioOutput.describe(failure: failure))"
        }
        if s.isPlaying, c.activeLoop != nil, let segment = decoder.segment(forGeneration: c.generation),
           let click = segment.countIn(atRing: heardRingFrame(from: segment.ringFrame)) {
            s.loop?.countIn = .init(beat: click.beat, of: click.of)
        }
        return s
    }

    /// The state now (a view that draws on its own clock reads this; one that follows changes subscribes to `events`).
    public var state: PlayerState { engine.withLock { snapshot($0) } }

    /// The state now and the output's clock then (seconds, as `PlayerEvent.clock`), read together.
    public var stateAndClock: (state: PlayerState, clock: Double) { engine.withLock { (snapshot($0), clockSeconds) } }

    /// The latest event's number (`PlayerEvent.sequence`): a view can tell it has seen everything.
    public var sequence: UInt64 { engine.withLock { $0.sequence } }

    /// The output device's clock, in seconds.
    public var clockSeconds: Double { Double(audio.audioOutput.nowNanoseconds) / 1e9 }

    // MARK: Events

    /// Publishes `kind` with the state now to every subscriber (on the serial path).
    private func publish(_ c: inout Engine, _ kind: PlayerEvent.Kind) {
        let state = snapshot(c)
        send(&c)
        publish(&c, kind, state)
    }

    private func publish(_ c: inout Engine, _ kind: PlayerEvent.Kind, _ state: PlayerState) {
        // A device that failed or went away since the last event is news of its own, whoever
        // publishes first (a command may come before the ticker looks).
        if kind != .failed, state.failure != nil, c.published?.failure == nil { publish(&c, .failed, state) }
        if kind != .deviceLost, state.deviceLost != nil, c.published?.deviceLost == nil { publish(&c, .deviceLost, state) }
        if kind == .deviceLost { deviceWentAway(&c) }
        c.sequence += 1
        c.published = state
        outbox.post(.event(PlayerEvent(kind: kind, state: state, sequence: c.sequence, clock: clockSeconds), only: nil))
    }

    /// A subscriber's `ticks` may say yes now where it said no (a socket got a client): the
    /// ticker looks at once instead of when it next would have.
    public func ticksMayHaveChanged() { tickWake.signal() }

    /// Whether anyone listening takes ticks now: if nobody does, time going by is not published
    /// at all (a player in the background wakes nobody ten times a second).
    fileprivate var ticksWanted: Bool { subscribers.withLock { $0.values.contains { $0.wantsTicks() } } }

    /// Every change from now on, starting with a `snapshot` of the state now, until `stopped`.
    /// `keepingNewest`: a view that only draws the latest state keeps that many unread events and
    /// drops older ones; nil keeps them all (a journal, a socket that forwards every event).
    /// `ticks`: whether to send this subscriber the ticks (time going by while playing) at that
    /// moment; asked at each tick, under the player's lock, so it must only read a flag. One
    /// that takes none sees gaps in `sequence` where the ticks were, and reads the position from
    /// `state` when it needs it.
    public func events(keepingNewest: Int? = nil) -> AsyncStream<PlayerEvent> { events(keepingNewest: keepingNewest, ticks: { true }) }

    public func events(keepingNewest: Int? = nil, ticks: @escaping @Sendable () -> Bool) -> AsyncStream<PlayerEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: PlayerEvent.self,
                                                            bufferingPolicy: keepingNewest.map { .bufferingNewest(max($0, 1)) } ?? .unbounded)
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        let finished = engine.withLock { c in
            continuation.yield(PlayerEvent(kind: c.stopped ? .stopped : .snapshot, state: snapshot(c), sequence: c.sequence, clock: clockSeconds))
            if c.stopped { return true }
            subscribers.withLock { $0[id] = Subscriber(deliver: { continuation.yield($0) }, finish: { continuation.finish() }, wantsTicks: ticks, since: c.sequence) }
            tickWake.signal()   // it may take ticks, which the ticker was not publishing
            return false
        }
        if finished { continuation.finish() }
        return stream
    }

    /// Every change from now on handed to `handler`, in order, from a `snapshot` to `stopped`, as
    /// `events` gives them; but on a thread that made a change (a controller's, or the ticker's;
    /// never the audio thread), after the player's lock is released, one event at a time. So
    /// `handler` may call the player (its command's events follow the one being handled), and
    /// should be quick: the next events wait for it. For a view that must not wait for Swift
    /// concurrency's threads (a journal, whose writes keep time). It lasts until the player stops.
    public func subscribe(ticks: @escaping @Sendable () -> Bool = { false }, _ handler: @escaping @Sendable (PlayerEvent) -> Void) {
        let id = UUID()
        let stopped: PlayerEvent? = engine.withLock { c in
            let first = PlayerEvent(kind: c.stopped ? .stopped : .snapshot, state: snapshot(c), sequence: c.sequence, clock: clockSeconds)
            if c.stopped { return first }
            subscribers.withLock { $0[id] = Subscriber(deliver: handler, finish: {}, wantsTicks: ticks, since: c.sequence) }
            outbox.post(.event(first, only: id))
            tickWake.signal()
            return nil
        }
        if let stopped { handler(stopped) } else { outbox.deliver(to: self) }
    }

    /// Waits until the range has played to its end, the device failed or the player stopped.
    public func waitUntilFinished() async {
        for await e in events(keepingNewest: 1) where e.state.isFinished || e.state.failure != nil || e.kind == .stopped { return }
    }

    /// The ticker: while playing, publishes the position every `tickInterval`, and whatever changed
    /// without a command (a new pass, the end, a failed device); while paused it sleeps.
    private func startTicker() {
        let interval = tickInterval.seconds
        let clock = tickerClock
        _ = ControlThread(name: "practice-tick") { [weak self] in
            defer { clock.tickerEnded() }
            while true {
                // No strong reference across the wait: a player nobody holds goes away.
                let step: (wait: Double, wake: TickerWake)? = {
                    guard let self else { return nil }
                    let step = self.engine.withLock { c -> (Double, TickerWake)? in
                        guard !c.stopped else { return nil }
                        let s = self.snapshot(c)
                        if s != c.published {
                            let before = c.published
                            let kind: PlayerEvent.Kind =
                                s.failure != nil && before?.failure == nil ? .failed
                                : s.deviceLost != nil && before?.deviceLost == nil ? .deviceLost
                                : s.isFinished && before?.isFinished != true ? .finished
                                : s.loop?.isOn == true && s.loop?.pass != before?.loop?.pass ? .passStarted
                                : .tick
                            if kind != .tick || self.ticksWanted { self.publish(&c, kind, s) }
                            if kind == .finished { self.rewindAtTheEnd(&c, s) }
                        }
                        return (self.nextLook(s, c, ticking: interval), self.tickWake)
                    }
                    self.outbox.deliver(to: self)
                    return step
                }()
                guard let step else { return }
                self?.tryReopeningTheDevice()
                clock.wait(step.wait, or: step.wake)
                step.wake.takeAll()   // many commands are one change to look at
            }
        }
    }
}

extension Player {
    /// With `--reconnect`, a failure that is the device going away is waited for; any other is for good.
    fileprivate func isWaitingForTheDevice(_ failure: Int32) -> Bool {
        failure != 0 && reconnect != nil && audio.audioOutput.isGone(failure: failure)
    }

    /// The device went away (its `deviceLost` event is being published): it is tried again every
    /// `reconnectInterval`, or, when it went away again within 2 s of coming back, twice as far
    /// apart as last time (up to 16 times), so a device that keeps failing (a loose USB plug, a
    /// server that crashes as it starts) is not reopened, and said lost and back, twice a second
    /// for ever.
    private func deviceWentAway(_ c: inout Engine) {
        guard let reconnect else { return }
        let now = ContinuousClock.now
        let flapping = c.deviceBackAt.map { now - $0 < .seconds(2) } ?? false
        c.retryDelay = flapping ? min(max(c.retryDelay, reconnect) * 2, reconnect * 16) : reconnect
        c.nextTry = now + .seconds(c.retryDelay)
    }

    /// With `--reconnect`, while the device is gone (ticker only): opens it again (outside the
    /// player's lock: it may take a while), then, on the serial path, restarts the stream from
    /// the heard position (where the failure left it, or where a command put it meanwhile) before
    /// the audio thread goes on, so nothing older is heard.
    fileprivate func tryReopeningTheDevice() {
        guard isWaitingForTheDevice(audio.failureCode), engine.withLock({ ContinuousClock.now >= $0.nextTry }) else { return }
        guard audio.reopenDevice() == 0 else {
            engine.withLock { $0.nextTry = .now + .seconds($0.retryDelay) }
            return
        }
        command { c in
            guard !c.stopped else { return }
            restart(&c, at: heardFrame(c), settings: c.settings, playing: c.playing)
            send(&c)                  // the new generation is the one wanted before the thread looks
            audio.deviceReopened()
            c.deviceBackAt = .now
            publish(&c, .deviceBack)
        }
    }

    /// Makes the spoken count of `clicks` now (it is kept), so that it is not made on the decoder's
    /// thread as a count-in starts.
    public func prepareSpokenCount(_ clicks: Int) {
        _ = try? Rehearsal.spokenCount(clicks, sampleRate: outputFormat.sampleRate)
    }

    /// `EndPolicy.rewind`, once `finished` is out (on the serial path): back to the loop's start
    /// when its passes ran out, else to the range's start; paused, every pass to play again.
    private func rewindAtTheEnd(_ c: inout Engine, _ s: PlayerState) {
        guard atEnd == .rewind, s.failure == nil, !c.stopped else { return }
        if let loop = c.activeLoop, let passes = loop.passes {
            restart(&c, at: track.frame(clamping: loop.start), settings: c.settings, playing: false, passesBefore: 0)
            c.rewound = .passes(passes)
        } else {
            restart(&c, at: decoder.range.lowerBound, settings: c.settings, playing: false, passesBefore: 0)
            c.rewound = .track
        }
        publish(&c, .paused)
    }

    /// Seconds until the ticker looks again: `ticking` while playing for subscribers that take
    /// ticks; for none, when the heard position is due at the loop's or the range's end (a new
    /// pass, the end, which take no tick to publish; at least 20 ms, as the position stands still
    /// during a count-in or a gap; at most a second, for a device that failed); paused, a second.
    private func nextLook(_ s: PlayerState, _ c: Engine, ticking: Double) -> Double {
        if s.deviceLost != nil { return max((c.nextTry - .now).seconds, 0) + 0.001 }
        guard s.isPlaying, s.rate > 0 else { return 1 }
        if ticksWanted { return ticking }
        let end = s.loop.flatMap { $0.isOn ? $0.end : nil } ?? Double(decoder.range.upperBound) / Double(track.info.sampleRate)
        return min(max((end - s.position) / s.rate + 0.005, 0.02), 1)
    }
}

extension ResumePoint {
    /// Where `state` is now, to come back to.
    public init(_ state: PlayerState) {
        self.init(position: Sidecar.milliseconds(state.position), rate: state.rate, pitch: state.pitch,
                  loop: state.loop.map { Loop(start: $0.start, end: $0.end, name: $0.name, isOn: $0.isOn) })
        mirror = state.isMirrored
    }
}

/// The player's events on their way out. Published on the serial path (the engine's lock held),
/// each is posted here in order; after the lock is released the thread that posted delivers
/// everything pending, in order, unless another thread is delivering already (then it waits until
/// that one has delivered its events too, so a command's events are out when it returns). The
/// delivering thread may be re-entered by a subscriber that calls the player: its command's events
/// join the queue and are delivered after the one being handled, and it does not wait for itself.
private final class Outbox: @unchecked Sendable {  // `queue`, `posted`, `delivered`, `drainer` only under `condition`'s mutex
    enum Item {
        /// An event for every subscriber (`only` nil) or for one (its snapshot).
        case event(PlayerEvent, only: UUID?)
        /// The player stopped: every subscriber is told there is no more.
        case finishAll
    }
    private let condition = Condition()
    private var queue: [Item] = []
    private var posted: UInt64 = 0
    private var delivered: UInt64 = 0
    /// The thread delivering now, if any.
    private var drainer: pthread_t?

    /// Called on the serial path.
    func post(_ item: Item) {
        condition.lock()
        queue.append(item)
        posted += 1
        condition.unlock()
    }

    /// Delivers everything posted so far (outside the engine's lock), or waits until the thread
    /// delivering has; returns at once on the delivering thread itself (a subscriber's call).
    func deliver(to player: Player) {
        condition.lock()
        defer { condition.unlock() }
        let wanted = posted
        while delivered < wanted {
            if let drainer {
                if pthread_equal(drainer, pthread_self()) != 0 { return }
                condition.wait()
                continue
            }
            drainer = pthread_self()
            while !queue.isEmpty {
                let batch = queue
                queue.removeAll()
                condition.unlock()
                for item in batch { player.deliver(item) }
                condition.lock()
                delivered += UInt64(batch.count)
            }
            drainer = nil
            condition.broadcast()
        }
    }
}