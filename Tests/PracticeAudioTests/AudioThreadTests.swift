// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeAudio

/// The audio thread against the virtual device (whose clock the test advances): what it hears
/// is exactly what the control side asked for.
@Suite struct AudioThreadTests {
    /// A pause at a new place (a loop's passes run out: back to A, paused) begins a new generation
    /// in the decoder before the control side has said it is paused. Under load the decoder can
    /// write it first: the thread must not play it on the strength of the last "playing", which
    /// was for the generation before. (A CI run heard 20 ms of sound after a loop's last pass,
    /// paused at A: the likely cause.)
    @Test func aNewGenerationIsNotHeardBeforeTheControlSideSaysItPlays() throws {
        let out = VirtualOutput(sampleRate: 44_100, channels: 2)
        let ring = RingBuffer(minimumFrames: 32_768, channels: 2)
        let thread = AudioThread(ring: ring, output: out, primeFrames: 1_024)
        thread.start()
        defer { out.unplug(); thread.stop() }

        // Generation 1 plays to its end.
        #expect(ring.writeWhole(Signals.sine(440, seconds: 0.1), generation: 1) == 4_410)
        thread.setTransport(.playing, generation: 1)
        thread.wake()
        let heard = out.play(frames: 4_410)
        #expect(heard.count == 8_820 && heard.contains { $0 != 0 })
        #expect(thread.waitForEnd(of: 1))

        // The decoder begins generation 2 (and wakes the thread) before the command says "paused".
        let second = Signals.sine(660, seconds: 0.5)
        #expect(ring.writeWhole(second, generation: 2) == 22_050)
        var idled = thread.idled.load(ordering: .acquiring)
        thread.wake()
        // The thread takes generation 2, sees it is not the one asked for, and goes idle.
        try eventually("the audio thread to go idle on generation 2") { thread.idled.load(ordering: .acquiring) > idled }
        #expect(out.queuedFrames == 0, "the device was given \(out.queuedFrames) frames of a generation nobody asked to play")
        idled = thread.idled.load(ordering: .acquiring)
        thread.setTransport(.paused, generation: 2)
        thread.wake()
        try eventually("the audio thread to go idle, paused") { thread.idled.load(ordering: .acquiring) > idled }
        #expect(out.queuedFrames == 0)

        // Asked to play, it plays generation 2 from its first frame.
        thread.setTransport(.playing, generation: 2)
        thread.wake()
        let now = out.play(frames: 22_050)
        #expect(now.count == 44_100)
        #expect(zip(now, second).allSatisfy { $0 == $1 }, "generation 2 was not heard from its start")
    }
}
