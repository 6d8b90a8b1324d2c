// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeAudio
@testable import PracticeSystem

@Suite struct ALSAOutputTests {
    @Test func opensTheNullDeviceAtTheFilesRateAndTakesEveryFrame() throws {
        let out = try ALSAOutput(device: "null", sampleRate: 44_100, channels: 2)
        #expect(out.format == OutputFormat(sampleRate: 44_100, channels: 2))
        #expect(out.periodFrames > 0 && out.bufferFrames >= out.periodFrames)
        let tone = Signals.sine(440, seconds: 1)
        let result = tone.withUnsafeBufferPointer { out.write($0.baseAddress!, count: 44_100) }
        #expect(result == .written(underruns: 0))
        var wake: [Int32] = [0, 0]
        #expect(pipe(&wake) == 0)
        defer { close(wake[0]); close(wake[1]) }
        #expect(out.drain(wakeFD: wake[0]), "nothing woke it: it played out")
    }

    /// A device's open lends its thread real-time priority one below the audio thread's: a thread
    /// started inside (as a plugin starts its sound server's client thread) keeps it, and the
    /// opening thread is a normal one again afterwards. (As root, which CI is; refused, all stay normal.)
    @Test func aDevicesOpenLendsItsPriorityToTheThreadsItStarts() throws {
        @Sendable func scheduling() -> (policy: Int32, priority: Int32) {
            var policy: Int32 = -1
            var p = sched_param()
            pthread_getschedparam(pthread_self(), &policy, &p)
            return (policy, p.sched_priority)
        }
        typealias Scheduling = (policy: Int32, priority: Int32)
        let inside = Locked<Scheduling?>(nil), seen = Locked<(within: Scheduling, after: Scheduling)?>(nil)
        Thread {
            let within = RealTimePriority.lent { () -> Scheduling in
                Thread { inside.withLock { $0 = scheduling() } }.start()
                let deadline = ContinuousClock.now + .seconds(10)
                while inside.withLock({ $0 }) == nil, ContinuousClock.now < deadline { usleep(1_000) }
                return scheduling()
            }
            seen.withLock { $0 = (within, scheduling()) }
        }.start()
        let (within, after) = try eventuallyValue("the opener's thread done", within: 10) { seen.withLock { $0 } }
        let started = try #require(inside.withLock { $0 })
        #expect(within.policy == SCHED_FIFO && within.priority == sched_get_priority_min(SCHED_FIFO) + 9, "\(within)")
        #expect(started.policy == SCHED_FIFO && started.priority == within.priority, "\(started)")
        #expect(after.policy == SCHED_OTHER && after.priority == 0, "\(after)")
    }

    @Test func aMissingDeviceIsAnErrorThatSaysWhichDevice() {
        do {
            _ = try ALSAOutput(device: "no_such_device_here", sampleRate: 44_100, channels: 2)
            Issue.record("opened a device that does not exist")
        } catch {
            #expect(error.function == "snd_pcm_open")
            #expect(error.device == "no_such_device_here")
            #expect(error.code == -ENOENT)
        }
    }

