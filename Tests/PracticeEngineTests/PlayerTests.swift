// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl
import PracticeAudio
import PracticeSystem

/// The hub on ALSA's `null` device: no timing, but the whole command and state path for real.
@Suite struct PlayerTests {
    let dir = ScratchDirectory("player")

    func track(seconds: Double = 3) throws -> String {
        let path = dir.file("tone.wav")
        try Signals.write(Signals.sine(440, seconds: seconds), to: path, tags: ["title": "Tone"])
        return path
    }

    func options(rate: Double = 1, playing: Bool = true, from: Double? = nil, to: Double? = nil) -> PlayerOptions {
        var o = PlayerOptions()
        o.device = "null"
        o.settings = PlaybackSettings(rate: rate)
        o.startPlaying = playing
        o.from = from
        o.to = to
        return o
    }

    /// The audio thread starts a new stream (at launch, after a seek) once the ring holds its
    /// `primeFrames`: the decoder wakes it when the first frames are in and again at the block
    /// that brings them there, and not for every block after (the thread is not left to look again
    /// on its own, 2 ms later).
    @Test func theDecoderWakesTheAudioThreadWhenANewStreamHoldsWhatItWaitsFor() throws {
        let file = try SoundFile(path: try track(seconds: 10))
        let frames = file.info.frames
        let pipeline = try Pipeline(file: file, outputRate: 44_100, settings: PlaybackSettings(rate: 0.8))
        let ring = RingBuffer(minimumFrames: 65_536, channels: 2)
        let prime = 3 * Pipeline.blockFrames   // more than the first block's output
        let wakes = Locked<[Int]>([])          // the frames in the ring at each wake
        let decoder = Decoder(program: Program(pipeline: pipeline, cache: nil), ring: ring, range: 0..<frames, outputRate: 44_100,
                              isIdle: { false }, primeFrames: prime) { wakes.withLock { $0.append(ring.producerIndex) } }
        decoder.start()
        defer { decoder.stop() }
        decoder.request(Decoder.Request(generation: 1, frame: 0, settings: PlaybackSettings(rate: 0.8), loop: nil))
        // Nothing reads the ring: the decoder fills it and waits.
        let deadline = Date().addingTimeInterval(20)
        while ring.freeFrames >= Pipeline.blockFrames && Date() < deadline { usleep(1_000) }
        let seen = wakes.withLock { $0 }
        try #require(seen.count == 2, "wakes at \(seen) frames")
        #expect(seen[0] > 0 && seen[0] < prime)
        #expect(seen[1] >= prime && seen[1] < prime + 2 * Pipeline.blockFrames)
    }

    /// What `playFromHere` returns is the state the play command left, playing from where the
    /// stream starts, with the clock read before the audio thread was let go. On `null`, which
    /// takes sound as fast as it is made, a short track made paused (its stream in the ring) is
    /// often over by the next look; the journal's recorder counts from what this returns, and a
    /// session that started finished had nothing heard and was not kept (RemindTests' "practised
    /// today", one run in six on a loaded machine).
    @Test func playFromHereIsPlayingFromItsStartHoweverFastTheDeviceTakesIt() async throws {
        let path = try track(seconds: 0.3)
        var overAtOnce = 0
        for _ in 0..<60 {
            let player = try Player(path: path, options: options(playing: false, from: 0.28))
            try eventually("the paused stream begun") { player.streamsStarted == 1 }
            let (s, clock) = player.playFromHere()
            let after = player.stateAndClock
            #expect(s.isPlaying && !s.isFinished && abs(s.position - 0.28) < 1e-9, "\(s.position) \(s.isPlaying) \(s.isFinished)")
            #expect(after.clock >= clock)
            if after.state.isFinished { overAtOnce += 1 }
            await player.waitUntilFinished()
            #expect(player.state.isFinished && abs(player.state.position - 0.3) < 0.001)
            player.stop()
        }
        print("playFromHere: over by the next look in \(overAtOnce) of 60")
        // A player already playing is left as it is, and said as it is: where it has got to.
        let playing = try Player(path: try track(seconds: 120), options: options(rate: 0.8))
        defer { playing.stop() }
        try eventually("past its first second") { playing.state.position > 1 }
        let (s, _) = playing.playFromHere()
        #expect(s.isPlaying && s.position > 1, "\(s.position)")
    }

    @Test func playsARangeToItsEnd() async throws {
        let player = try Player(path: try track(), options: options(rate: 0.8, from: 1, to: 2))
        await player.waitUntilFinished()
        let s = player.state
        #expect(s.isFinished && !s.isPlaying)
        #expect(s.position == 2)
        #expect(s.title == "Tone" && s.duration == 3 && s.rate == 0.8)
        #expect(s.underruns == 0 && s.failure == nil && s.earlyEnd == nil)
        player.stop()
    }

