// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeDocuments
import PracticeEngine
import PracticeTestSupport
@testable import PracticeJournal

/// What a session heard, from the player's states and the output's clock: seconds at each
/// speed, sections entered and heard, loop passes, count-ins.
@Suite struct TallyTests {
    static func state(_ position: Double, rate: Double = 1, playing: Bool = true, loop: LoopState? = nil) -> PlayerState {
        var s = PlayerState(title: "t", path: "/t.wav", position: position, duration: 10, rate: rate, isPlaying: playing)
        s.loop = loop
        return s
    }

    @Test func runsSeeksAndSpeedsOverSections() {
        var t = PracticeTally(duration: 10)
        t.setMarkers([(0, "intro"), (2, "verse"), (4, "chorus"), (8, "outro")])
        t.observe(Self.state(0), clock: 100)
        t.observe(Self.state(3), clock: 103)                  // a second's sample
        t.observe(Self.state(3, rate: 0.5), clock: 103)       // the speed set to 0.5×
        t.observe(Self.state(4, rate: 0.5), clock: 105)
        t.observe(Self.state(2.5, rate: 0.5), clock: 105)     // a seek back, within the verse
        t.observe(Self.state(3.5, rate: 0.5), clock: 107)
        t.observe(Self.state(3.5, rate: 0.5, playing: false), clock: 107)
        t.observe(Self.state(3.5, rate: 0.5, playing: false), clock: 500)   // paused: nothing heard
        #expect(t.speeds == [1.0: 3, 0.5: 4])
        #expect(t.heard == 7 && t.topSpeed == 1)
        #expect(t.sortedParts == [
            JournalPart(kind: .section, name: "intro", passes: 1, seconds: 2, topSpeed: 1, mainSpeed: 1),
            JournalPart(kind: .section, name: "verse", passes: 2, seconds: 1 + 2 + 2, topSpeed: 1, mainSpeed: 0.5),
        ])
    }

    @Test func loopWrapsGiveEachPassItsTrainerSpeedAndCountIns() {
        var t = PracticeTally(duration: 10)
        t.setMarkers([(0, "intro"), (4, "chorus"), (8, "outro")])
        let trainer = Trainer(from: 0.5, to: 1, step: 0.25)
        func loop(_ pass: Int) -> LoopState {
            LoopState(start: 4, end: 6, name: "chorus loop", pass: pass, passes: 3, rehearsal: Rehearsal(countIn: 2, trainer: trainer))
        }
        t.observe(Self.state(4, rate: 0.5, loop: loop(1)), clock: 0)
        t.observe(Self.state(5, rate: 0.5, loop: loop(1)), clock: 2)
        // Sampled after two wraps: the rest of pass 1 (2 s at 0.5×), all of pass 2 (2.667 s at
        // 0.75×), 0.5 s into pass 3 (0.5 s at 1×), and 1 s of count-in before each pass.
        t.observe(Self.state(4.5, rate: 1, loop: loop(3)), clock: 2 + 2 + 2 / 0.75 + 0.5 + 2)
        t.observe(Self.state(6, rate: 1, playing: false, loop: loop(3)), clock: 2 + 2 + 2 / 0.75 + 0.5 + 2 + 1.5)
        #expect(abs(t.speeds[0.5]! - 4) < 1e-9 && abs(t.speeds[0.75]! - 2 / 0.75) < 1e-9 && abs(t.speeds[1]! - 4) < 1e-9, "\(t.speeds)")
        let parts = t.sortedParts
        #expect(parts.map(\.name) == ["chorus loop", "chorus"])
        #expect(parts[0].passes == 3 && parts[0].topSpeed == 1 && abs(parts[0].seconds - t.heard) < 1e-9)
        #expect(parts[1].passes == 3 && abs(parts[1].seconds - (4 + 2 / 0.75 + 2)) < 1e-9, "\(parts[1])")
        #expect(t.countIns == 1, "a count-in before the first pass only")
    }
}

