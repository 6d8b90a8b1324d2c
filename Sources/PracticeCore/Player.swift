import Foundation
import PracticeAudio
import Synchronization

/// How a player starts.
public struct PlayerOptions: Sendable {
    /// The ALSA PCM name (`default` reaches PipeWire or PulseAudio).
    public var device = "default"
    public var settings = PlaybackSettings()
    /// Range in seconds on the source timeline; nil = start / end of the track.
    public var from: Double?
    public var to: Double?
    public var startPlaying = true
    /// A region to repeat; playback starts at `from` (a lead-in) or at the loop's start.
    public var loop: LoopRange?
    /// The sidecar that names markers for controllers' jumps, instead of the track's own (`--markers`).
    public var sidecar: String?
    /// Tags shown instead of the file's own (title, artist, album): a song document's.
    public var tags: [String: String] = [:]
    public init() {}
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
    public static let minimumSeconds = 0.05
}

/// The loop being played, for views.
public struct LoopState: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var name: String?
    /// The pass being heard, from 1.
    public var pass: Int
    public var passes: Int?
    public init(start: Double, end: Double, name: String?, pass: Int, passes: Int?) {
        self.start = start; self.end = end; self.name = name; self.pass = pass; self.passes = passes
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
    public var isPlaying: Bool
    /// The range played to its end.
    public var isFinished: Bool
    public var underruns: Int
    /// The file ended or failed to decode before the range's end: what happened.
    public var earlyEnd: String?
    /// The output device failed for good.
    public var failure: String?
    public var loop: LoopState?

    public init(title: String, path: String, tags: [String: String] = [:], position: Double, duration: Double,
                rate: Double = 1, pitch: Double = 0, isPlaying: Bool, isFinished: Bool = false, underruns: Int = 0,
                earlyEnd: String? = nil, failure: String? = nil, loop: LoopState? = nil) {
        self.title = title; self.path = path; self.tags = tags; self.position = position; self.duration = duration
        self.rate = rate; self.pitch = pitch; self.isPlaying = isPlaying; self.isFinished = isFinished
        self.underruns = underruns; self.earlyEnd = earlyEnd; self.failure = failure; self.loop = loop
    }
}

/// The hub: one engine that any number of controllers drive (command line, terminal UI, MPRIS, a
/// web remote) and any number of views observe. Commands are accepted from any thread.
///
/// Three threads: the caller's (control), a decoder thread that runs the `Pipeline` into the ring,
/// and the real-time audio thread that moves the ring to the device. Every command restarts the
/// stream at the heard position with a new generation: the audio thread drops what the device
/// holds, so a seek, rate change or pause is heard within one device period plus one decoded block.
public final class Player: Sendable {
    public let track: Track
    /// The track's tags with `PlayerOptions.tags` over them, as views show them.
    public let tags: [String: String]
    /// Where controllers' marker names are looked up: nil for the track's own sidecar.
    public let sidecar: String?
    public let outputFormat: OutputFormat
    /// Whether the audio thread runs with SCHED_FIFO.
    public let isRealTime: Bool
    private let audio: AudioThread<ALSAOutput>
    private let decoder: Decoder
    private let control: Mutex<Control>
    private let observers = Mutex<[UUID: AsyncStream<PlayerState>.Continuation]>([:])

    /// What the controllers asked for most recently.
    private struct Control {
        var generation: UInt64 = 0
        var settings: PlaybackSettings
        var playing: Bool
        /// Where the latest generation starts (source frame), for the moments before it is heard.
        var startFrame: Int
        var loop: LoopRange?
        /// Passes of the loop heard before the latest generation started (a pause or a rate change
        /// restarts the stream without restarting the count).
        var passesBefore = 0
    }

