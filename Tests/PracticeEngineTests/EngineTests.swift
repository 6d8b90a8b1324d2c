// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Testing
import PracticeAudio
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl
import PracticeSystem

/// The engine on the virtual device: positions, jumps and loops exact to the frame, and many
/// controllers at once.
@Suite struct EngineTests {
    let dir = ScratchDirectory("engine")

    /// A 1.4 s counter track (61,740 frames, inside the counter's period: each frame names its place).
    func counterTrack() throws -> String {
        let path = dir.file("counter.wav")
        try Signals.write(Signals.counter(frames: 61_740), to: path, format: .float)
        return path
    }

    @Test func playsFromWhereItIsAskedAndThePositionIsWhatIsHeard() throws {
        var o = PlayerOptions()
        o.startPlaying = false
        let rig = try VirtualRig(try counterTrack(), o)
        defer { rig.stop() }
        #expect(rig.play(4_410).count == 0, "a paused player sends nothing")
        rig.command { rig.player.seek(to: 0.25) }
        #expect(rig.positionFrame == 11_025)
        rig.command { rig.player.play() }
        let heard = rig.play(4_410)
        #expect(heard.count == 4_410 * 2)
        #expect(VirtualRig.firstCounterFrame(heard) == 11_025)
        #expect((0..<4_410).allSatisfy { Signals.counterFrame(left: heard[2 * $0], right: heard[2 * $0 + 1]) == 11_025 + $0 },
                "the source's frames, in order, bit for bit")
        #expect(rig.positionFrame == 15_435)
        rig.play(441)
        #expect(rig.positionFrame == 15_876)
        rig.command { rig.player.pause() }
        #expect(rig.positionFrame == 15_876)
        #expect(rig.play(4_410).count == 0, "a paused player sends nothing")
        rig.command { rig.player.play() }
        #expect(VirtualRig.firstCounterFrame(rig.play(100)) == 15_876, "resumes at the frame it paused on")
    }

    /// A player made paused (as a session makes it, then plays it) and then played plays the
    /// stream decoded while it was paused: no second one from the same frame (it cost a launch
    /// the first block over again, just before the first write). Played after a seek, or after
    /// a pause once it has played, it starts a stream of its own.
    @Test func playingAPlayerMadePausedPlaysWhatItPrepared() throws {
        var o = PlayerOptions()
        o.startPlaying = false
        o.from = 0.5
        let rig = try VirtualRig(try counterTrack(), o)
        defer { rig.stop() }
        try eventually("the paused stream begun") { rig.player.streamsStarted == 1 }
        rig.command { rig.player.play() }
        let heard = rig.play(4_410)
        #expect(heard.count == 4_410 * 2)
        #expect((0..<4_410).allSatisfy { Signals.counterFrame(left: heard[2 * $0], right: heard[2 * $0 + 1]) == 22_050 + $0 },
                "the source's frames from --from, in order, bit for bit")
        #expect(rig.player.streamsStarted == 1, "the stream prepared while paused is the one heard")
        #expect(rig.positionFrame == 26_460 && rig.player.state.isPlaying)
        rig.command { rig.player.pause() }
        rig.command { rig.player.play() }
        #expect(VirtualRig.firstCounterFrame(rig.play(441)) == 26_460, "resumed where it paused")
        #expect(rig.player.streamsStarted == 2, "a stream of its own for the resume")
        // A seek made paused, played once the decoder has begun its stream (and filled the ring
        // while nothing drained it), and one played at once: both heard from the seek.
        rig.command { rig.player.pause() }
        rig.command { rig.player.seek(to: 0.25) }
        try eventually("the paused seek's stream begun") { rig.player.streamsStarted == 3 }
        rig.command { rig.player.play() }
        #expect(VirtualRig.firstCounterFrame(rig.play(441)) == 11_025, "played from the seek, its stream made while paused")
        #expect(rig.player.streamsStarted == 3, "the seek's stream, played as it was made")
        rig.command { rig.player.pause() }
        rig.command {
            rig.player.seek(to: 0.75)
            rig.player.play()
        }
        #expect(VirtualRig.firstCounterFrame(rig.play(441)) == 33_075, "played from the seek, played at once")
        #expect(rig.player.streamsStarted == 4)
    }

    /// A command while the device plays out the track's last frames (nothing more to decode, the
    /// device holding what is left) is seen at once: what the device held is dropped, and what is
    /// heard next is where the command put it. (The audio thread once waited for the device to play
    /// out first; on a device whose time stands still, as here, for ever.)
    @Test func aCommandAtTheEndIsHeardAtOnce() throws {
        var o = PlayerOptions()
        o.startPlaying = false
        let rig = try VirtualRig(try counterTrack(), o)
        defer { rig.stop() }
        rig.command { rig.player.seek(to: 1.3) }   // frame 57,330: 4,410 frames left, fewer than the device holds
        rig.command { rig.player.play() }
        #expect(VirtualRig.firstCounterFrame(rig.play(1_000)) == 57_330)
        try eventually("the track's last frames in the device") { rig.output.queuedFrames == 3_410 }
        let drops = rig.output.drops
        rig.player.seek(to: 0.25)
        try eventually("what the device held dropped", within: 2) { rig.output.drops > drops }
        let heard = rig.play(441)
        #expect(VirtualRig.firstCounterFrame(heard) == 11_025, "the seek's frame first, none of the end's")
        #expect(rig.positionFrame == 11_466 && rig.player.state.isPlaying)
    }

    /// `--reconnect`, trying the device every 20 ms.
    static let reconnecting: PlayerOptions = {
        var o = PlayerOptions()
        o.reconnect = true
        o.reconnectInterval = .milliseconds(20)
        return o
    }()

    /// `--reconnect`: the device goes away mid-play (what it held is lost); the player says so,
    /// holds the heard position and keeps taking commands; when the device is back it plays on
    /// from the very frame that was last heard.
    @Test func aDeviceThatGoesAwayIsWaitedForAndPlaysOnFromTheHeardFrame() throws {
        let rig = try VirtualRig(try counterTrack(), Self.reconnecting)
        defer { rig.stop() }
        let kinds = Locked<[PlayerEvent.Kind]>([])
        rig.player.subscribe { e in kinds.withLock { $0.append(e.kind) } }
        #expect(VirtualRig.firstCounterFrame(rig.play(11_025)) == 0)
        rig.output.breakDown()
        var s = try rig.waitFor { $0.deviceLost != nil }
        #expect(s.deviceLost == "waiting for audio device 'virtual' to come back: it failed (virtual device error -5)")
        #expect(s.failure == nil && !s.isPlaying)
        #expect(rig.positionFrame == 11_025, "the position holds where it was heard")
        usleep(100_000)   // tries to reopen it meanwhile fail
        #expect(rig.positionFrame == 11_025 && rig.player.state.deviceLost != nil)
        rig.player.setRate(0.5)   // commands go on while it is gone
        rig.player.setRate(1)
        rig.output.repair()
        s = try rig.waitFor { $0.deviceLost == nil && $0.isPlaying }
        #expect(s.deviceLost == nil && s.isPlaying)
        let heard = rig.play(2_205)
        #expect(VirtualRig.firstCounterFrame(heard) == 11_025, "plays on from the frame last heard")
        #expect((0..<2_205).allSatisfy { Signals.counterFrame(left: heard[2 * $0], right: heard[2 * $0 + 1]) == 11_025 + $0 })
        #expect(rig.positionFrame == 13_230)
        // The state changes under the player's lock; its events are delivered just after it.
        try eventually("the device's return delivered") { kinds.withLock { $0.contains(.deviceBack) } }
        let seen = kinds.withLock { $0 }
        #expect(seen.filter { $0 == .deviceLost }.count == 1 && seen.filter { $0 == .deviceBack }.count == 1)
        let lost = try #require(seen.firstIndex(of: .deviceLost)), back = try #require(seen.firstIndex(of: .deviceBack))
        #expect(lost < back)
        #expect(!seen.contains(.failed))
    }

    /// `--reconnect` and a device that keeps going away as soon as it is back: it is tried twice
    /// as far apart each time (up to 16 times the interval), not every interval for ever; one
    /// that stayed 2 s is tried at the interval again when it next goes.
    @Test func aDeviceThatKeepsGoingAwayIsTriedLessAndLessOften() throws {
        let rig = try VirtualRig(try counterTrack(), Self.reconnecting)
        defer { rig.stop() }
        let events = Locked<[(kind: PlayerEvent.Kind, at: ContinuousClock.Instant)]>([])
        rig.player.subscribe { e in
            if e.kind == .deviceLost || e.kind == .deviceBack { events.withLock { $0.append((e.kind, .now)) } }
        }
        rig.play(4_410)
        func waitFor(_ kind: PlayerEvent.Kind, count: Int) throws -> ContinuousClock.Instant {
            try eventuallyValue("\(kind) number \(count)") { () -> ContinuousClock.Instant? in
                let seen = events.withLock { $0.filter { $0.kind == kind } }
                return seen.count >= count ? seen[count - 1].at : nil
            }
        }
        /// Goes away, is repaired at once, and comes back: seconds from going to coming back.
        func flap(_ n: Int) throws -> Double {
            rig.output.breakDown()
            let lost = try waitFor(.deviceLost, count: n)
            rig.output.repair()
            let back = try waitFor(.deviceBack, count: n)
            let d = (back - lost).components
            return Double(d.seconds) + Double(d.attoseconds) / 1e18
        }
        let gaps = try (1...7).map(flap)
        // Tries are never early (the ticker sleeps until one is due): 20, 40, 80, 160, 320 ms,
        // then 320 ms (16 × 20 ms) again.
        for (i, expected) in [0.02, 0.04, 0.08, 0.16, 0.32, 0.32, 0.32].enumerated() {
            #expect(gaps[i] >= expected * 0.95, "flap \(i + 1): back after \(gaps[i]) s, not before \(expected) s")
        }
        #expect(gaps[5] < 0.5 && gaps[6] < 0.5, "at most 16 × the interval: \(gaps)")
        usleep(2_100_000)   // it stays 2 s
        let afterAWhile = try flap(8)
        #expect(afterAWhile >= 0.019 && afterAWhile < 0.15, "tried at the interval again: \(afterAWhile) s")
        #expect(rig.player.state.deviceLost == nil && rig.player.state.failure == nil)
    }

    /// With `--reconnect`, a failure that is not the device going away (here -EINVAL), or a device
    /// that comes back unable to play as before, ends playing for good, as without it: waiting
    /// would wait for ever.
    @Test func withReconnectAFailureThatIsNotAGoneDeviceIsForGood() async throws {
        for comesBackUnable in [false, true] {
            let rig = try VirtualRig(try counterTrack(), Self.reconnecting)
            defer { rig.stop() }
            rig.play(4_410)
            rig.output.breakDown(failing: comesBackUnable ? -EIO : -EINVAL)
            if comesBackUnable {
                #expect(try rig.waitFor { $0.deviceLost != nil }.deviceLost != nil)
                rig.output.breakDown(failing: -EINVAL)   // opening it again now says so
            }
            await rig.player.waitUntilFinished()
            let s = rig.player.state
            #expect(s.failure == "audio device 'virtual' failed (virtual device error -22); your markers and loops are saved", "\(comesBackUnable)")
            #expect(s.deviceLost == nil && !s.isPlaying)
        }
    }

    /// Without `--reconnect` a device that goes away ends playing for good: `failure` says so.
    @Test func withoutReconnectADeviceThatGoesAwayIsAFailure() async throws {
        let rig = try VirtualRig(try counterTrack())
        defer { rig.stop() }
        rig.play(4_410)
        rig.output.breakDown()
        await rig.player.waitUntilFinished()
        let s = rig.player.state
        #expect(s.failure == "audio device 'virtual' failed (virtual device error -5); your markers and loops are saved")
        #expect(s.deviceLost == nil && !s.isPlaying)
        rig.output.repair()
        usleep(100_000)
        #expect(rig.player.state.failure != nil, "not opened again")
    }

    /// `jump` (the control command) lands on the marker's frame and plays, from a paused player.
    @Test func aJumpLandsOnTheMarkersFrameAndPlays() throws {
        let path = try counterTrack()
        try SidecarStore.update(for: try Track.open(path).track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Chorus", time: 0.9, duration: 1.4)
        }
        var o = PlayerOptions()
        o.startPlaying = false
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        try rig.command { try rig.player.perform(.jump("chorus")) }
        #expect(rig.player.state.isPlaying)
        #expect(VirtualRig.firstCounterFrame(rig.play(2_000)) == 39_690)   // 0.9 s
        #expect(rig.positionFrame == 41_690)
    }

    /// A loop's passes: pass 2 begins exactly (B − A) after A, heard from A again, and the count
    /// ends at the given number of passes, at B.
    @Test func loopPassesTurnOnTheFrame() throws {
        var o = PlayerOptions()
        o.loop = LoopRange(start: 0.5, end: 1, passes: 3, name: "drill")
        let rig = try VirtualRig(try counterTrack(), o)
        defer { rig.stop() }
        let first = rig.play(22_049)
        #expect(VirtualRig.firstCounterFrame(first) == 22_050)
        #expect(rig.player.state.loop?.pass == 1)
        #expect(rig.positionFrame == 44_099)
        rig.play(1)
        #expect(rig.player.state.loop?.pass == 2 && rig.positionFrame == 22_050)
        let rest = rig.play(100_000)
        #expect(first.count / 2 + 1 + rest.count / 2 == 3 * 22_050, "three passes, exactly")
        let end = rig.player.state
        #expect(end.isFinished && end.loop == LoopState(start: 0.5, end: 1, name: "drill", pass: 3, passes: 3))
        #expect(rig.positionFrame == 44_100)
    }

    /// `EndPolicy.rewind` (a person's player): at the end of the range the player publishes
    /// `finished`, then goes back to `--from`, paused, saying why; played again, it starts there.
    /// When a loop's passes run out it goes back to the loop's start with every pass to play again.
    @Test func aPersonsPlayerGoesBackAtTheEnd() throws {
        var options = PlayerOptions()
        options.atEnd = .rewind
        options.from = 1
        let rig = try VirtualRig(try counterTrack(), options)
        defer { rig.stop() }
        let log = EventLog()
        rig.player.subscribe { log.append($0) }
        rig.play(20_000)   // 17,640 frames are left after 1 s
        let back = try rig.waitFor { $0.rewound != nil }
        #expect(back.rewound == .track && !back.isPlaying && !back.isFinished && rig.positionFrame == 44_100)
        // The state changes under the player's lock; its events are delivered just after it.
        try eventually("finished and paused delivered") { log.events.map(\.kind).suffix(2) == [.finished, .paused] }
        let kinds = log.events.map(\.kind)
        #expect(kinds.suffix(2) == [.finished, .paused], "\(kinds)")
        rig.player.play()
        #expect(rig.player.state.rewound == nil)
        #expect(VirtualRig.firstCounterFrame(rig.play(441)) == 44_100)

        try rig.command { try rig.player.setLoop(LoopRange(start: 0.25, end: 0.5, passes: 2)) }
        rig.play(44_100)
        let drilled = try rig.waitFor { $0.rewound != nil }
        #expect(drilled.rewound == .passes(2) && !drilled.isPlaying && rig.positionFrame == 11_025 && drilled.loop?.pass == 1)
    }

    /// Events leave the engine after its lock is released: a view that calls the player back from
    /// its handler (a read, then commands) cannot deadlock it, and its commands' events follow the
    /// event it handled, in order, for every view; the first command returns once all are out.
    @Test func aSubscriberMayCallThePlayerBack() throws {
        var options = PlayerOptions()
        options.startPlaying = false
        let rig = try VirtualRig(try counterTrack(), options)
        defer { rig.stop() }
        let player = rig.player
        let calling = EventLog(), watching = EventLog()
        player.subscribe { e in
            calling.append(e)
            switch e.kind {
            case .played: player.setRate(0.5)
            case .rateChanged:
                #expect(player.state.rate == 0.5)
                player.pause()
            default: break
            }
        }
        player.subscribe { watching.append($0) }
        player.play()
        let expected: [PlayerEvent.Kind] = [.snapshot, .played, .rateChanged, .paused]
        #expect(calling.events.map(\.kind) == expected)
        #expect(watching.events.map(\.kind) == expected)
        #expect(zip(calling.events.dropFirst(), calling.events.dropFirst(2)).allSatisfy { $1.sequence == $0.sequence + 1 })
        #expect(watching.events.map(\.sequence) == calling.events.map(\.sequence))
        let state = player.state
        #expect(state.rate == 0.5 && !state.isPlaying)
    }

    /// Four controllers send 2,000 random commands each, at once, while the device plays and five
    /// views subscribe. Nothing hangs; every view sees the same events in the same order, numbered
    /// without a gap, ending on the same final state as the player's; that state is consistent;
    /// and the player still plays exactly afterwards.
    @Test func fourControllersAtOnce() async throws {
        let path = dir.file("tone.wav")
        try Signals.write(Signals.sine(440, seconds: 6), to: path)
        try SidecarStore.update(for: try Track.open(path).track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Verse", time: 1.5, duration: 6)
            try s.addMarker(name: "Chorus", time: 4, duration: 6)
        }
        let rig = try VirtualRig(path)
        defer { rig.stop() }
        let player = rig.player

        // Four views read streams, a fifth takes every event (ticks too) in a handler.
        let seen = (0..<5).map { _ in EventLog() }
        for log in seen.prefix(4) {
            let stream = player.events()
            Task.detached { for await e in stream { log.append(e) } }
        }
        player.subscribe(ticks: { true }) { seen[4].append($0) }

        let done = Atomic<Int>(0)
        let clockRunning = Atomic<Bool>(true)
        let clock = Thread {
            while clockRunning.load(ordering: .acquiring) { _ = rig.output.play(frames: 441, timeout: 0.005) }
        }
        clock.start()
        let failures = Locked<[String]>([])
        for k in 0..<4 {
            Thread {
                var rng = SplitMix(seed: UInt64(k + 1))
                for _ in 0..<2_000 {
                    switch rng.next() % 9 {
                    case 0: player.seek(to: Double(rng.next() % 6_000) / 1_000)
                    case 1: player.setRate(Double(rng.next() % 30 + 1) / 10)
                    case 2: player.setPitch(Double(rng.next() % 25) - 12)
                    case 3:
                        let a = Double(rng.next() % 5_000) / 1_000
                        do { try player.setLoop(LoopRange(start: a, end: a + 0.05 + Double(rng.next() % 900) / 1_000)) } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    case 4: try? player.setLoop(nil)
                    case 5:
                        do { try player.perform(.jump(rng.next() % 2 == 0 ? "verse" : "Chorus")) } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    case 6: player.pause()
                    case 7: player.play()
                    default: player.togglePause()
                    }
                }
                done.add(1, ordering: .releasing)
            }.start()
        }
        let deadline = Date().addingTimeInterval(90)
        while done.load(ordering: .acquiring) < 4 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(done.load(ordering: .acquiring) == 4, "a controller hung")
        clockRunning.store(false, ordering: .releasing)
        while !clock.isFinished { try await Task.sleep(for: .milliseconds(1)) }
        #expect(failures.withLock { $0 } == [], "every command was valid")

        // Settle: stop looping and pause, then let every view catch up with the last event.
        try rig.command {
            try player.setLoop(nil)
            player.pause()
        }
        let final = player.state
        var late = player.events().makeAsyncIterator()   // a late view's snapshot carries the latest event's number
        let lastSequence = try #require(await late.next()).sequence
        func caughtUp(_ log: [PlayerEvent]) -> Bool { log.last?.sequence == lastSequence }
        let settled = Date().addingTimeInterval(60)   // the views run on the shared task pool, which other suites may keep busy
        while !seen.allSatisfy({ caughtUp($0.events) }) && Date() < settled { try await Task.sleep(for: .milliseconds(5)) }
        let logs = seen.map(\.events)
        for log in logs {
            #expect(log.last?.state == final, "every view ends on the player's state")
            #expect([.paused, .loopChanged].contains(log.last?.kind))
            #expect(zip(log, log.dropFirst()).allSatisfy { $1.sequence == $0.sequence + 1 }, "no event missed or repeated")
            #expect(log.count > 4_000, "the commands were published (\(log.count) events; a pause when paused changes nothing)")
        }
        let order = logs[0].map { "\($0.sequence) \($0.kind)" }
        #expect(logs.allSatisfy { $0.map { "\($0.sequence) \($0.kind)" } == order }, "every view saw the same events in the same order")

        // Consistent: inside the track and the ranges, paused, not looping.
        #expect(!final.isPlaying && final.loop == nil && final.failure == nil)
        #expect(final.position >= 0 && final.position <= 6)
        #expect(PlaybackSettings.rateRange.contains(final.rate) && PlaybackSettings.pitchRange.contains(final.pitch))

        // And it still plays exactly: from 2 s, 0.1 s of time is 0.1 s of the track at 1.0×.
        rig.command {
            player.setRate(1)
            player.setPitch(0)
            player.seek(to: 2)
            player.play()
        }
        let heard = rig.play(4_410)
        #expect(heard.count == 4_410 * 2)
        #expect(rig.positionFrame == 92_610)
    }
}

/// What one view received.
final class EventLog: Sendable {
    private let log = Locked<[PlayerEvent]>([])
    func append(_ e: PlayerEvent) { log.withLock { $0.append(e) } }
    var events: [PlayerEvent] { log.withLock { $0 } }
}