    /// The picture's settings are the player's: mirror and the video window (shown, full screen)
    /// change the state and are published once each; a player without a picture has no window to
    /// show, and `video` is refused as the command line would refuse it.
    @Test func thePicturesSettingsArePublishedState() async throws {
        var o = options(playing: false)
        o.video = VideoState(isShown: false)
        let player = try Player(path: try track(), options: o)
        defer { player.stop() }
        let events = player.events(keepingNewest: 16, ticks: { false })
        #expect(player.setVideo(fullScreen: true))
        #expect(player.state.video == VideoState(isShown: true, isFullScreen: true))
        player.setVideo(shown: true)   // as it is: nothing published
        player.setMirror(true)
        try player.perform(.video(nil))
        #expect(player.state.video == VideoState(isShown: false, isFullScreen: true) && player.state.isMirrored)
        var kinds: [PlayerEvent.Kind] = []
        for await e in events {
            kinds.append(e.kind)
            if kinds.count == 4 { break }
        }
        #expect(kinds == [.snapshot, .videoChanged, .mirrorChanged, .videoChanged])

        let plain = try Player(path: try track(), options: options(playing: false))
        defer { plain.stop() }
        #expect(!plain.setVideo(shown: true) && plain.state.video == nil)
        #expect(throws: PracticeError(.unavailable, "control: this player shows no picture (the file has none, or there is no display)")) { try plain.perform(.fullScreen(true)) }
    }

    /// `jump` to a name the sidecar lacks is refused with the names it has, and changes nothing;
    /// where a jump lands is measured to the frame in `EngineTests.aJumpLandsOnTheMarkersFrameAndPlays`.
    /// The state says which stretcher plays: asked for high quality with formants kept, a 44.1 kHz
    /// track says so; a 4 kHz one, which Rubber Band's R3 does not take, says fast (SoundTouch
    /// stretches it) with no formants, asked at the start or later.
    @Test func theStateSaysWhichStretcherPlays() throws {
        let low = dir.file("low.wav")
        try Signals.write(Signals.sine(300, seconds: 2, sampleRate: 4_000, channels: 1), to: low, sampleRate: 4_000, channels: 1)
        var o = options(playing: false)
        (o.settings.quality, o.settings.formant) = (.high, true)
        let player = try Player(path: try track(), options: o)
        #expect(player.state.quality == .high && player.state.formant)
        player.stop()
        let lowPlayer = try Player(path: low, options: o)
        defer { lowPlayer.stop() }
        #expect(lowPlayer.state.quality == .fast && !lowPlayer.state.formant)
        lowPlayer.setFormant(true)
        lowPlayer.setQuality(.high)
        #expect(lowPlayer.state.quality == .fast && !lowPlayer.state.formant)
    }

    @Test func aJumpToAnUnknownMarkerIsRefused() throws {
        let path = try track(seconds: 6)
        try SidecarStore.update(for: try Track.open(path).track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Chorus", time: 4, duration: 6)
        }
        let player = try Player(path: path, options: options(playing: false, from: 3.5))
        defer { player.stop() }
        #expect(throws: PracticeError(.usage, "jump: no marker named 'Verse' (there are 'Chorus')")) { try player.perform(.jump("Verse")) }
        #expect(player.state.position == 3.5 && !player.state.isPlaying)
    }

    /// `--from` is where playing starts, not a fence: a seek may land before it; `--to` still ends it.
    @Test func aSeekMayGoBeforeFromButNotPastTo() throws {
        let player = try Player(path: try track(), options: options(playing: false, from: 2, to: 2.5))
        defer { player.stop() }
        #expect(player.state.position == 2 && player.startPosition == 2)
        player.seek(to: 0.5)
        #expect(player.state.position == 0.5)
        player.seek(to: 2.9)
        #expect(player.state.position < 2.5 && player.state.position > 2.49)
    }

    /// A paused loop keeps its pass count; moving its ends a little (the screen's nudges) keeps
    /// counting, a new loop starts again at pass 1.
    @Test func aLoopsPassCountSurvivesPauseAndNudges() throws {
        var o = options()
        o.loop = LoopRange(start: 1, end: 1.5)
        let player = try Player(path: try track(), options: o)   // on `null`, passes fly by
        defer { player.stop() }
        let deadline = Date().addingTimeInterval(5)
        while (player.state.loop?.pass ?? 0) < 4 && Date() < deadline { usleep(1_000) }
        player.pause()
        let pass = try #require(player.state.loop?.pass)
        #expect(pass >= 4)
        usleep(20_000)
        #expect(player.state.loop?.pass == pass)
        try player.setLoop(LoopRange(start: 1, end: 1.51), keepingCount: true)
        #expect(player.state.loop?.pass == pass)
        try player.setLoop(LoopRange(start: 1, end: 1.6))
        #expect(player.state.loop?.pass == 1)
    }

