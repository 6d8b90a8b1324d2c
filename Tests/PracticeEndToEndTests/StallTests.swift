// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// A player none of whose threads run for a moment: what a busy or virtual machine does now and
/// then (on this one, beside the test suites, a thread at real-time priority woke up to 38 ms
/// late, and some stalls met one after the other: README, "Benchmarks", the soak). The sound
/// server goes on playing what the device holds (`ALSAOutput.bufferMicroseconds`, 240 ms), so
/// the stall is not heard. Quiet part of `Tests/run.sh`: it times a real-time sink.
@Suite struct StallTests {
    let dir = ScratchDirectory("stalls")

    /// Four times, the player is stopped (SIGSTOP) for 150 ms and let go. No underrun is counted
    /// and the sink's monitor hears the tone without a gap. With the 120 ms the device held
    /// before, it counted 4 underruns and the monitor heard 44 ms of silence.
    @Test func aPlayerStoppedFor150MillisecondsIsHeardWithoutAGap() throws {
        let rig = try PulseRig()
        try Signals.write(Signals.sine(440, seconds: 30), to: dir.file("tone.wav"))
        var env = rig.environment
        env["XDG_STATE_HOME"] = dir.file("state")
        try rig.startRecording()
        let player = try ControlledPlayer(["tone.wav", "--device", "pulse", "--control", "stdin", "--no-journal", "--no-mpris"],
                                          in: dir.path, environment: env)
        defer { player.send(#"{"cmd":"quit"}"#) }
        // Heard for half a second, so the device holds all it can.
        func status() throws -> [String: Any] {
            player.send(#"{"cmd":"status"}"#)
            return try player.next("status")
        }
        _ = try eventuallyValue("half a second heard", within: 10) { try (status()["position"] as? Double ?? 0) >= 0.5 ? true : nil }
        for _ in 0..<4 {
            kill(player.pid, SIGSTOP)
            usleep(150_000)
            kill(player.pid, SIGCONT)
            // Heard on for a while (the device full again) before the next stop.
            let resumed = try status()["position"] as? Double ?? 0
            _ = try eventuallyValue("0.4 s more heard", within: 10) { try (status()["position"] as? Double ?? 0) >= resumed + 0.4 ? true : nil }
        }
        let last = try status()
        let heard = rig.stopRecording().samples
        #expect(last["underruns"] as? Int == 0, "\(last)")
        // The tone from its first sound to where the recording stopped, the player still playing:
        // no run of 2 ms in which every sample is quiet (an underrun is tens of milliseconds of
        // zeros; a zero crossing of the 440 Hz tone is one frame).
        let left = Signals.channel(heard, 0, of: 2)
        let start = try #require(Analysis.onset(left, threshold: 0.01), "the tone was heard")
        let quiet = Analysis.longestQuietRun(left, start..<left.count)
        #expect(quiet.frames < rig.sampleRate / 500, "the longest silence: \(quiet.frames) frames, from frame \(quiet.at)")
        // (The recording holds the stops: half a second, then 150 ms stopped and 0.4 s on, four times.)
        #expect(left.count - start > 26 * rig.sampleRate / 10, "\(left.count - start) frames heard")
    }
}