extension TallyTests {
    /// A seek back within a pass, and a count-in that holds the place, are no new passes of the
    /// section the loop is in: two passes of the loop are two of its section (it was three).
    @Test func aLoopsPassEntersItsSectionOnce() {
        var t = PracticeTally(duration: 10)
        t.setMarkers([(0, "intro"), (4, "chorus"), (8, "outro")])
        func loop(_ pass: Int) -> LoopState {
            LoopState(start: 4, end: 6, name: "chorus loop", pass: pass, passes: 5, rehearsal: Rehearsal(countIn: 2, countInEvery: true, bpm: 120))
        }
        t.observe(Self.state(4, loop: loop(1)), clock: 0)
        t.observe(Self.state(5, loop: loop(1)), clock: 1)
        t.observe(Self.state(4.5, loop: loop(1)), clock: 1)      // a seek back, within the pass
        t.observe(Self.state(5.5, loop: loop(1)), clock: 2)
        t.observe(Self.state(4, loop: loop(2)), clock: 2.5)      // wrapped; the count-in begins
        t.observe(Self.state(4, loop: loop(2)), clock: 3.5)      // still counting in, at A
        t.observe(Self.state(5, loop: loop(2)), clock: 4.5)
        t.observe(Self.state(5, playing: false, loop: loop(2)), clock: 4.5)
        let parts = Dictionary(uniqueKeysWithValues: t.sortedParts.map { ($0.name, $0) })
        #expect(parts["chorus loop"]?.passes == 2 && parts["chorus"]?.passes == 2, "\(t.sortedParts)")
        #expect(abs((parts["chorus"]?.seconds ?? 0) - 3.5) < 1e-9, "music heard in the section: 1 + 1 + 0.5 + 1 s")
    }
}

/// The recorder on the virtual device: a session written as it goes, exactly as played.
@Suite struct RecorderTests {
    let dir = ScratchDirectory("journal")

    func song() throws -> String {
        let path = dir.file("song.wav")
        try Signals.write(Signals.sine(440, seconds: 10), to: path, tags: ["title": "Drill", "artist": "Crew", "genre": "Dance"])
        let track = try Track.open(path).track
        try SidecarStore.update(for: track) { (s: inout Sidecar) throws(PracticeError) in
            for (name, time) in [("intro", 0.0), ("verse", 2.0), ("chorus", 4.0), ("outro", 8.0)] { try s.addMarker(name: name, time: time, duration: 10) }
        }
        return path
    }

    /// Waits until the recorder has read the track's markers (beside the player, as it starts):
    /// on the virtual device a 4-second pass is over in a moment, and one played before it knew
    /// the sections was counted in none (a loaded CI saw the chorus twice instead of three times).
    func tracksMarkersRead(_ recorder: JournalRecorder) throws {
        try eventually("the recorder reads the track's markers") { recorder.hasReadTrackNotes }
    }

    /// Plays `seconds` seconds on the virtual device, the recorder sampling after each, as its
    /// once-a-second timer does.
    func playSeconds(_ seconds: Int, _ rig: VirtualRig, _ recorder: JournalRecorder) {
        for _ in 0..<seconds {
            rig.play(44_100)
            settle(recorder, rig.player)
            recorder.secondNow()
        }
    }

    /// Waits until the recorder has taken in every event the player has published (however
    /// long a loaded machine keeps its task waiting: the second sampled next must see them all;
    /// a minute without is a failure, not a guess).
    func settle(_ recorder: JournalRecorder, _ player: Player) {
        let deadline = Date().addingTimeInterval(60)
        while recorder.observedSequence.load(ordering: .acquiring) < player.sequence {
            guard Date() < deadline else { Issue.record("the recorder took in no event for a minute"); return }
            usleep(200)
        }
    }

    @Test func aTrainerLoopIsRecordedPassByPassAtItsSpeeds() throws {
        let journal = try Journal(path: dir.file("journal.sqlite"))
        var o = PlayerOptions()
        o.loop = LoopRange(start: 4, end: 6, passes: 3, name: "chorus loop", rehearsal: Rehearsal(trainer: Trainer(from: 0.5, to: 1, step: 0.25)))
        let rig = try VirtualRig(try song(), o)
        let recorder = try #require(JournalRecorder(journal: journal, player: rig.player))
        try tracksMarkersRead(recorder)
        // 2/0.5 + 2/0.75 + 2/1 = 8.667 s of output, in steps of a second, a sample after each.
        playSeconds(10, rig, recorder)
        #expect(rig.player.state.isFinished)
        // A marker added while it played.
        try SidecarStore.update(for: rig.player.track) { (s: inout Sidecar) throws(PracticeError) in try s.addMarker(name: "turn", time: 5, duration: 10) }
        rig.stop()
        recorder.waitUntilWritten(timeout: 30, identity: true)
        let sessions = try journal.sessions(from: .today, to: .today)
        try #require(sessions.count == 1)
        let s = sessions[0]
        #expect(s.title == "Drill" && s.artist == "Crew" && s.genre == "Dance" && s.duration == 10)
        // The time heard to a millisecond; how it splits between the speeds, to 50 ms (where a
        // pass turns, the stretcher's latency blurs which speed is heard).
        #expect(Set(s.speeds.keys) == [0.5, 0.75, 1], "\(s.speeds)")
        #expect(abs(s.speeds[0.5]! - 4) < 0.05 && abs(s.speeds[0.75]! - 2 / 0.75) < 0.05 && abs(s.speeds[1]! - 2) < 0.05, "\(s.speeds) \(s.parts)")
        #expect(abs(s.heard - (4 + 2 / 0.75 + 2)) < 0.001 && s.topSpeed == 1)
        #expect(s.parts.map(\.name) == ["chorus loop", "chorus"])
        #expect(s.parts[0].passes == 3 && s.parts[1].passes == 3, "\(s.parts)")
        #expect(s.markersAdded == 1 && s.countIns == 0)
        #expect(s.audio == (try rig.player.track.identity().pcm.sha256))
    }

