// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeDocuments
import PracticeEngine
@testable import PracticeTUI

/// The practice screen's model alone: keys and the player's state in, actions out, with no
/// player, no sidecar and no terminal.
@Suite struct SessionModelTests {
    static func state(at position: Double, rate: Double = 1, loop: LoopState? = nil) -> PlayerState {
        PlayerState(title: "Song", path: "song.wav", position: position, duration: 20, rate: rate, isPlaying: true, loop: loop)
    }

    /// `x` mirrors a video's picture, and again puts it back.
    @Test func xMirrorsThePicture() {
        var m = SessionModel()
        var s = Self.state(at: 1)
        #expect(m.handle(.character("x"), player: s, now: 0) == [.mirror(true)])
        s.isMirrored = true
        #expect(m.handle(.character("x"), player: s, now: 0) == [.mirror(false)])
    }

    /// `F` keeps a voice's formants through a pitch shift (Rubber Band), and again lets them move.
    @Test func capitalFKeepsTheFormants() {
        var m = SessionModel()
        var s = Self.state(at: 1)
        #expect(m.handle(.character("F"), player: s, now: 0) == [.formant(true)])
        #expect(m.message == "formants kept through a pitch shift (Rubber Band, --quality high)")
        s.formant = true
        #expect(m.handle(.character("F"), player: s, now: 0) == [.formant(false)] && m.message == "formants move with the pitch")
    }

    /// `v` hides and shows a video's window, `f` makes it full screen and back; without a
    /// picture, the message line says why nothing happens.
    @Test func vAndFShowTheWindowAndFillTheScreen() {
        var m = SessionModel()
        var s = Self.state(at: 1)
        #expect(m.handle(.character("v"), player: s, now: 0) == [] && m.message == "no picture to show (the file has none, or there is no display)")
        #expect(m.handle(.character("f"), player: s, now: 0) == [] && m.message == "no picture to show (the file has none, or there is no display)")
        s.video = VideoState()
        #expect(m.handle(.character("v"), player: s, now: 0) == [.video(shown: false, fullScreen: nil)])
        #expect(m.handle(.character("f"), player: s, now: 0) == [.video(shown: nil, fullScreen: true)])
        s.video = VideoState(isShown: false, isFullScreen: true)
        #expect(m.handle(.character("v"), player: s, now: 0) == [.video(shown: true, fullScreen: nil)])
        #expect(m.handle(.character("f"), player: s, now: 0) == [.video(shown: nil, fullScreen: false)])
    }

