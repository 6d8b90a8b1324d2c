// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeAudio
import PracticeEngine

/// A player on the virtual device: time passes only when the test lets it (`play`), so every
/// position and every heard sample is exact.
public final class VirtualRig: Sendable {
    public let output: VirtualOutput
    public let player: Player

    public init(_ path: String, _ options: PlayerOptions = PlayerOptions()) throws {
        output = VirtualOutput(sampleRate: 44_100, channels: 2)
        var o = options
        o.output = .virtual(output)
        player = try Player(path: path, options: o)
    }

    /// Lets `frames` frames of time pass and returns what was heard (stops early once the player
    /// is paused or finished and the device has nothing left).
    @discardableResult
    public func play(_ frames: Int) -> [Float] {
        let heard = output.play(frames: frames) { !player.state.isPlaying }
        // The audio thread measures the device just after each write, so the last frames heard
        // may not be measured yet (a thread preempted in between): wait for the measurement made
        // at the device's time now, which the audio thread takes once it has written again. The
        // deadline is only a guard against a stopped thread.
        let deadline = Date().addingTimeInterval(60)
        while player.lastMeasurementNanoseconds < output.nowNanoseconds && player.state.isPlaying && Date() < deadline { usleep(50) }
        return heard
    }

    /// Runs a command and, if the device held frames, waits until the audio thread has dropped
    /// them (as a real device's are dropped before time moves on), so what is heard next is exact.
    public func command(_ body: () throws -> Void) rethrows {
        let before = output.drops
        let holding = output.queuedFrames > 0
        try body()
        let deadline = Date().addingTimeInterval(10)
        while holding && output.drops == before && Date() < deadline { usleep(100) }
    }

    /// Waits (up to `seconds`) until the player's state is what `what` takes; that state. Throws
    /// `TimedOut` with the state it ended on.
    @discardableResult
    public func waitFor(within seconds: Double = 3, _ what: (PlayerState) -> Bool) throws -> PlayerState {
        try eventuallyValue("the player's state (now \(player.state))", within: seconds) { () -> PlayerState? in
            let s = player.state
            return what(s) ? s : nil
        }
    }

    /// The source frame heard first in `heard` (a `Signals.counter` track), mod 65,536.
    public static func firstCounterFrame(_ heard: [Float]) -> Int? {
        heard.count >= 2 ? Signals.counterFrame(left: heard[0], right: heard[1]) : nil
    }

    /// The heard position in frames.
    public var positionFrame: Int { Int((player.state.position * 44_100).rounded()) }

    public func stop() {
        output.unplug()
        player.stop()
    }
}
