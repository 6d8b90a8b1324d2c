// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeDocuments
import PracticeTestSupport
@testable import PracticeEngine

/// Previews: where they start (the first named loop, else the loudest stretch near the middle)
/// and how they sound (faded in and out, measured on the virtual device).
@Suite struct PreviewTests {
    let dir = ScratchDirectory("preview")

    /// A minute of quiet 220 Hz with a loud stretch from 35 s to 45 s.
    func song() throws -> String {
        let path = dir.file("song.wav")
        var samples = Signals.sine(220, seconds: 60, channels: 1, amplitude: 0.05)
        for k in (35 * 44_100)..<(45 * 44_100) { samples[k] *= 12 }
        try Signals.write(samples, to: path, channels: 1)
        return path
    }

    @Test func theLoudestStretchNearTheMiddleOrTheFirstNamedLoop() throws {
        let track = try Track.open(try song()).track
        // Every 15 s stretch from 30 s to 35 s holds all of the loud part: the first of them.
        #expect(try PreviewSpot.find(in: track, sidecar: Sidecar()) == PreviewSpot(start: 30, end: 45, reason: "the loudest part near the middle"))
        var sidecar = Sidecar()
        try sidecar.addMarker(name: "verse", time: 12, duration: 60)
        try sidecar.addMarker(name: "chorus", time: 20, duration: 60)
        try sidecar.addMarker(name: "end", time: 28, duration: 60)
        _ = try sidecar.addLoop(name: "late", from: "chorus", to: "end", duration: 60)
        _ = try sidecar.addLoop(name: "early", from: "verse", to: "chorus", duration: 60)
        #expect(try PreviewSpot.find(in: track, sidecar: sidecar) == PreviewSpot(start: 12, end: 27, reason: "the loop 'early'"))
        let short = dir.file("short.wav")
        try Signals.write(Signals.sine(440, seconds: 9), to: short)
        #expect(try PreviewSpot.find(in: try Track.open(short).track, sidecar: sidecar) == PreviewSpot(start: 0, end: 9, reason: "the whole track"))
    }

    /// The range heard with linear fades over its first and last 0.5 s: the level 0.125 s in is a
    /// quarter of the full one, 0.375 s in three quarters, full in the middle, a quarter 0.125 s
    /// before the end.
    @Test func fadedInAndOut() throws {
        let path = dir.file("tone.wav")
        try Signals.write(Signals.sine(441, seconds: 4), to: path)
        var o = PlayerOptions()
        (o.from, o.to, o.edgeFade) = (1, 3, 0.5)
        let rig = try VirtualRig(path, o)
        defer { rig.stop() }
        let heard = rig.play(88_200)
        #expect(heard.count == 88_200 * 2)
        // RMS of the left channel over 10 ms (4.41 cycles of 441 Hz: whole ones, 441 frames) around `t`.
        func level(_ t: Double) -> Double {
            let centre = Int(t * 44_100)
            let frames = (centre - 220)...(centre + 220)
            return (frames.reduce(0.0) { $0 + Double(heard[2 * $1]) * Double(heard[2 * $1]) } / Double(frames.count)).squareRoot() / (0.5 / 2.0.squareRoot())
        }
        for (t, expected) in [(0.125, 0.25), (0.375, 0.75), (1.0, 1.0), (1.875, 0.25), (1.625, 0.75)] {
            #expect(abs(level(t) - expected) < 0.03, "at \(t) s: \(level(t))")
        }
    }
}
