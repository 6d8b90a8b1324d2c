// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeTestSupport
@testable import PracticeTUI
import PracticeEngine
import PracticeDocuments
import PracticeControl

/// The practice session's keys against a player on the virtual device, without a terminal: what
/// each key makes the player do, and what the screen then shows.
@Suite struct SessionTests {
    let dir = ScratchDirectory("session")

    func session() throws -> (Session, Player, VirtualOutput) {
        let path = dir.file("tone.wav")
        try Signals.write(Signals.sine(440, seconds: 4), to: path)
        let output = VirtualOutput(sampleRate: 44_100, channels: 2)
        var o = PlayerOptions()
        o.output = .virtual(output)
        o.startPlaying = false
        let player = try Player(path: path, options: o)
        return (Session(player: player, sidecar: nil, color: false), player, output)
    }

    /// The loop is the player's: one set by another controller (the socket) shows at once, and
    /// `l` switches it off and on again with one press each, keeping its ends.
    @Test func aLoopFromAnotherControllerShowsAndTogglesInOnePress() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        try player.perform(try PlayerCommand.parse(#"{"cmd":"loop","start":1,"end":2.5}"#))
        #expect(Screen.loopLine(session.screenState) == "Loop: 0:01.000 – 0:02.500  on, pass 1  ↓↑ nudge B")
        _ = session.handle(.character("l"))
        #expect(player.state.loop?.isOn == false && player.state.loop?.start == 1 && player.state.loop?.end == 2.5)
        #expect(Screen.loopLine(session.screenState) == "Loop: 0:01.000 – 0:02.500  off (l turns it on)  ↓↑ nudge B")
        _ = session.handle(.character("l"))
        #expect(player.state.loop?.isOn == true)
        try player.perform(.loop(nil))
        #expect(Screen.loopLine(session.screenState) == "Loop: none (a and b set its ends)")
    }

    /// What another thread says (the phone remote: pairing refused) shows on the message line,
    /// control characters made harmless.
    @Test func aLinePostedFromAnotherThreadIsSaid() async throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        let post = session.post
        await Task.detached { post("remote: pairing refused (more than 10 attempts in a minute)\u{1B}[2J") }.value
        #expect(session.screenState.message == nil, "said at the loop's next look, not before")
        session.sayPosted()
        #expect(session.screenState.message == #"remote: pairing refused (more than 10 attempts in a minute)\u{1b}[2J"#, "\(String(describing: session.screenState.message))")
    }