    /// A crew's sidecar, made on another copy of the song (this one starts 1.3 s later): a player
    /// reads it only once its sound has started, so the recorder, started with the sound, first
    /// reads its markers as made there (this copy's identity is not known yet, and the journal
    /// never decodes a track to find it). Once the player has read the sidecar and lined it up,
    /// `sidecarLinedUp` has the recorder read it again: the sections are this copy's, and the
    /// session is counted as the crew's song. Without it, 0 → 5 s would give "verse" 2 s, not 0.7.
    /// On generated music, and on a real song as crews have it: the crew's FLAC of 30 s of
    /// wesnoth's frantic (sox), and a crew mate's MP3 of it (lame) that starts 1.3 s later.
    @Test(arguments: [false, true]) func aCrewsSidecarLinedUpAfterTheStartMovesTheSections(realSong: Bool) throws {
        let crew: String, copy: String
        if realSong {
            (crew, copy) = (dir.file("crew.flac"), dir.file("copy.mp3"))
            let song = "/usr/share/games/wesnoth/1.16/data/core/music/frantic.ogg", later = dir.file("later.wav")
            #expect(try run("/usr/bin/sox", [song, crew, "trim", "20", "30"]).status == 0)
            #expect(try run("/usr/bin/sox", [crew, later, "pad", "1.3", "0"]).status == 0)
            #expect(try run("/usr/bin/lame", ["--quiet", "-b", "160", later, copy]).status == 0)
        } else {
            let music = Signals.music(seconds: 30, seed: 31)
            (crew, copy) = (dir.file("crew.wav"), dir.file("copy.wav"))
            try Signals.write(music, to: crew)
            try Signals.write([Float](repeating: 0, count: Int(1.3 * 44_100) * 2) + music, to: copy)
        }
        let sidecar = crew + ".practice.json"
        try SidecarStore.update(for: try Track.open(crew).track) { (s: inout Sidecar) throws(PracticeError) in
            for (name, time) in [("intro", 1.0), ("verse", 3.0)] { try s.addMarker(name: name, time: time, duration: 30) }
        }
        let journal = try Journal(path: dir.file("crew.sqlite"))
        let rig = try VirtualRig(copy)
        #expect(TrackIdentity.known(rig.player.track) == nil, "a copy not seen before")
        let recorder = try #require(JournalRecorder(journal: journal, player: rig.player, sidecar: sidecar))
        try tracksMarkersRead(recorder)
        // The player's reading of the sidecar (`Places.resolveForPlaying`'s `later`): lined up.
        let loaded = try SidecarStore.load(for: rig.player.track, explicit: sidecar)
        let verse = try #require(loaded.sidecar.liveMarkers.first { $0.name == "verse" })
        #expect(abs(verse.time - 4.3) < 0.03, "lined up: \(verse.time)")
        recorder.sidecarLinedUp()
        try eventually("the recorder reads the lined-up markers") { recorder.songAudio != nil }
        playSeconds(5, rig, recorder)
        rig.stop()
        recorder.waitUntilWritten(timeout: 30, identity: true)
        let s = try #require(try journal.sessions(from: .today, to: .today).first { $0.path.hasSuffix(realSong ? "/copy.mp3" : "/copy.wav") })
        let seconds = Dictionary(uniqueKeysWithValues: s.parts.filter { $0.kind == .section }.map { ($0.name, $0.seconds) })
        #expect(abs((seconds["intro"] ?? 0) - 2) < 0.05 && abs((seconds["verse"] ?? 0) - 0.7) < 0.05, "\(s.parts)")
        let song = try Track.open(crew).track.identity().pcm.sha256
        #expect(s.audio == song, "counted as the crew's song")
        // And the copy is known to the journal as a copy of it (its own sessions to come too).
        let own = try rig.player.track.identity().pcm.sha256
        #expect(try journal.reading { db in try db.value(String.self, sql: "SELECT song FROM copy WHERE audio = ?", arguments: [own]) } == song)
    }

