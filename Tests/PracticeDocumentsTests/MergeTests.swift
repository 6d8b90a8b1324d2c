import Foundation
import Testing
@testable import PracticeDocuments
import PracticeEngine

/// Merging two copies of a sidecar: a union by id, newer edits win, removals stick, same names
/// are reported, and the result does not depend on which side merges which.
@Suite struct MergeTests {
    func marker(_ id: String, _ name: String, _ time: Double, at edit: String) -> Marker {
        Marker(id: id, name: name, time: time, updatedAt: "2026-11-20T10:\(edit).000Z", author: nil)
    }

    var base: Sidecar {
        var s = Sidecar()
        s.markers = [marker("a", "Intro", 0, at: "00:00"), marker("b", "Verse", 10, at: "00:00"), marker("c", "Chorus", 30, at: "00:00")]
        s.loops = [Loop(id: "l", name: "chorus loop", start: .marker("c"), end: .time(40), updatedAt: "2026-11-20T10:00:00.000Z", author: nil)]
        return s
    }

    @Test func aUnionWhereTheNewerEditWins() {
        var ours = base, theirs = base
        ours.markers[1] = marker("b", "Verse 1", 10, at: "05:00")          // we rename the verse
        theirs.markers[1] = marker("b", "Verse", 10.25, at: "03:00")      // they moved it, earlier
        theirs.markers[0].deleted = true                                   // they remove the intro…
        theirs.markers[0].updatedAt = "2026-11-20T10:04:00.000Z"
        theirs.markers.append(marker("d", "Bridge", 50, at: "04:00"))     // …and add a bridge
        ours.markers.append(marker("e", "Outro", 70, at: "04:30"))
        let report = ours.merge(theirs)
        #expect(ours.liveMarkers.map(\.name).sorted() == ["Bridge", "Chorus", "Outro", "Verse 1"])
        #expect(ours.markers.first { $0.id == "b" }?.time == 10)          // our later rename kept our time
        #expect(report.changes == ["- marker 'Intro' at 0:00.000", "+ marker 'Bridge' at 0:50.000"])
        #expect(report.clashes.isEmpty && report.suggestions.isEmpty)
    }

    @Test func bothOrdersGiveTheSameDocument() {
        var ours = base, theirs = base
        ours.markers[2] = marker("c", "Chorus", 30.5, at: "07:00")
        theirs.markers[2] = marker("c", "Refrain", 31, at: "07:00")       // same edit time: a tie
        theirs.markers.append(marker("x", "Break", 45, at: "01:00"))
        var ab = ours, ba = theirs
        _ = ab.merge(theirs)
        _ = ba.merge(ours)
        ab.normalize(); ba.normalize()
        #expect(ab.markers == ba.markers && ab.loops == ba.loops)
    }

    @Test func anOlderRemovalLosesToANewerEditAndSaysSo() {
        var ours = base, theirs = base
        ours.markers[1].deleted = true
        ours.markers[1].updatedAt = "2026-11-20T10:01:00.000Z"
        theirs.markers[1] = marker("b", "Verse", 11, at: "02:00")
        let report = ours.merge(theirs)
        #expect(ours.liveMarkers.map(\.name) == ["Intro", "Verse", "Chorus"])
        #expect(report.changes == ["+ marker 'Verse' at 0:11.000 (restored)"])
    }

    @Test func twoMarkersWithOneNameAreBothKeptAndReported() {
        var ours = base, theirs = base
        ours.markers.append(marker("p", "Turn", 20, at: "01:00"))
        theirs.markers.append(marker("q", "turn", 20.03, at: "01:00"))
        let report = ours.merge(theirs)
        #expect(ours.liveMarkers.filter { $0.name.lowercased() == "turn" }.count == 2)
        #expect(report.clashes == ["2 markers are named 'Turn' (at 0:20.000, 0:20.030): both kept; rename one"])
        #expect(report.suggestions == ["'Turn' at 0:20.000 and 'turn' at 0:20.030 look like the same place: remove one if so"])
    }

    @Test func aLoopKeepsTheTimeOfAMarkerTheOtherSideRemoved() {
        var ours = base, theirs = base
        theirs.markers[2].deleted = true
        theirs.markers[2].updatedAt = "2026-11-20T10:09:00.000Z"
        let report = ours.merge(theirs)
        #expect(ours.loops[0].start == .time(30))
        #expect(report.changes == ["- marker 'Chorus' at 0:30.000", "~ loop 'chorus loop' keeps 0:30.000 where a removed marker was"])
    }

    @Test func mergingACopyOfItselfChangesNothing() {
        var ours = base
        let report = ours.merge(base)
        #expect(report.lines.isEmpty && ours == base)
    }
}