    /// Opens the track and the device and starts the threads (playing if `options.startPlaying`).
    public init(path: String, options: PlayerOptions) throws(PracticeError) {
        sidecar = options.sidecar
        let opened = try Track.open(path)
        let track = opened.track
        self.track = track
        tags = track.tags.merging(options.tags) { _, shown in shown }
        let range = try track.playRange(from: options.from, to: options.to, loop: options.loop)
        let (from, to) = (range.start, range.end)

        let output: ALSAOutput
        do {
            output = try ALSAOutput(device: options.device, sampleRate: track.info.sampleRate, channels: track.info.channels)
        } catch {
            throw PracticeError(.unavailable, "cannot play \(path): no usable audio device '\(options.device)' (\(error.function): \(error.message)); pick one with --device, or write a file with 'practice render'")
        }
        outputFormat = output.format
        // 32768 frames = 0.74 s at 44.1 kHz of decoded audio between decoder and device.
        let ring = RingBuffer(minimumFrames: 32_768, channels: track.info.channels)
        audio = AudioThread(ring: ring, output: output, primeFrames: 2 * output.periodFrames)
        let audio = self.audio
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(file: opened.file, outputRate: output.format.sampleRate, settings: options.settings)
        } catch {
            throw PracticeError(.software, "\(path): cannot set up processing: \(error)")
        }
        decoder = Decoder(program: Program(pipeline: pipeline), ring: ring, range: from..<to, outputRate: output.format.sampleRate,
                          isIdle: { audio.transport.load(ordering: .relaxed) != .playing }, onGeneration: { audio.wake() })
        control = Mutex(Control(settings: options.settings, playing: options.startPlaying, startFrame: from, loop: options.loop))
        isRealTime = audio.start()
        decoder.start()
        restart(at: from, settings: options.settings, playing: options.startPlaying)
    }

    deinit { shutDown() }

    // MARK: Commands (any thread)

    public func play() {
        let (settings, playing) = control.withLock { ($0.settings, $0.playing) }
        let finished = state.isFinished
        if playing && !finished { return }
        if finished {
            let loop = control.withLock { $0.loop }
            restart(at: loop.map { track.frame(clamping: $0.start) } ?? decoder.range.lowerBound, settings: settings, playing: true, passesBefore: 0)
        } else {
            restart(at: heardFrame(), settings: settings, playing: true)
        }
    }

    public func pause() {
        guard control.withLock({ $0.playing }) else { return }
        // Remember where we are, then stop: resuming restarts from here.
        let at = heardFrame()
        let heardPasses = currentPass().map { $0 - 1 }   // kept while paused, and counted on from on resume
        control.withLock { c in
            c.playing = false
            c.startFrame = at
            if let heardPasses { c.passesBefore = heardPasses }
        }
        audio.transport.store(.paused, ordering: .releasing)
        audio.wake()
        notify()
    }

    public func togglePause() { control.withLock { $0.playing } ? pause() : play() }

    /// Jumps to `seconds` on the source timeline (anywhere before the range's end: `--from` is not a fence). With a loop, a
    /// seek before it plays into it, and one past its end lands on its last moment.
    public func seek(to seconds: Double) {
        // `--from` is where playing starts, not a fence: a seek may go before it (Home, a marker).
        var frame = min(track.frame(clamping: seconds), decoder.range.upperBound - 1)
        if let loop = control.withLock({ $0.loop }) { frame = min(track.frame(clamping: seconds), track.frame(clamping: loop.end) - 1) }
        let (settings, playing) = control.withLock { ($0.settings, $0.playing) }
        restart(at: frame, settings: settings, playing: playing)
    }

    /// Where playing started (`--from`), in seconds: where the end of the range sends a session back to.
    public var startPosition: Double { Double(decoder.range.lowerBound) / Double(track.info.sampleRate) }

    /// Sets the tempo (clamped to `PlaybackSettings.rateRange`), pitch unchanged.
    public func setRate(_ rate: Double) {
        var s = control.withLock { $0.settings }
        s.rate = min(max(rate, PlaybackSettings.rateRange.lowerBound), PlaybackSettings.rateRange.upperBound)
        restart(at: heardFrame(), settings: s, playing: control.withLock { $0.playing })
    }

    /// Sets the pitch shift in semitones (clamped to ±12), tempo unchanged.
    public func setPitch(_ semitones: Double) {
        var s = control.withLock { $0.settings }
        s.pitch = min(max(semitones, PlaybackSettings.pitchRange.lowerBound), PlaybackSettings.pitchRange.upperBound)
        restart(at: heardFrame(), settings: s, playing: control.withLock { $0.playing })
    }

    /// Repeats `loop` (nil: stop looping and play on). Playback goes on from the heard position
    /// if it lies before the loop's end, else from the loop's start; the pass count starts again
    /// unless `keepingCount` (the same loop, its ends moved a little).
    public func setLoop(_ loop: LoopRange?, keepingCount: Bool = false) throws(PracticeError) {
        if let loop { try Self.check(loop, in: track) }
        let at = heardFrame()
        let (settings, playing) = control.withLock { c in
            c.loop = loop
            return (c.settings, c.playing)
        }
        let start = loop.map { at < track.frame(clamping: $0.end) ? at : track.frame(clamping: $0.start) } ?? at
        restart(at: start, settings: settings, playing: playing, passesBefore: keepingCount ? nil : 0)
    }

    static func check(_ loop: LoopRange, in track: Track) throws(PracticeError) {
        guard loop.start >= 0, loop.end <= track.duration + 0.0005 else {
            throw PracticeError(.usage, "the loop \(Timecode.format(loop.start, decimals: 3))–\(Timecode.format(loop.end, decimals: 3)) is not inside \(track.path) (\(Timecode.format(track.duration, decimals: 3)))")
        }
        guard loop.end - loop.start >= LoopRange.minimumSeconds else {
            throw PracticeError(.usage, "a loop must be at least \(Int(LoopRange.minimumSeconds * 1000)) ms long (\(Timecode.format(loop.start, decimals: 3))–\(Timecode.format(loop.end, decimals: 3)))")
        }
        if let passes = loop.passes, passes < 1 { throw PracticeError(.usage, "a loop plays at least once (got \(passes) times)") }
    }

    /// Stops both threads and closes the device. The player cannot be used afterwards.
    public func stop() {
        shutDown()
        // Finish outside the lock: finishing runs onTermination, which takes the lock itself.
        let all = observers.withLock { obs in
            defer { obs.removeAll() }
            return Array(obs.values)
        }
        for c in all { c.finish() }
    }

    private func shutDown() {
        audio.stop()
        decoder.stop()
    }

    /// Starts a new generation at `frame`. `passesBefore` is how many passes of the loop have
    /// been heard already (nil: keep counting from where the current generation is).
    private func restart(at frame: Int, settings: PlaybackSettings, playing: Bool, passesBefore: Int? = nil) {
        let heardPasses = passesBefore ?? currentPass().map { $0 - 1 } ?? 0
        let (generation, region) = control.withLock { c in
            c.generation += 1
            c.settings = settings
            c.playing = playing
            c.startFrame = frame
            c.passesBefore = heardPasses
            let region = c.loop.map { l in
                LoopRegion(start: track.frame(clamping: l.start), end: track.frame(clamping: l.end),
                           passes: l.passes.map { max($0 - heardPasses, 1) }, rehearsal: l.rehearsal, firstPass: heardPasses)
            }
            return (c.generation, region)
        }
        decoder.request(.init(generation: generation, frame: frame, settings: settings, loop: region))
        audio.transport.store(playing ? .playing : .paused, ordering: .releasing)
        audio.wake()
        notify()
    }

    // MARK: State (any thread)

    /// The source frame being heard now.
    private func heardFrame() -> Int {
        let c = control.withLock { $0 }
        guard c.playing else { return c.startFrame }
        guard let segment = decoder.segment(forGeneration: c.generation) else { return c.startFrame }
        if audio.endedGeneration.load(ordering: .acquiring) == c.generation { return segment.endFrame }
        return segment.sourceFrame(atRing: heardRingFrame(from: segment.ringFrame))
    }

    /// The ring frame being heard, for a generation that starts at ring frame `ringFrame` (never
    /// before it: until the device reports the new stream playing, it is at its start).
    private func heardRingFrame(from ringFrame: Int) -> Double {
        max(heardRingFrame(), Double(ringFrame))
    }

    /// The ring frame being heard now: the audio thread's last measurement, extrapolated by the
    /// time since (at most one measurement apart).
    private func heardRingFrame() -> Double {
        let reading = audio.clock.read()
        var heard = Double(reading.heardFrame)
        if reading.running {
            let elapsed = Double(monotonicNanoseconds() - reading.timeNs) / 1e9
            heard += min(elapsed, 0.05) * Double(outputFormat.sampleRate)
        }
        return heard
    }

    /// The rate being heard: the trainer's for the pass playing, else the one asked for.
    private func heardRate(_ c: Control) -> Double {
        guard c.loop?.rehearsal.trainer != nil, c.playing, let segment = decoder.segment(forGeneration: c.generation) else { return c.settings.rate }
        return segment.rate(atRing: heardRingFrame(from: segment.ringFrame)) ?? c.settings.rate
    }

    /// The pass of the loop being heard (from 1), counting passes before the latest restart.
    private func currentPass() -> Int? {
        let c = control.withLock { $0 }
        guard c.loop != nil else { return nil }
        guard c.playing, let segment = decoder.segment(forGeneration: c.generation) else { return c.passesBefore + 1 }
        return c.passesBefore + segment.pass(atRing: heardRingFrame(from: segment.ringFrame))
    }

    public var state: PlayerState {
        let c = control.withLock { $0 }
        let finished = audio.endedGeneration.load(ordering: .acquiring) == c.generation
        let failure = audio.failure.load(ordering: .acquiring)
        let rate = Double(track.info.sampleRate)
        return PlayerState(
            title: tags["title"] ?? track.displayTitle, path: track.path, tags: tags,
            position: Double(heardFrame()) / rate, duration: track.duration,
            rate: heardRate(c), pitch: c.settings.pitch,
            isPlaying: c.playing && !finished && failure == 0, isFinished: finished,
            underruns: audio.underruns.load(ordering: .relaxed),
            earlyEnd: decoder.earlyEnd(forGeneration: c.generation).map {
                "\(track.path): \($0.reason) at \(Timecode.format(Double($0.frame) / rate, decimals: 3)) of \(Timecode.format(track.duration, decimals: 3))"
            },
            failure: failure == 0 ? nil : "audio device '\(outputFormat)' failed (ALSA error \(failure))",
            loop: c.loop.map { LoopState(start: $0.start, end: $0.end, name: $0.name, pass: currentPass() ?? 1, passes: $0.passes) })
    }

    /// Snapshots every `interval` while playing (once a second while paused or finished, when
    /// only commands change anything) and after every command, until the player stops.
    public func updates(every interval: Duration = .milliseconds(100)) -> AsyncStream<PlayerState> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: PlayerState.self, bufferingPolicy: .bufferingNewest(1))
        observers.withLock { $0[id] = continuation }
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { break }
                let s = self.state
                continuation.yield(s)
                try? await Task.sleep(for: s.isPlaying && !s.isFinished ? interval : max(interval, .seconds(1)))
            }
        }
        continuation.onTermination = { [weak self] _ in
            ticker.cancel()
            _ = self?.observers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    private func notify() {
        let s = state
        for c in observers.withLock({ Array($0.values) }) { c.yield(s) }
    }

    /// Waits until the range has played to its end (or the device failed).
    public func waitUntilFinished() async {
        for await s in updates(every: .milliseconds(20)) where s.isFinished || s.failure != nil { return }
    }
}
