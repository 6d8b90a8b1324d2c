// SPDX-License-Identifier: GPL-3.0-or-later
import CAllocationCounter
import Foundation
import PracticeAudio
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl
import PracticeSystem

/// The real-time audio thread never allocates: every call to malloc, free and their kin made by
/// that thread is counted (the test binary replaces them), while it plays with seeks, rate
/// changes, pauses and loop seams.
@Suite(.serialized) struct RealTimeRulesTests {
    let dir = ScratchDirectory("rt-rules")

    func track() throws -> String {
        let path = dir.file("tone.wav")
        try Signals.write(Signals.sine(440, seconds: 12), to: path)
        return path
    }

    /// The counter sees a thread's allocations, so the zeros below mean something.
    @Test func theCounterSeesAThreadsAllocations() throws {
        try #require(allocation_counter_available())
        let counted = Locked<Int>(-1)
        let thread = Thread {
            allocation_counter_watch(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))))
            // Ten objects that escape (into a function the optimizer cannot see through), so that
            // they are allocated in an optimized build too.
            let boxes = (0..<10).map { Counted($0) }
            keep(boxes)
            counted.withLock { $0 = allocation_counter_stop() }
        }
        thread.start()
        while counted.withLock({ $0 }) < 0 { usleep(1_000) }
        #expect(counted.withLock { $0 } >= 10)
    }

    /// 10 s of audio through the virtual device, in 0.5 s steps: seeks, rate and pitch changes,
    /// a pause, and a loop whose 10 ms seams are crossed every 0.25 s.
    @Test func noAllocationWhilePlayingSeekingAndLooping() throws {
        try #require(allocation_counter_available())
        var o = PlayerOptions()
        o.loop = LoopRange(start: 2, end: 2.25)
        let rig = try VirtualRig(try track(), o)
        defer { rig.stop() }
        rig.play(4_410)   // the thread is running
        allocation_counter_watch(rig.player.audioThreadID)
        var heard = 0
        for step in 0..<20 {
            switch step % 5 {
            case 1: rig.command { rig.player.seek(to: 2.1) }
            case 2: rig.command { rig.player.setRate(step % 2 == 0 ? 0.8 : 1.25) }
            case 3: try rig.command { try rig.player.setLoop(step % 2 == 0 ? nil : LoopRange(start: 5, end: 5.3)) }
            case 4:
                rig.command { rig.player.pause() }
                rig.command { rig.player.play() }
            default: rig.command { rig.player.setPitch(Double(step % 3)) }
            }
            heard += rig.play(22_050).count / 2
        }
        let calls = allocation_counter_stop()
        #expect(heard == 20 * 22_050)
        #expect(calls == 0, "the audio thread made \(calls) calls to malloc or free")
    }

    /// The same on ALSA's `null` device (the real output code), which takes audio as fast as it
    /// comes: an endless 0.3 s loop runs for half a second of wall time, with seeks.
    @Test func noAllocationThroughALSA() throws {
        try #require(allocation_counter_available())
        var o = PlayerOptions()
        o.device = "null"
        o.loop = LoopRange(start: 1, end: 1.3)
        let player = try Player(path: try track(), options: o)
        defer { player.stop() }
        usleep(50_000)
        allocation_counter_watch(player.audioThreadID)
        for k in 0..<10 {
            usleep(50_000)
            player.seek(to: 1 + Double(k) / 50)
        }
        let calls = allocation_counter_stop()
        #expect(player.state.loop!.pass > 20, "the loop went round")
        #expect(calls == 0, "the audio thread made \(calls) calls to malloc or free")
    }
}

/// An object that is allocated wherever it is made.
private final class Counted: Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
}

@inline(never) private func keep(_ objects: [Counted]) {
    withExtendedLifetime(objects) {}
}
