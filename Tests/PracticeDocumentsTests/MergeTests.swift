// SPDX-License-Identifier: GPL-3.0-or-later
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

    @Test func mergingACopyOfItselfChangesNothing() throws {
        var ours = base
        let report = ours.merge(base)
        #expect(report.lines.isEmpty && ours == base)
        // An empty `settings` object stays one (found by fuzzing: the merge dropped it, so a
        // merge of two equal files rewrote them).
        let empty = try Sidecar.decode(Data(#"{"format":"practice-markers","version":1,"settings":{}}"#.utf8))
        var merged = empty
        #expect(merged.merge(empty).lines.isEmpty)
        #expect(merged.encoded() == empty.encoded() && String(decoding: merged.encoded(), as: UTF8.self).contains(#""settings": {"#))
    }

    // MARK: Settings, and what a merge decides

    func settings(_ values: [String: JSONValue]) -> PracticeSettings {
        let s = try! Sidecar.decode(Data(#"{"format":"practice-markers","version":1,"settings":"#.utf8) + Data(JSONValue.object(values).compact().utf8) + Data("}".utf8))
        return s.settings!
    }

    @Test func settingsMergeOneByOneTheNewerEditOfEachWinning() throws {
        var ours = base, theirs = base
        // We tapped the tempo last; they shifted the lyrics last and set a setting we do not know.
        ours.settings = settings(["bpm": .integer(100), "lyricsShift": .double(0.25),
                                  "updatedAt": .object(["bpm": .string("2026-11-20T10:09:00.000Z"), "lyricsShift": .string("2026-11-20T10:01:00.000Z")])])
        theirs.settings = settings(["bpm": .integer(96), "lyricsShift": .double(-0.5), "metronome": .string("woodblock"),
                                    "updatedAt": .object(["bpm": .string("2026-11-20T10:02:00.000Z"), "lyricsShift": .string("2026-11-20T10:05:00.000Z")])])
        var ab = ours, ba = theirs
        let report = ab.merge(theirs)
        _ = ba.merge(ours)
        let merged = try #require(ab.settings)
        #expect(merged.bpm == 100 && merged.lyricsShift == -0.5 && merged.extra["metronome"] == .string("woodblock"))
        #expect(merged.updatedAt == ["bpm": "2026-11-20T10:09:00.000Z", "lyricsShift": "2026-11-20T10:05:00.000Z"])
        #expect(ba.settings == ab.settings, "both directions agree")
        #expect(report.changes == ["~ settings.lyricsShift 0.25 → -0.5", "+ settings.metronome \"woodblock\""])
        #expect(report.decisions == ["settings.bpm: ours 100, theirs 96; kept ours (the newer edit)"])
        // And the merged document reads back with every field.
        let back = try Sidecar.decode(ab.encoded())
        #expect(back.settings == merged)
    }

    @Test func aMergeKeepsSettingsOnlyTheOtherSideHas() throws {
        var ours = base, theirs = base
        theirs.settings = PracticeSettings()
        theirs.settings!.set(\.bpm, 124, at: "2026-11-20T10:03:00.000Z")
        theirs.settings!.set(\.lyricsShift, 1.5, at: "2026-11-20T10:03:00.000Z")
        let report = ours.merge(theirs)
        #expect(ours.settings?.bpm == 124 && ours.settings?.lyricsShift == 1.5)
        #expect(report.changes == ["+ settings.bpm 124", "+ settings.lyricsShift 1.5"] && report.decisions.isEmpty)
    }

    @Test func aSettingClearedLaterStaysCleared() throws {
        var ours = base, theirs = base
        ours.settings = PracticeSettings()
        ours.settings!.set(\.lyricsShift, 0.75, at: "2026-11-20T10:01:00.000Z")
        theirs.settings = PracticeSettings()
        theirs.settings!.set(\.lyricsShift, nil, at: "2026-11-20T10:04:00.000Z")
        let original = ours
        let report = ours.merge(theirs)
        #expect(ours.settings?.lyricsShift == nil && ours.settings?.updatedAt["lyricsShift"] == "2026-11-20T10:04:00.000Z")
        #expect(report.changes == ["- settings.lyricsShift"] && report.decisions.isEmpty)
        // The other way round, our clearing beats their older value, and says so.
        var back = theirs
        let other = back.merge(original)
        #expect(back.settings?.lyricsShift == nil && other.changes.isEmpty)
        #expect(other.decisions == ["settings.lyricsShift: ours cleared, theirs 0.75; kept ours (the newer edit)"])
    }

    @Test func aMergeSaysWhatItDecidedWhereBothSidesChangedOneMarker() {
        let ancestor = base
        var ours = base, theirs = base
        ours.markers[1] = marker("b", "Verse", 10.5, at: "05:00")          // we moved the verse…
        theirs.markers[1] = marker("b", "Verse", 9.75, at: "06:00")       // …and so did they, later
        ours.markers[0] = marker("a", "Opening", 0, at: "07:00")          // we renamed the intro…
        theirs.markers[0].deleted = true                                   // …which they removed, earlier
        theirs.markers[0].updatedAt = "2026-11-20T10:03:00.000Z"
        theirs.markers[2] = marker("c", "Chorus", 31, at: "02:00")        // only they moved the chorus
        var merged = ours
        let report = merged.merge(theirs, ancestor: ancestor)
        #expect(report.decisions == [
            "marker 'Intro': ours renamed it 'Opening', theirs removed it; kept ours (the newer edit)",
            "marker 'Verse': ours moved it to 0:10.500, theirs moved it to 0:09.750; kept theirs (the newer edit)",
        ])
        #expect(merged.liveMarkers.map(\.time) == [0, 9.75, 31])
        // Without the ancestor, their newer versions are changes, and our version beating theirs is told.
        var plain = ours
        let told = plain.merge(theirs)
        #expect(told.decisions == ["marker 'Opening': ours has 'Opening' at 0:00.000, theirs removed it; kept ours (the newer edit)"])
        #expect(told.changes == ["~ marker 'Verse' moved 0:10.500 → 0:09.750", "~ marker 'Chorus' moved 0:30.000 → 0:31.000"])
    }
}
