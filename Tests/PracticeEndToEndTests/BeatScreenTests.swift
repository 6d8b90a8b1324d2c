// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
import PracticeAudio

/// The count on the practice screen against what is heard, through the real-time sink: a track
/// of short bursts on its beats (every 0.5 s from 0.5 s, the grid kept in its sidecar; beat k's
/// burst at 400 + 200k Hz, so that each is known by its pitch), played at 0.8× and 1.25×; the
/// screen shows beats 3 to 5 within 30 ms (the median of the three) of when their bursts are
/// heard, none more than a screen tick (100 ms) late nor 25 ms early. (Both ends of the measure
/// rest on the sound server's latency reports: on a loaded CI machine one beat showed 15 ms early,
/// the median 4 ms early.)
extension TerminalTests {
    @Test(arguments: [0.8, 1.25])
    func theCountIsInStepWithWhatIsHeard(rate: Double) throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("tui-count")
        let beats = (0..<16).map { 0.5 + Double($0) * 0.5 }
        var samples = [Float](repeating: 0, count: 9 * 44_100)
        for (k, t) in beats.enumerated() {
            let s = Int(t * 44_100), f = 400 + 200 * Double(k + 1)
            for i in 0..<1_764 { samples[s + i] = Float(0.6 * sin(2 * .pi * f * Double(i) / 44_100)) }
        }
        try Signals.write(samples, to: dir.file("song.wav"), channels: 1)
        let times = beats.map { String(format: "%.3f", $0) }.joined(separator: ", ")
        try #"{"format": "practice-markers", "version": 1, "beats": {"tempo": 120, "one": 0.5, "meter": 8, "times": [\#(times)], "source": "steady"}}"#
            .write(toFile: dir.file("song.wav.practice.json"), atomically: true, encoding: .utf8)
        let session = try startRecordedScreen("practice-count-\(getpid())-\(Int(rate * 100))", in: dir, rig: rig, environment: "NO_COLOR=1",
                                              arguments: "--rate \(rate)")
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        _ = try waitFor("Eight 1", in: session)
        // When do beats 3, 4 and 5 (the bursts at 1.5, 2 and 2.5 s) show? Polled as fast as tmux answers.
        var shown: [Int: Double] = [:]
        let deadline = Date().addingTimeInterval(10)
        while shown.count < 3 && Date() < deadline {
            let screen = try tmux(["capture-pane", "-p", "-t", session])
            let now = Double(monotonicNanoseconds())
            for beat in 3...5 where shown[beat] == nil && screen.contains("‹\(beat)›") { shown[beat] = now }
        }
        try #require(shown.count == 3, "beats shown: \(shown.keys.sorted())")
        usleep(300_000)
        let (captured, timeOfFrame) = rig.stopRecording()
        _ = try tmux(["send-keys", "-t", session, "q"])
        // The bursts as heard: onsets after silence, each known by its pitch (beat 3's: 1 kHz).
        let left = stride(from: 0, to: captured.count, by: 2).map { Double(captured[$0]) }
        var onsets: [Int] = []
        var quietSince = 0
        for (k, v) in left.enumerated() {
            if abs(v) > 0.2 {
                if k - quietSince > 4_410 { onsets.append(k) }
                quietSince = k
            }
        }
        var lags: [Double] = []
        for beat in 3...5 {
            let f = 400 + 200 * Double(beat)
            let burst = onsets.first { k in
                k + 1_300 < left.count && abs(Analysis.dominantFrequency(Array(left[(k + 200)..<(k + 1_300)]), sampleRate: 44_100) - f) < 60
            }
            let at = try #require(burst, "no \(Int(f)) Hz burst among \(onsets.count) onsets")
            lags.append((shown[beat]! - timeOfFrame(at)) / 1e6)
        }
        let median = lags.sorted()[1]
        #expect(median > -10 && median < 30 && lags.allSatisfy { $0 > -25 && $0 < 120 }, "at \(rate)×, beats 3 to 5 showed \(lags) ms after they were heard")
        print("count: at \(rate)× beats 3 to 5 showed \(lags.map { Int($0.rounded()) }) ms after they were heard")
    }
}
