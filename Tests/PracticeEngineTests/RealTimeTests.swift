// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
import PracticeAudio
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl

/// Through a real-time PulseAudio null sink: playback is paced by the sink's clock, and the
/// position the player reports is the one being heard, checked against the captured audio.
///
/// The track is a slow linear chirp, so the frequency heard at any moment says which source time is
/// playing (a pitch-preserving stretch keeps it). Each 2048-frame window of the capture gives a
/// source time; the player's reported position at that window's wall-clock time is compared with it.
/// Windows start every 331 frames (7.5 ms): WSOLA's content runs ahead and falls back once per
/// sequence (30 ms of output at 0.8×), and a hop commensurate with that (50 ms hit only three
/// phases of it) made the median swing from −5.6 to −11.3 ms between identical runs.
@Suite(.serialized) struct RealTimeTests {
    static let seconds = 6.0, f0 = 300.0, f1 = 3_300.0

    static func chirp(_ path: String) throws {
        let n = Int(seconds * 44_100)
        var x = [Float](repeating: 0, count: n * 2)
        let k = (f1 - f0) / seconds
        for i in 0..<n {
            let t = Double(i) / 44_100
            let v = Float(0.5 * sin(2 * Double.pi * (f0 * t + k * t * t / 2)))
            x[2 * i] = v; x[2 * i + 1] = v
        }
        try Signals.write(x, to: path, format: .float)
    }

    @Test(arguments: [1.0, 0.8, 0.5, 1.5])
    func reportedPositionIsWhatIsHeard(rate: Double) async throws {
        let rig = try PulseRig()
        setenv("PULSE_SERVER", rig.server, 1)
        setenv("XDG_RUNTIME_DIR", rig.runtimeDir.path, 1)
        let dir = ScratchDirectory("realtime")
        let track = dir.file("chirp.wav"), warm = dir.file("warm.wav")
        try Self.chirp(track)
        try Signals.write(Signals.sine(100, seconds: 0.3, amplitude: 0.1), to: warm)
        try rig.startRecording()

        var o = PlayerOptions()
        o.device = "pulse"
        let warmup = try Player(path: warm, options: o)   // absorbs a fresh server's first-stream penalty
        await warmup.waitUntilFinished()
        warmup.stop()

        o.settings = PlaybackSettings(rate: rate)
        let player = try Player(path: track, options: o)
        let started = Double(monotonicNanoseconds())
        var polls: [(t: Double, position: Double)] = []
        // Until the end, or 10 s after it was due (a stalled sink fails the pacing check below
        // instead of holding the run).
        let giveUp = started + (Self.seconds / rate + 10) * 1e9
        while true {
            let before = monotonicNanoseconds()
            let s = player.state
            let after = monotonicNanoseconds()
            polls.append((Double(before / 2 + after / 2), s.position))
            if s.isFinished || s.failure != nil || Double(after) > giveUp { break }
            usleep(2_000)
        }
        let finished = Double(monotonicNanoseconds())
        #expect(player.state.underruns == 0)
        player.stop()
        usleep(200_000)
        let (captured, timeOfFrame) = rig.stopRecording()

        // Pacing: the sink's clock plays 6 s of source at `rate` in 6 ÷ rate s (plus start and drain).
        let wall = (finished - started) / 1e9
        #expect(wall > Self.seconds / rate - 0.02 && wall < Self.seconds / rate + 0.3, "played \(Self.seconds / rate) s in \(wall) s")

        func reported(at t: Double) -> Double? {
            guard let j = polls.firstIndex(where: { $0.t >= t }), j > 0 else { return nil }
            let (t0, p0) = polls[j - 1], (t1, p1) = polls[j]
            return p0 + (p1 - p0) * (t - t0) / (t1 - t0)
        }
        let left = Signals.channel(captured, 0, of: 2)
        var errors: [Double] = []   // ms of wall time: reported − heard, over the rate
        var k = 0
        while k + 2_048 < left.count {
            let mid = Double(timeOfFrame(k + 1_024))
            if mid > started + 0.4e9, mid < finished - 0.4e9, let position = reported(at: mid) {
                let f = Analysis.dominantFrequency(Array(left[k..<(k + 2_048)]), sampleRate: 44_100)
                let heard = (f - Self.f0) / (Self.f1 - Self.f0) * Self.seconds
                errors.append((position - heard) / rate * 1_000)
            }
            k += 331
        }
        try #require(errors.count > 50)
        errors.sort()
        let median = errors[errors.count / 2]
        let p10 = errors[errors.count / 10], p90 = errors[errors.count * 9 / 10]
        print("rate \(rate): reported − heard over \(errors.count) windows: median \(median) ms, p10 \(p10), p90 \(p90); wall \(wall) s")
        #expect(abs(median) < 10, "median position error \(median) ms")
    }

    /// At a stream's end the device plays out without holding the audio thread: `drain` comes
    /// back at once when woken (a command), the rest still in the device for the command to drop,
    /// and says it is done only once all the music has been heard; then silence, not the buffer's
    /// stale frames, and the next write counts no underrun.
    @Test func theEndPlaysOutWithoutHoldingACommandBack() throws {
        let rig = try PulseRig()
        setenv("PULSE_SERVER", rig.server, 1)
        setenv("XDG_RUNTIME_DIR", rig.runtimeDir.path, 1)
        try rig.startRecording()
        let out = try ALSAOutput(device: "pulse", sampleRate: 44_100, channels: 2)
        let tone = Signals.sine(441, seconds: 0.5)
        let started = monotonicNanoseconds()
        #expect(tone.withUnsafeBufferPointer { out.write($0.baseAddress!, count: 22_050) } == .written(underruns: 0))
        var wake: [Int32] = [0, 0]
        try #require(pipe(&wake) == 0)
        defer { close(wake[0]); close(wake[1]) }
        var one: UInt8 = 1
        _ = Glibc.write(wake[1], &one, 1)
        #expect(!out.drain(wakeFD: wake[0]), "woken: back at once")
        let left = out.delay().frames
        #expect(left > 0, "what is left is still in the device")
        var waits = 1
        while !out.drain(wakeFD: wake[0]) { waits += 1 }
        let done = Double(monotonicNanoseconds() - started) / 1e9
        #expect(done > 0.5 - 0.01, "done after the music's 0.5 s (\(done) s), not dropped")
        #expect(waits > 1 && out.delay().frames == 0)
        usleep(200_000)
        let silence = [Float](repeating: 0, count: 882 * 2)
        #expect(silence.withUnsafeBufferPointer { out.write($0.baseAddress!, count: 882) } == .written(underruns: 0))
        let (captured, _) = rig.stopRecording()

        // Heard: the whole tone, then silence.
        let ch = Signals.channel(captured, 0, of: 2)
        let loud = ch.indices.filter { abs(ch[$0]) > 0.05 }
        let first = try #require(loud.first), last = try #require(loud.last)
        print("end: \(left) frames left when woken, done in \(done) s after \(waits) waits; tone heard over \(last - first + 1) frames")
        #expect(abs(last - first + 1 - 22_050) < 200, "the tone's 22,050 frames heard, \(last - first + 1)")
        #expect(ch[(last + 1)...].allSatisfy { abs($0) < 0.05 }, "then silence")
    }
}