    /// A device opened ahead (`prepare`, while a player parses its arguments and opens the track)
    /// is the one the player plays through; asked for another device, the first is closed unused;
    /// one that failed to open ahead is opened again by the player, which says what is wrong.
    @Test func aDeviceOpenedAheadIsTheOneThatPlays() throws {
        let a = "plug:'null'", b = "plug:{SLAVE null}"   // names no other test opens
        // What the caller gives to run next runs on the device's thread (a player's libraries).
        let ranOn = Locked<String?>(nil)
        ALSAOutput.prepare(device: a, then: {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            ranOn.withLock { $0 = comm.trimmingCharacters(in: .newlines) }
        })
        #expect(ALSAOutput.isPrepared(device: a))
        let out = try ALSAOutput(device: a, sampleRate: 44_100, channels: 2)
        #expect(out.openedAhead && !ALSAOutput.isPrepared(device: a))
        let deadline = ContinuousClock.now + .seconds(5)   // a bound for a broken `then` only
        while ranOn.withLock({ $0 }) == nil, ContinuousClock.now < deadline { usleep(1_000) }
        #expect(ranOn.withLock { $0 } == "practice-device")
        let tone = Signals.sine(440, seconds: 0.1)
        #expect(tone.withUnsafeBufferPointer { out.write($0.baseAddress!, count: tone.count / 2) } == WriteResult.written(underruns: 0))
        #expect(try !ALSAOutput(device: a, sampleRate: 44_100, channels: 2).openedAhead, "nothing was opened ahead this time")

        ALSAOutput.prepare(device: a)
        ALSAOutput.prepare(device: b)
        #expect(!ALSAOutput.isPrepared(device: a) && ALSAOutput.isPrepared(device: b))
        #expect(try ALSAOutput(device: b, sampleRate: 44_100, channels: 2).openedAhead)

        ALSAOutput.prepare(device: "no_such_device_here")
        do {
            _ = try ALSAOutput(device: "no_such_device_here", sampleRate: 44_100, channels: 2)
            Issue.record("opened a device that does not exist")
        } catch {
            #expect(error.function == "snd_pcm_open" && error.device == "no_such_device_here" && error.code == -ENOENT)
        }
        #expect(!ALSAOutput.isPrepared(device: "no_such_device_here"))
    }

    /// While a device opens ahead, a library asked for on another thread waits until it is open
    /// (glibc loads one at a time: the device's would wait behind it), then loads.
    @Test func aLibraryAskedForWhileADeviceOpensWaitsUntilItIsOpen() throws {
        let gate = DeviceFirst()
        gate.begin()
        let seen = Locked<Bool?>(nil)
        let loading = ControlThread(name: "test-load") {
            _ = DynamicLibrary.load(0, waitingFor: gate) { _ in
                seen.withLock { $0 = gate.isOpening }
                return nil
            }
        }
        // The load is waiting at the gate (events, not time: a bound only for a broken gate).
        let deadline = ContinuousClock.now + .seconds(5)
        while gate.waitCount == 0, ContinuousClock.now < deadline { usleep(1_000) }
        #expect(gate.waitCount == 1, "the load did not wait for the device")
        #expect(seen.withLock { $0 } == nil, "it loaded while the device was opening")
        gate.end()
        loading.join()
        #expect(seen.withLock { $0 } == false)
        // Nothing opening: no wait.
        _ = DynamicLibrary.load(0, waitingFor: gate) { _ in nil }
        #expect(gate.waitCount == 1)

        // A device that takes longer than the cap holds no library back past it: the load goes
        // ahead, and the next ones no longer wait.
        let capped = DeviceFirst(cap: 0.05)
        capped.begin()
        let loaded = Locked(false)
        _ = DynamicLibrary.load(0, waitingFor: capped) { _ in loaded.withLock { $0 = true }; return nil }
        #expect(loaded.withLock { $0 } && capped.waitCount == 1 && !capped.isOpening)
        _ = DynamicLibrary.load(0, waitingFor: capped) { _ in nil }
        #expect(capped.waitCount == 1)
    }

    @Test func theAudioThreadPlaysTheRingToItsEndAndReportsTheHeardFrame() throws {
        let out = try ALSAOutput(device: "null", sampleRate: 44_100, channels: 2)
        let ring = RingBuffer(minimumFrames: 32_768, channels: 2)
        let thread = AudioThread(ring: ring, output: out, primeFrames: 2 * out.periodFrames)
        thread.start()
        defer { thread.stop() }
        #expect(ring.writeWhole(Signals.sine(440, seconds: 0.5), generation: 1) == 22_050)
        thread.setTransport(.playing, generation: 1)
        thread.wake()
        #expect(thread.waitForEnd(of: 1))
        #expect(thread.clock.read().heardFrame == 22_050)
        #expect(thread.underruns.load(ordering: .relaxed) == 0)
    }
}