    /// A recorder made once its player has played a while (a session's journal opens after the
    /// first note is out) counts from `first`, the player as it started: all of the time heard,
    /// once. Without `first` it would count from when it was made: 4 s, not 7.
    @Test func aRecorderMadeLateCountsFromThePlayersStart() throws {
        let journal = try Journal(path: dir.file("late.sqlite"))
        let rig = try VirtualRig(try song())
        let first = rig.player.stateAndClock
        #expect(first.state.isPlaying && first.clock == 0)
        _ = rig.play(3 * 44_100)
        let recorder = try #require(JournalRecorder(journal: journal, player: rig.player, first: first))
        playSeconds(4, rig, recorder)
        rig.stop()
        recorder.waitUntilWritten(timeout: 30)
        let s = try #require(try journal.sessions(from: .today, to: .today).first)
        #expect(abs(s.heard - 7) < 0.001, "\(s.heard)")
        #expect(abs((s.speeds[1] ?? 0) - 7) < 0.001, "\(s.speeds)")
    }

    /// A loop drilled with a count-in before every pass and a gap after it: each pass enters
    /// its section once (the count-in and the gap hold the place; they are no jumps into it), so
    /// the section and the loop both show five passes; and the speed practised longest is kept.
    @Test func aSectionsPassesAreTheLoopsWithCountInsAndGaps() throws {
        let journal = try Journal(path: dir.file("drill.sqlite"))
        var o = PlayerOptions()
        o.settings.rate = 0.8
        o.loop = LoopRange(start: 4, end: 6, passes: 5, name: "chorus loop", rehearsal: Rehearsal(gap: 1, countIn: 2, countInEvery: true, bpm: 120))
        let rig = try VirtualRig(try song(), o)
        let recorder = try #require(JournalRecorder(journal: journal, player: rig.player))
        try tracksMarkersRead(recorder)
        // 5 × (2 clicks at 120 bpm heard at 0.8× = 1.25 s, 2 s / 0.8 = 2.5 s, a gap of 1 s): 23.75 s.
        playSeconds(26, rig, recorder)
        #expect(rig.player.state.isFinished)
        rig.stop()
        recorder.waitUntilWritten(timeout: 30)
        let s = try #require(try journal.sessions(from: .today, to: .today).first)
        let parts = Dictionary(uniqueKeysWithValues: s.parts.map { ($0.name, $0) })
        #expect(parts["chorus loop"]?.passes == 5 && parts["chorus"]?.passes == 5, "\(s.parts)")
        #expect(parts["chorus"]?.mainSpeed == 0.8 && parts["chorus loop"]?.mainSpeed == 0.8, "\(s.parts)")
    }