    @Test func pausedPlayerHoldsItsPositionAndSeeksExactly() throws {
        let player = try Player(path: try track(), options: options(playing: false))
        defer { player.stop() }
        #expect(player.state.position == 0 && !player.state.isPlaying)
        player.seek(to: 1.25)
        #expect(player.state.position == 1.25)
        player.setRate(1.5)
        #expect(player.state.position == 1.25 && player.state.rate == 1.5)
        player.setPitch(30)
        #expect(player.state.pitch == 12)
        usleep(50_000)
        #expect(player.state.position == 1.25 && !player.state.isPlaying)
    }

    @Test func observersSeeEveryCommand() async throws {
        let player = try Player(path: try track(), options: options(playing: false))
        var iterator = player.events().makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.kind == .snapshot && first?.state.rate == 1)
        player.setRate(0.5)
        let e = await iterator.next()
        #expect(e?.kind == .rateChanged && e?.state.rate == 0.5 && e?.sequence == first.map { $0.sequence + 1 })
        player.stop()
        #expect(await iterator.next()?.kind == .stopped)
        #expect(await iterator.next() == nil) // stopping ends every stream
    }

    /// A subscriber that takes no ticks gets every change but not time going by; with nobody
    /// taking ticks none is published at all (no gap in `sequence`, over longer than the ticker's
    /// longest sleep): a player in the background wakes nobody ten times a second. One that takes
    /// them gets them; the other still does not.
    @Test func ticksGoOnlyToThoseWhoTakeThem() async throws {
        let path = dir.file("long.wav")
        try Signals.write(Signals.sine(440, seconds: 10), to: path)
        var o = PlayerOptions()
        o.tickInterval = .milliseconds(10)
        let clock = ManualClock()
        o.tickerClock = clock
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        try clock.waitForTickers()
        var quiet = rig.player.events(ticks: { false }).makeAsyncIterator()
        let first = try #require(await quiet.next())
        for _ in 0..<10 { rig.play(4_410); try clock.advance(0.15) }   // 1 s heard over 1.5 s of the ticker's clock
        rig.command { rig.player.pause() }
        let paused = try #require(await quiet.next())
        #expect(paused.kind == .paused && paused.sequence == first.sequence + 1 && abs(paused.state.position - 1) < 0.001,
                "\(paused.kind) \(paused.sequence) after \(first.sequence), at \(paused.state.position) s")

        var loud = rig.player.events().makeAsyncIterator()
        _ = await loud.next()
        rig.command { rig.player.play() }
        try clock.settled()   // the look the command asked for is over before time moves
        for _ in 0..<10 { rig.play(4_410); try clock.advance(0.02) }   // each 20 ms on the clock: one tick due, the position moved
        rig.command { rig.player.pause() }
        var kinds: [PlayerEvent.Kind] = []
        while let e = await loud.next() {
            kinds.append(e.kind)
            if e.kind == .paused { break }
        }
        // One tick per 20 ms of the clock: the clock's `settled` and `advance` wait for a ticker
        // a command woke and that has not run yet, so no look moves into the next block.
        let ticks = kinds.dropFirst().dropLast()
        #expect(kinds.first == .played && kinds.last == .paused && ticks.allSatisfy { $0 == .tick } && ticks.count == 10, "\(kinds)")
        #expect(await quiet.next()?.kind == .played)
        #expect(await quiet.next()?.kind == .paused)
    }

    /// With nobody taking ticks, a loop's new passes and the end are still published, found by
    /// the ticker when they are due.
    @Test func passesAndTheEndReachASubscriberWithoutTicks() async throws {
        let path = dir.file("short.wav")
        try Signals.write(Signals.sine(440, seconds: 3), to: path)
        var o = PlayerOptions()
        o.loop = LoopRange(start: 0.5, end: 1, passes: 2)
        o.to = 1.5
        let clock = ManualClock()
        o.tickerClock = clock
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        try clock.waitForTickers()
        let events = rig.player.events(ticks: { false })
        let heard = Task { var kinds: [PlayerEvent.Kind] = []; for await e in events { kinds.append(e.kind); if e.kind == .finished { break } }; return kinds }
        // The device's time and the ticker's clock go at one pace, as a real device's and the
        // system's: the ticker's looks are timed on it (each due as a pass or the range ends).
        for _ in 0..<40 where !rig.player.state.isFinished { rig.play(4_410); try clock.advance(0.1) }
        try rig.waitFor { $0.isFinished }
        try clock.advance(1)   // the ticker's next look (at most a second away) finds the end
        let kinds = await heard.value
        #expect(kinds == [.snapshot, .passStarted, .finished], "\(kinds)")
    }

    @Test func noDeviceIsAOneLineErrorPointingAtRender() throws {
        var o = options()
        o.device = "no_such_device_here"
        let path = try track()
        #expect(throws: PracticeError(.unavailable, "cannot play \(path): no usable audio device 'no_such_device_here' (snd_pcm_open: No such file or directory); pick one with --device, or write a file with 'practice render'")) {
            _ = try Player(path: path, options: o)
        }
    }
}
