// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeTestSupport

/// What the views beside the screen show (the phone's page, the video's overlay): when it next
/// changes, found exactly, and the sidecar read again when its file has changed.
@Suite struct TrackViewTests {
    let dir = ScratchDirectory("track-view")

    /// A 30 s tone with markers at 10 and 20 s, a 120 bpm grid through 1 s, and lyric lines at
    /// 12.3 and 25 s.
    func song() throws -> String {
        let path = dir.file("song.wav")
        try Signals.write(Signals.sine(440, seconds: 30), to: path)
        let track = try Track.open(path).track
        try SidecarStore.update(for: track) { (s: inout Sidecar) throws(PracticeError) in
            for (name, time) in [("Verse", 10.0), ("Chorus", 20.0)] { try s.addMarker(name: name, time: time, duration: 30) }
            s.beats = BeatGrid.steady(tempo: 120, one: 1, meter: 8, duration: 30)
        }
        try "[00:12.30]first line\n[00:25.00]second line\n".write(toFile: dir.file("song.lrc"), atomically: true, encoding: .utf8)
        return path
    }

    @Test func theNextChangeIsWhereWhatIsShownChanges() throws {
        let rig = try VirtualRig(try song())
        var view = TrackView(player: rig.player)
        let read = view.refresh(force: true)
        #expect(read && view.markers.map(\.name) == ["Verse", "Chorus"])
        // The next beat, marker or line, whichever comes first (half a millisecond early, as
        // `here` counts a beat from then).
        #expect(view.nextChange(after: 9.0) == 9.4995)
        #expect(view.nextChange(after: 9.7) == 9.9995)
        #expect(view.nextChange(after: 12.2) == 12.3)
        #expect(view.nextChange(after: 29.9995) == nil)
        // Everywhere: nothing changes before it, and something does at it.
        var t = 0.0
        while t < 29.4 {   // after the last beat (29.5 s) nothing changes
            let next = try #require(view.nextChange(after: t), "at \(t)")
            let here = view.here(at: t)
            #expect(view.here(at: (t + next) / 2) == here && view.here(at: next - 0.0001) == here, "at \(t): changed before \(next)")
            #expect(view.here(at: next + 0.0001) != here, "at \(t): nothing changed at \(next)")
            t += 0.0371
        }
    }

    @Test func theSidecarIsReadAgainWhenItsFileChanged() throws {
        let path = try song()
        let rig = try VirtualRig(path)
        var view = TrackView(player: rig.player)
        let first = view.refresh(force: true), unchanged = view.refresh(force: false)
        #expect(first && !unchanged)
        try SidecarStore.update(for: rig.player.track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Bridge", time: 15, duration: 30)
        }
        let changed = view.refresh(force: false), unchangedAgain = view.refresh(force: false)
        #expect(changed && view.markers.map(\.name) == ["Verse", "Bridge", "Chorus"])
        #expect(!unchangedAgain)
        #expect(view.nextChange(after: 14.7) == 14.9995)
    }
}