    /// Two players recording into one journal at once: two sessions, each its own.
    @Test func twoPlayersAtOnce() throws {
        let path = dir.file("both.sqlite")
        let song = try song()
        var rigs: [(VirtualRig, JournalRecorder)] = []
        for rate in [0.8, 1.25] {
            var o = PlayerOptions()
            o.settings.rate = rate
            let rig = try VirtualRig(song, o)
            rigs.append((rig, try #require(JournalRecorder(journal: try Journal(path: path), player: rig.player))))
        }
        let both = rigs
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let (rig, recorder) = both[k]
            for _ in 0..<3 {
                rig.play(44_100)
                settle(recorder, rig.player)
                recorder.secondNow()
            }
            rig.stop()
            recorder.waitUntilWritten()
        }
        let sessions = try Journal(path: path).sessions(from: .today, to: .today)
        #expect(rigs.map { $0.1.problem } == [nil, nil])
        let speeds: [[Double]] = sessions.map { $0.speeds.keys.sorted() }.sorted { (a: [Double], b: [Double]) in a[0] < b[0] }
        #expect(speeds == [[0.8], [1.25]])
        #expect(sessions.allSatisfy { abs($0.heard - 3) < 0.001 }, "\(sessions.map(\.heard))")
    }

    /// A version 2 journal (before copies were kept) opens as it is and gains the copies: its
    /// sessions kept; a copy said to be another's song is read back as that song, and one
    /// registered again keeps the song it was first given.
    @Test func aVersion2JournalGainsTheCopies() throws {
        let path = dir.file("v2.sqlite")
        var session = JournalSession(path: "/music/a.flac", duration: 10, started: Date())
        session.audio = "flac"
        session.heard = 4
        try Journal(path: path).save(session, id: nil)
        #expect(try run("/usr/bin/sqlite3", [path, "DROP TABLE copy; PRAGMA user_version = 2"]).status == 0)
        let journal = try Journal(path: path)
        #expect(!journal.isReadOnly)
        #expect(try run("/usr/bin/sqlite3", [path, "PRAGMA user_version"]).stdout == "3\n")
        func identity(_ sha: String) -> TrackIdentity {
            TrackIdentity(fileName: "a", duration: 10, pcm: PCMIdentity(sampleRate: 44_100, channels: 2, frames: 441_000, sha256: sha))
        }
        try journal.registerCopy(identity("flac"), sameAs: "crew")
        try journal.registerCopy(identity("flac"), sameAs: "other")
        let read = try journal.sessions(from: .today, to: .today)
        #expect(read.map(\.audio) == ["crew"] && read[0].heard == 4)
    }

    /// A journal from a newer version is read, never written: no recorder, and a warning.
    @Test func aNewerJournalIsReadOnly() throws {
        let path = dir.file("newer.sqlite")
        _ = try Journal(path: path)
        #expect(try run("/usr/bin/sqlite3", [path, "PRAGMA user_version = 9"]).status == 0)
        let journal = try Journal(path: path)
        #expect(journal.isReadOnly && journal.warning == "\(path): written by a newer version of practice; shown, but nothing is recorded in it")
        let rig = try VirtualRig(try song())
        defer { rig.stop() }
        #expect(JournalRecorder(journal: journal, player: rig.player) == nil)
        #expect(throws: PracticeError.self) { try journal.addNote("x", on: .today) }
        #expect(try journal.sessions(from: .today, to: .today).isEmpty)
    }
}

/// Days as the journal counts them, and spans as people say them.
@Suite struct DayTests {
    @Test func calendarArithmetic() {
        let d = Day(year: 2026, month: 11, day: 25)
        #expect(d.weekday == 3 && d.short == "Wed 25 Nov" && d.description == "2026-11-25")
        // Written as C's `%04d-%02d-%02d` writes it, padding and signs alike.
        for (y, m, day) in [(2026, 1, 5), (812, 3, 7), (7, 10, 31), (0, 1, 1), (12345, 12, 9), (-5, 2, 3), (-1234, 6, 6)] {
            #expect(Day(year: y, month: m, day: day).description == cFormat("%04d-%02d-%02d", y, m, day))
        }
        #expect(d.weekStart == Day(year: 2026, month: 11, day: 23) && d.monthEnd == Day(year: 2026, month: 11, day: 30))
        #expect(Day(ordinal: d.ordinal) == d && Day(ordinal: 0) == Day(year: 1970, month: 1, day: 1))
        #expect(Day(year: 2024, month: 2, day: 1).monthEnd.day == 29 && Day(year: 2100, month: 2, day: 1).monthEnd.day == 28)
        #expect(Day(year: 2026, month: 12, day: 31).adding(days: 1) == Day(year: 2027, month: 1, day: 1))
        for bad in ["2026-02-29", "2026-13-01", "2026-1-01", "26-01-01", "2026-01-00", "yesterday"] { #expect(Day(bad) == nil, "\(bad)") }
        #expect(Day("2024-02-29") == Day(year: 2024, month: 2, day: 29))
    }

    @Test func spans() {
        let today = Day(year: 2026, month: 11, day: 25)
        #expect(DaySpan.parse("week", today: today)! == (Day(year: 2026, month: 11, day: 23), Day(year: 2026, month: 11, day: 29)))
        #expect(DaySpan.parse("month", today: today)! == (Day(year: 2026, month: 11, day: 1), Day(year: 2026, month: 11, day: 30)))
        #expect(DaySpan.parse("yesterday", today: today)! == (Day(year: 2026, month: 11, day: 24), Day(year: 2026, month: 11, day: 24)))
        #expect(DaySpan.parse("2026-11-01..", today: today)! == (Day(year: 2026, month: 11, day: 1), today))
        #expect(DaySpan.parse("2026-11-05..2026-11-01", today: today) == nil && DaySpan.parse("last week", today: today) == nil)
        // The streak: a today not practised yet does not break it; a gap does.
        let practised: Set<Day> = [today.adding(days: -1), today.adding(days: -2), today.adding(days: -4)]
        #expect(JournalReport.streak(of: practised, endingAt: today, today: today) == 2)
        #expect(JournalReport.streak(of: practised.union([today]), endingAt: today.adding(days: 6), today: today) == 3)
    }
}