    /// `a` then `b` make the player's loop; `a` alone waits for its end (shown, not sent).
    @Test func aWaitsForBThenThePlayerLoops() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        player.seek(to: 0.5)
        _ = session.handle(.character("a"))
        #expect(player.state.loop == nil)
        #expect(Screen.loopLine(session.screenState) == "Loop: 0:00.500 – ?  (b sets the other end)")
        player.seek(to: 1.75)
        _ = session.handle(.character("b"))
        #expect(player.state.loop.map { [$0.start, $0.end] } == [0.5, 1.75] && player.state.loop?.isOn == true)
    }

    /// A crew's sidecar made on the whole song, used with a copy that has 16 s cut from its
    /// middle: the screen shows the markers on this copy (the one after the cut 16 s earlier, the
    /// one in the cut marked), says what moved, and a marker added here goes into the file on the
    /// song's times while the crew's markers keep theirs exactly.
    @Test func aSidecarFromAnotherCopyShowsOnThisOneAndEditsGoBack() throws {
        let song = Signals.music(seconds: 60, seed: 31)
        try Signals.write(song, to: dir.file("song.flac"), container: .flac)
        try Signals.write(Array(song[..<(20 * 44_100 * 2)] + song[(36 * 44_100 * 2)...]), to: dir.file("cut.flac"), container: .flac)
        let crew = dir.file("crew.practice.json")
        try SidecarStore.update(for: try Track.open(dir.file("song.flac")).track, explicit: crew) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Intro", time: 3, duration: 60)
            try s.addMarker(name: "Bridge", time: 27, duration: 60)
            try s.addMarker(name: "Chorus", time: 41.25, duration: 60)
        }
        let output = VirtualOutput(sampleRate: 44_100, channels: 2)
        var o = PlayerOptions()
        o.output = .virtual(output)
        o.startPlaying = false
        let player = try Player(path: dir.file("cut.flac"), options: o)
        defer { output.unplug(); player.stop() }
        let session = Session(player: player, sidecar: crew, color: false)
        session.prepare()
        let rows = session.screenState.markers
        #expect(rows.map(\.name) == ["Intro", "Bridge", "Chorus"] && rows.map(\.notInThisCopy) == [false, true, false])
        #expect(abs(rows[0].time - 3) <= 0.02 && abs(rows[2].time - 25.25) <= 0.02, "\(rows)")
        let message = try #require(session.screenState.message)
        #expect(try #/markers moved \+0\.0\d\d s, then −1[56]\.\d{3} s from 0:3\d\.\d{3} \(1[56]\.\d{3} s cut\) to match this recording \(match 9\d %\); not in this copy: 'Bridge'/#.wholeMatch(in: message) != nil, "\(message)")

        player.seek(to: 30)
        _ = session.handle(.character("m"))
        for c in "Tag" { _ = session.handle(.character(c)) }
        _ = session.handle(.enter)
        let saved = try SidecarStore.read(crew).liveMarkers.map { ($0.name, $0.time) }
        #expect(saved.map(\.0) == ["Intro", "Bridge", "Chorus", "Tag"] && saved[0].1 == 3 && saved[1].1 == 27 && saved[2].1 == 41.25)
        #expect(abs(saved[3].1 - 46) <= 0.02, "Tag at \(saved[3].1) on the song")
        #expect(try SidecarStore.read(crew).audio?.fileName == "song.flac")
    }

    /// The marker prompt suggests a name: typing replaces it (not "Marker 1Intro riff"), Enter
    /// alone keeps it, → keeps it for editing.
    @Test func typingReplacesTheSuggestedName() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        func type(_ text: String) { for c in text { _ = session.handle(.character(c)) } }
        player.seek(to: 0.5)
        _ = session.handle(.character("m"))
        #expect(session.screenState.prompt == .init(label: "Marker at 0:00.500, name", text: "Marker 1", isSuggestion: true))
        type("Intro riff")
        _ = session.handle(.enter)
        player.seek(to: 1)
        _ = session.handle(.character("m"))
        _ = session.handle(.enter)
        player.seek(to: 2)
        _ = session.handle(.character("m"))
        _ = session.handle(.right)
        type(" bis")
        _ = session.handle(.enter)
        let saved = try SidecarStore.load(for: player.track, explicit: nil).sidecar.liveMarkers.map { "\($0.name)@\($0.time)" }
        #expect(saved == ["Intro riff@0.5", "Marker 2@1.0", "Marker 3 bis@2.0"])
    }

    /// Another window (or a `git pull`) changes the sidecar: the screen reloads it by itself
    /// (inotify), the marker picked in the list stays picked, and a file someone broke is said on
    /// the screen, keeping what was shown, until it reads again.
    @Test func theSidecarReloadsWhenAnotherProcessChangesIt() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        session.prepare()
        let path = dir.file("tone.wav.practice.json")
        func names() -> [String] { session.screenState.markers.map(\.name) }
        #expect(names().isEmpty && !session.reloadIfChanged(waitingMs: 50))
        try SidecarStore.update(for: player.track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Verse", time: 2, duration: 4)
            try s.addMarker(name: "Chorus", time: 3, duration: 4)
        }
        #expect(session.reloadIfChanged(waitingMs: 2_000) && names() == ["Verse", "Chorus"])
        _ = session.handle(.character("M"))
        _ = session.handle(.down)
        #expect(session.screenState.markerList == 1)
        try SidecarStore.update(for: player.track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Intro", time: 0.5, duration: 4)
        }
        #expect(session.reloadIfChanged(waitingMs: 2_000) && names() == ["Intro", "Verse", "Chorus"])
        #expect(session.screenState.markerList == 2, "Chorus stays picked")
        // Broken by hand: said at once, markers kept on the screen, the file left alone.
        let broken = Data("{\"format\": \"practice-markers\", \"version\": 1, \"markers\": [\n".utf8)
        try broken.write(to: URL(fileURLWithPath: dir.file("broken.tmp")))
        #expect(rename(dir.file("broken.tmp"), path) == 0)
        #expect(session.reloadIfChanged(waitingMs: 2_000))
        let screen = Screen.render(session.screenState, width: 300, height: 24)
        #expect(screen.contains { $0.hasPrefix("Markers unreadable: \(path):2:1: unexpected end of file") && $0.hasSuffix("(left as it is; reloads when fixed)") },
                "\(screen.joined(separator: "\n"))")
        #expect(names() == ["Intro", "Verse", "Chorus"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == broken)
    }

    /// A sidecar that cannot be read is said as soon as the screen opens, not "none yet".
    @Test func aBrokenSidecarIsSaidWhenTheScreenOpens() throws {
        try Data("{\"format\": \"practice-markers\", \"version\": 1, \"markers\": [{\"name\": \"x\", \"time\": -3}]}\n".utf8)
            .write(to: URL(fileURLWithPath: dir.file("tone.wav.practice.json")))
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        session.prepare()
        let screen = Screen.render(session.screenState, width: 300, height: 24)
        #expect(screen.contains { $0.hasPrefix("Markers unreadable: \(dir.file("tone.wav.practice.json")):1:") && $0.contains("markers[0].time") },
                "\(screen.joined(separator: "\n"))")
        #expect(!screen.contains { $0.contains("none yet") })
    }

    func type(_ text: String, into session: Session) { for c in text { _ = session.handle(.character(c)) } }

    func addMarkers(_ markers: [(String, Double)], for player: Player) throws {
        try SidecarStore.update(for: player.track) { (s: inout Sidecar) throws(PracticeError) in
            for (name, time) in markers { try s.addMarker(name: name, time: time, duration: 4) }
        }
    }

    /// `g` goes to a time or a marker (Tab completes its name); PgUp and PgDn go 30 s.
    @Test func goToATimeOrAMarker() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        try addMarkers([("Chorus", 1.25), ("Chorus end", 2.5), ("Outro", 3.5)], for: player)
        session.prepare()
        // Paused, a go-to stays paused (the `m` after it lands exactly there); playing, it plays on.
        _ = session.handle(.character("g"))
        type("1.5", into: session)
        _ = session.handle(.enter)
        #expect(player.state.position == 1.5 && !player.state.isPlaying, "a go-to keeps the player paused")
        player.play()
        _ = session.handle(.character("g"))
        type("0.5", into: session)
        _ = session.handle(.enter)
        #expect(abs(player.state.position - 0.5) < 0.05 && player.state.isPlaying, "a go-to keeps it playing")
        player.pause()
        _ = session.handle(.character("g"))
        type("ch", into: session)
        _ = session.handle(.tab)
        #expect(session.screenState.prompt?.text == "Chorus")
        _ = session.handle(.tab)
        #expect(session.screenState.prompt?.text == "Chorus end")
        _ = session.handle(.enter)
        #expect(player.state.position == 2.5)
        _ = session.handle(.character("g"))
        type("0:03", into: session)
        _ = session.handle(.enter)
        #expect(player.state.position == 3)
        _ = session.handle(.pageUp)
        #expect(player.state.position == 0)
        _ = session.handle(.character("g"))
        type("9", into: session)
        _ = session.handle(.enter)
        #expect(session.screenState.message == "0:09.000 is past the end (0:04.000)" && player.state.position == 0)
        // Tab completes what is typed now, not what was typed before the last Tab.
        _ = session.handle(.character("g"))
        type("c", into: session)
        _ = session.handle(.tab)
        #expect(session.screenState.prompt?.text == "Chorus")
        _ = session.handle(.ctrlU)
        type("o", into: session)
        _ = session.handle(.tab)
        #expect(session.screenState.prompt?.text == "Outro")
    }

    /// `o` loops the section you are in, between the markers around you, on the markers (so it
    /// follows them when one is nudged); right after dropping a marker, the section it closes.
    /// `p` and a digit set the passes and start them from A; Home goes to A while looping.
    @Test func loopTheSectionAndItsPasses() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        try addMarkers([("Verse", 0.5), ("Chorus", 1.25)], for: player)
        session.prepare()
        player.seek(to: 0.9)
        _ = session.handle(.character("o"))
        #expect(player.state.loop.map { [$0.start, $0.end] } == [0.5, 1.25] && player.state.loop?.isOn == true)
        #expect(player.state.position == 0.5 && session.screenState.message == "loop 'Verse' → 'Chorus'")
        // Nudge the Chorus marker in the list: the loop's end follows it.
        _ = session.handle(.character("M"))
        _ = session.handle(.down)
        _ = session.handle(.shiftRight)
        #expect(player.state.loop?.end == 1.35)
        _ = session.handle(.escape)
        // Drop a marker at 2.5 and loop what it closes.
        player.seek(to: 2.5)
        try player.setLoop(nil)
        player.seek(to: 2.5)
        _ = session.handle(.character("m"))
        type("Chorus end", into: session)
        _ = session.handle(.enter)
        _ = session.handle(.character("o"))
        #expect(player.state.loop.map { [$0.start, $0.end] } == [1.35, 2.5])
        _ = session.handle(.character("p"))
        _ = session.handle(.character("5"))
        #expect(player.state.loop?.passes == 5 && player.state.loop?.pass == 1 && player.state.position == 1.35)
        player.seek(to: 2)
        _ = session.handle(.home)
        #expect(player.state.position == 1.35)
        // Saved, the loop keeps its marker ends.
        _ = session.handle(.character("s"))
        _ = session.handle(.enter)
        let saved = try SidecarStore.load(for: player.track).sidecar
        let ids = Dictionary(uniqueKeysWithValues: saved.liveMarkers.map { ($0.name, $0.id) })
        #expect(saved.liveLoops.map { [$0.start, $0.end] } == [[.marker(ids["Chorus"]!), .marker(ids["Chorus end"]!)]])
    }

    /// The prompt edits as a shell does: ← → Home End move, Ctrl-W removes a word, Ctrl-U the start.
    @Test func thePromptEditsAsAShellDoes() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        _ = session.handle(.character("m"))
        type("Chorus end", into: session)
        _ = session.handle(.ctrlW)
        #expect(session.screenState.prompt?.text == "Chorus ")
        type("two", into: session)
        _ = session.handle(.home)
        type("The ", into: session)
        _ = session.handle(.end)
        _ = session.handle(.left)
        _ = session.handle(.left)
        _ = session.handle(.left)
        _ = session.handle(.ctrlU)
        #expect(session.screenState.prompt?.text == "two" && session.screenState.prompt?.cursor == 0)
        _ = session.handle(.enter)
        #expect(try SidecarStore.load(for: player.track).sidecar.liveMarkers.map(\.name) == ["two"])
    }

    /// A loop at 1–1.5 s with a trainer from 0.5× by 0.25 to 1.0×, played 1.1 s: pass 1 at 0.5×
    /// lasts 1 s, so the second pass (0.75×) is being heard.
    func playIntoTheTrainersSecondPass(_ player: Player, _ output: VirtualOutput) throws {
        try player.setLoop(LoopRange(start: 1, end: 1.5, rehearsal: Rehearsal(trainer: Trainer(from: 0.5, to: 1.0, step: 0.25))))
        player.jump(to: 1)
        _ = output.play(frames: 44_100 + 4_410) { !player.state.isPlaying }
    }

    /// A trainer's loop switched off plays on at the trainer's speed; switched on, the trainer
    /// goes on from the pass it reached; a speed key takes over from it, and says so.
    @Test func theTrainerOnTheScreen() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        try playIntoTheTrainersSecondPass(player, output)
        #expect(player.state.loop?.pass == 2 && player.state.rate == 0.75)
        _ = session.handle(.character("l"))
        #expect(player.state.loop?.isOn == false && player.state.rate == 0.75, "the loop off keeps the trainer's speed")
        _ = session.handle(.character("l"))
        #expect(player.state.loop?.isOn == true && player.state.loop?.pass == 2 && player.state.rate == 0.75, "the trainer goes on from pass 2")
        _ = session.handle(.character("}"))
        #expect(player.state.loop?.rehearsal.trainer == nil && player.state.rate == 0.76 && player.state.loop?.pass == 2)
        #expect(session.screenState.message == "trainer off (it had reached 0.75× of 1.00×): the speed is yours")
    }

    /// Clicks: the seek bar goes there, a marker's row jumps to it; `mouse off` in keys.conf
    /// leaves clicks alone.
    @Test func clicksSeekAndJump() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        try addMarkers([("Verse", 1.5)], for: player)
        session.prepare()
        #expect(session.click(column: 40, row: 5, columns: 80, rows: 24))    // cell 38 of 78: its left edge, 38/78 of 4 s
        #expect(abs(player.state.position - Sidecar.milliseconds(38.0 / 78 * 4)) < 1 / 44_100 && !player.state.isPlaying, "\(player.state.position)")
        let row = try #require(Screen.render(session.screenState, width: 80, height: 24).firstIndex { $0.hasSuffix("0:01.500  Verse") })
        #expect(session.click(column: 10, row: row + 1, columns: 80, rows: 24))
        #expect(player.state.position == 1.5 && !player.state.isPlaying, "a marker's row: there, still paused")

        var bindings = KeyBindings.defaults
        try bindings.apply("mouse off\n", file: "keys.conf")
        let quiet = Session(player: player, sidecar: nil, color: false, bindings: bindings)
        player.pause()
        player.seek(to: 3)
        #expect(quiet.click(column: 2, row: 5, columns: 80, rows: 24))
        #expect(player.state.position == 3)
        #expect(throws: PracticeError(.config, "keys.conf:1: 'mouse' is 'on' or 'off' (got 'maybe')")) { try bindings.apply("mouse maybe\n", file: "keys.conf") }
    }

    /// Paused, the trainer's speed is the next pass's: the loop switched off keeps it, and a
    /// speed key moves from it.
    @Test func theTrainerWhilePaused() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        try playIntoTheTrainersSecondPass(player, output)
        player.pause()
        #expect(player.state.rate == 0.75 && player.state.loop?.pass == 2)
        _ = session.handle(.character("}"))
        #expect(player.state.rate == 0.76 && session.screenState.message == "trainer off (it had reached 0.75× of 1.00×): the speed is yours")
    }

    /// Right after dropping the first marker, `o` loops from the start up to it.
    @Test func loopingWhatTheFirstMarkerCloses() throws {
        let (session, player, output) = try session()
        defer { output.unplug(); player.stop() }
        try addMarkers([("Outro", 3.5)], for: player)
        session.prepare()
        player.seek(to: 1.25)
        _ = session.handle(.character("m"))
        type("Intro end", into: session)
        _ = session.handle(.enter)
        _ = session.handle(.character("o"))
        #expect(player.state.loop.map { [$0.start, $0.end] } == [0, 1.25] && session.screenState.message == "loop the start → 'Intro end'")
    }
}
