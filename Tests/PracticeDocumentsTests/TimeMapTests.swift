// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import PracticeDocuments

/// A sidecar's times on another copy of the song and back (Formats/practice-sidecar.md, "Other
/// copies of the song"): the map's step function, and edits that go back without moving what
/// was not edited.
@Suite struct TimeMapTests {
    /// +1.3 s, then 16 s cut between 20 and 36 s on the reference; this copy 75 s long.
    let cut = TimeMap(pieces: [.init(start: 0, offset: 1.3), .init(start: 20, offset: nil), .init(start: 36, offset: -14.7)],
                      similarity: 0.95, matched: 50, duration: 75, isConfident: true)

    @Test func placesAndMapsBack() {
        #expect(cut.place(3) == .at(4.3))
        #expect(cut.place(27) == .missing(near: 21.3))        // in the cut: where it is on this copy
        #expect(cut.place(40) == .at(25.3))
        #expect(cut.place(95) == .missing(near: 75))          // past this copy's end
        #expect(TimeMap(offset: -0.7, similarity: 1, matched: 60, duration: 59.3, isConfident: true).place(0.3) == .missing(near: 0))
        #expect(cut.reference(4.3) == 3 && cut.reference(25.3) == 40)
        // 21.3 on this copy is the cut: both sides are one place, each 0 s away; the tie goes to
        // the earlier part's end, and just after it to the later part.
        #expect(cut.reference(21.3) == 20)
        #expect(cut.reference(21.301) == 36.001)
        #expect(cut.summary == "+1.300 s, then −14.700 s from 0:36.000 (16.000 s cut)")
        #expect(TimeMap(json: cut.json) == cut)
    }

    @Test func editsGoBackAndTheRestKeepsItsTimes() throws {
        var s = Sidecar()
        s.markers = [Marker(id: "a", name: "Intro", time: 3.001, updatedAt: "2026-11-20T10:00:00.000Z"),
                     Marker(id: "b", name: "Bridge", time: 27, updatedAt: "2026-11-20T10:00:00.000Z"),
                     Marker(id: "c", name: "Chorus", time: 41.25, updatedAt: "2026-11-20T10:00:00.000Z")]
        s.loops = [Loop(id: "l", name: "Hook", start: .time(40), end: .marker("c"), updatedAt: "2026-11-20T10:00:00.000Z")]
        s.settings = PracticeSettings(position: 27, lyricsShift: 0.25)
        let (placed, missing) = s.placed(by: cut)
        #expect(missing == ["b"])
        #expect(placed.markers.map(\.time) == [4.301, 21.3, 26.55] && placed.loops[0].start == .time(25.3))
        #expect(placed.settings?.lyricsShift == 1.55 && placed.settings?.position == 21.3)

        // Unedited: byte for byte the file's times, even those in the cut.
        #expect(s.unplaced(placed, placed: placed, by: cut) == s)
        // Edited on this copy: a marker moved, one added, the loop's start and the lyrics' shift changed.
        var edited = placed
        edited.markers[2].time = 27
        edited.markers.append(Marker(id: "d", name: "Tag", time: 50, updatedAt: "2026-11-24T10:00:00.000Z"))
        edited.loops[0].start = .time(25)
        edited.settings?.lyricsShift = 1.5
        let back = s.unplaced(edited, placed: placed, by: cut)
        #expect(back.markers.map(\.time) == [3.001, 27, 41.7, 64.7])
        #expect(back.loops[0].start == .time(39.7) && back.loops[0].end == .marker("c"))
        #expect(back.settings?.lyricsShift == 0.2 && back.settings?.position == 27)
    }
}