    @Test func aThenBMakeTheLoopAndTheStartWaitsForItsEnd() {
        var m = SessionModel()
        #expect(m.handle(.character("a"), player: Self.state(at: 0.5), now: 0) == [])
        #expect(m.pendingStart == 0.5 && m.message == "loop from 0:00.500; b sets its end")
        #expect(m.handle(.character("b"), player: Self.state(at: 1.75), now: 0)
                == [.loop(LoopRange(start: 0.5, end: 1.75), keepingCount: false, on: true)])
        #expect(m.pendingStart == nil)
        let looping = Self.state(at: 1, loop: LoopState(start: 0.5, end: 1.75, name: nil, pass: 1, passes: nil, isOn: false))
        #expect(m.handle(.character("l"), player: looping, now: 0) == [.looping(true)])
    }

    /// With a beat grid (120 bpm from 0.5 s, the one at 2.5 s, eights): `(` `)` go to the previous
    /// and next eight's one, `e` loops the eight heard, `E` and `z` make it an eight longer or
    /// shorter; the screen shows the count.
    @Test func eightsFromTheBeatGrid() throws {
        var m = SessionModel()
        let grid = BeatGrid(times: (0..<60).map { 0.5 + Double($0) * 0.5 }, tempo: 120, one: 2.5, meter: 8, source: "aubio")
        #expect(m.handle(.character(")"), player: Self.state(at: 3), now: 0) == [] && m.message == "no beats known: 'practice beats' finds them")
        _ = m.reload(SidecarView(beats: grid))
        // 7.2 s is beat 2 of eight 2 (which starts at 6.5): next is eight 3 at 10.5, previous eight 2.
        #expect(m.handle(.character(")"), player: Self.state(at: 7.2), now: 0) == [.seek(10.5)] && m.message == "eight 3")
        #expect(m.handle(.character("("), player: Self.state(at: 7.2), now: 0) == [.seek(6.5)])
        #expect(m.handle(.character("("), player: Self.state(at: 6.55), now: 0) == [.seek(2.5)], "just after a one: the eight before")
        #expect(m.handle(.character("e"), player: Self.state(at: 7.2), now: 0)
                == [.loop(LoopRange(start: 6.5, end: 10.5, name: "eight 2"), keepingCount: false, on: true)])
        let looping = Self.state(at: 7.2, loop: LoopState(start: 6.5, end: 10.5, name: "eight 2", pass: 1, passes: nil))
        #expect(m.handle(.character("E"), player: looping, now: 0) == [.loop(LoopRange(start: 6.5, end: 14.5), keepingCount: true, on: true)])
        #expect(m.message == "the loop is 2 eights long")
        #expect(m.handle(.character("z"), player: looping, now: 0) == [] && m.message == "the loop is one eight already")
        let screen = Screen.render(m.screen(Self.state(at: 7.2)), width: 80, height: 24).joined(separator: "\n")
        #expect(screen.contains("Eight 2   1 ‹2› 3  4  5  6  7  8    ▀▀█"), "\(screen)")
        // The beat three rows tall beside it (a 2), on a screen tall enough.
        let rows = screen.split(separator: "\n").map(String.init)
        let at = try #require(rows.firstIndex { $0.hasPrefix("Eight 2") })
        #expect(rows[at].hasSuffix("▀▀█") && rows[at + 1].hasSuffix("█▀▀") && rows[at + 2].hasSuffix("▀▀▀"), "\(rows[at...(at + 2)])")
        #expect(!Screen.render(m.screen(Self.state(at: 7.2)), width: 80, height: 16).joined(separator: "\n").contains("▀▀█"), "one line on a small screen")
    }

    /// Taps with a beat grid: the same tempo confirms it; twice it overrides it for count-ins.
    /// `T`: the beat grid's other reading of its tempo, when it has one; the screen's count line
    /// shows it beside the key; the grid itself switched (halved, and doubled back to the end).
    @Test func theOtherTempo() throws {
        var m = SessionModel()
        var grid = BeatGrid(times: (0..<40).map { 0.5 + Double($0) * 0.5 }, tempo: 120, one: 0.5, meter: 8, source: "aubio")
        _ = m.reload(SidecarView(beats: grid))
        #expect(m.handle(.character("T"), player: Self.state(at: 3), now: 0) == [] && m.message == "the beats have no other reading of their tempo (120 bpm)")
        grid.otherTempo = 60
        _ = m.reload(SidecarView(beats: grid))
        #expect(m.handle(.character("T"), player: Self.state(at: 3), now: 0) == [.edit(.switchTempoOctave)])
        let count = Screen.countLines(m.screen(Self.state(at: 3)), color: false, large: false)
        #expect(count == ["Eight 1   1  2  3  4  5 ‹6› 7  8    120 bpm (or 60: T)"], "\(count)")
        #expect(m.finished(.tempoSwitched(tempo: 60, other: 120), player: Self.state(at: 3)) == [] && m.message == "beats at 60 bpm (or 120; T switches back; saved)")
        let half = try #require(grid.switchedOctave(duration: 20.2))
        #expect(half.tempo == 60 && half.otherTempo == 120 && half.times == (0..<20).map { 0.5 + Double($0) } && half.one == 0.5)
        #expect(half.switchedOctave(duration: 20.2)?.times == grid.times)
        #expect(BeatGrid(times: [0.5, 1], tempo: 120, one: 0.5, meter: 8, source: "aubio").switchedOctave(duration: 2) == nil)
    }

    @Test func tapsConfirmOrOverrideTheGrid() {
        var m = SessionModel()
        _ = m.reload(SidecarView(beats: BeatGrid(times: [0.5, 1, 1.5], tempo: 120, one: 0.5, meter: 8, source: "aubio")))
        let s = Self.state(at: 1)
        _ = m.handle(.character("t"), player: s, now: 1_000_000_000)
        #expect(m.handle(.character("t"), player: s, now: 1_500_000_000) == [.edit(.setBPM(120))])
        _ = m.finished(.bpmSaved(120), player: s)
        #expect(m.message == "tempo 120 bpm from 2 taps (saved); the beat grid agrees (120 bpm)")
        _ = m.handle(.character("t"), player: s, now: 1_750_000_000)
        _ = m.finished(.bpmSaved(240), player: s)
        #expect(m.message == "tempo 240 bpm from 3 taps (saved); count-ins follow it, not the beat grid's 120 (twice it) ('practice beats --bpm 240' remakes the grid)", "\(m.message ?? "")")
    }

    /// `n`: a prompt for today's note; Enter hands the text on, an empty one is no note.
    /// `R` opens the phone remote's panel, drawn whole (a QR code cut to the width is no code);
    /// any key closes it, and does nothing else.
    @Test func theRemotePanelOpensOnRAndAnyKeyClosesIt() {
        var m = SessionModel()
        #expect(m.handle(.character("R"), player: Self.state(at: 1), now: 0) == [] && m.showRemote)
        var screen = m.screen(Self.state(at: 1))
        screen.remotePanel = ["Phone remote: http://192.168.1.20:4797", String(repeating: "█", count: 33)]
        let lines = Screen.render(screen, width: 30, height: 24)
        #expect(lines[3] == "Phone remote: http://192.168.1.20:4797" && lines[4] == String(repeating: "█", count: 33), "\(lines)")
        #expect(m.handle(.character(" "), player: Self.state(at: 1), now: 0) == [] && !m.showRemote, "space closes it, and does not play")
        #expect(m.handle(.character(" "), player: Self.state(at: 1), now: 0) == [.togglePause])
    }

    @Test func todaysNote() {
        var m = SessionModel()
        #expect(m.handle(.character("n"), player: Self.state(at: 1), now: 0) == [])
        #expect(m.prompt == .init(label: "Today's note", text: ""))
        for c in "turn at 1:12 works" { _ = m.handle(.character(c), player: Self.state(at: 1), now: 0) }
        #expect(m.handle(.enter, player: Self.state(at: 1), now: 0) == [.note("turn at 1:12 works")])
        #expect(m.finished(.noted, player: Self.state(at: 1)) == [] && m.message == "noted in today's journal")
        _ = m.handle(.character("n"), player: Self.state(at: 1), now: 0)
        #expect(m.handle(.enter, player: Self.state(at: 1), now: 0) == [] && m.message == "no note (it was empty)")
    }

    @Test func typingReplacesTheSuggestionAndEnterAddsTheMarker() {
        var m = SessionModel()
        m.reload(SidecarView(markers: [.init(name: "Marker 1", time: 3)]))
        _ = m.handle(.character("m"), player: Self.state(at: 4.25), now: 0)
        #expect(m.prompt == .init(label: "Marker at 0:04.250, name", text: "Marker 2", isSuggestion: true))
        for c in "Solo" { _ = m.handle(.character(c), player: Self.state(at: 5), now: 0) }
        #expect(m.handle(.enter, player: Self.state(at: 5), now: 0) == [.edit(.addMarker(name: "Solo", time: 4.25))])
        #expect(m.finished(.markerAdded(name: "Solo", time: 4.25, file: "song.wav.practice.json"), player: Self.state(at: 5)) == [])
        #expect(m.message == "added marker 'Solo' at 0:04.250 (song.wav.practice.json)")
    }

    /// The marker list nudges through the sidecar, then goes where the marker now is.
    @Test func aNudgedMarkerIsHeardAtItsNewPlace() {
        var m = SessionModel()
        m.reload(SidecarView(markers: [.init(name: "Intro", time: 1), .init(name: "Verse", time: 2)]))
        _ = m.handle(.character("M"), player: Self.state(at: 2.5), now: 0)
        #expect(m.markerList == 1)
        #expect(m.handle(.shiftRight, player: Self.state(at: 2.5), now: 0) == [.edit(.moveMarker("Verse", by: 0.1))])
        #expect(m.finished(.markerMoved(name: "Verse", time: 2.1, by: 0.1), player: Self.state(at: 2.5)) == [.seek(2.1)])
        #expect(m.message == "'Verse' at 0:02.100 (+100 ms)")
        m.reload(SidecarView(markers: [.init(name: "Intro", time: 1), .init(name: "Verse", time: 2.1)]))   // as the I/O loop does after an edit
        #expect(m.handle(.enter, player: Self.state(at: 2.1), now: 0) == [.seek(2.1)])
    }

    /// Taps half a second apart at 0.8×: the song's tempo is 120 ÷ 0.8 = 150 bpm, kept in the sidecar.
    @Test func tapsGiveTheSongsTempo() {
        var m = SessionModel()
        let s = Self.state(at: 1, rate: 0.8)
        #expect(m.handle(.character("t"), player: s, now: 1_000_000_000) == [])
        #expect(m.handle(.character("t"), player: s, now: 1_500_000_000) == [.edit(.setBPM(150))])
        #expect(m.rehearsal.bpm == 150)
    }

    /// A key that the bindings moved elsewhere does nothing; the new key does the action.
    static func bindings(_ text: String) throws -> KeyBindings {
        var b = KeyBindings.defaults
        try b.apply(text, file: "keys.conf")
        return b
    }

    @Test func reboundKeysAreFollowed() throws {
        var m = SessionModel(bindings: try Self.bindings("x add-marker\nm ignore\n"))
        #expect(m.handle(.character("m"), player: Self.state(at: 1), now: 0) == [] && m.prompt == nil)
        _ = m.handle(.character("x"), player: Self.state(at: 1), now: 0)
        #expect(m.prompt?.label == "Marker at 0:01.000, name")
        var cleared = SessionModel(bindings: try Self.bindings("A loop-start\na ignore\nB loop-end\nb ignore\n"))
        #expect(cleared.handle(.character("B"), player: Self.state(at: 3), now: 0) == [])
        #expect(cleared.message == "loop to 0:03.000; A sets its start")
    }
}
