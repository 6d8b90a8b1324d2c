// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import PracticeTUI
import PracticeEngine
import PracticeDocuments
import PracticeControl

/// The practice screen as snapshots: state in, lines out, at 80×24 and 120×40, with and without colour.
@Suite struct ScreenTests {
    static let player = PlayerState(title: "Practice Demo", path: "demo.flac", tags: ["artist": "practice", "album": "Samples"],
                                    position: 31.2, duration: 53.3, rate: 0.8, pitch: -2, isPlaying: true,
                                    loop: LoopState(start: 29.3, end: 38.9, name: nil, pass: 3, passes: 10))
    static let markers: [ScreenState.MarkerRow] = [
        .init(name: "Intro", time: 0.5), .init(name: "Verse", time: 10.1), .init(name: "Chorus", time: 29.3),
        .init(name: "Chorus, second half", time: 38.9), .init(name: "Outro", time: 48.5),
    ]

    @Test func at80x24() {
        let s = ScreenState(player: Self.player, markers: Self.markers,
                            message: "added marker 'Chorus' at 0:29.300 (demo.flac.practice.json)")
        let lines = Screen.render(s, width: 80, height: 24)
        #expect(lines.count == 24)
        #expect(lines.allSatisfy { Table.width(of: $0) <= 80 })
        #expect(Array(lines[0..<14]) == [
            "Practice Demo",
            "practice · Samples",
            "",
            "▶ Playing   0:31.2 / 0:53.3                             speed 0.80×  pitch -2 st",
            "▕━│━━━━━━━━━━━━━│━━━━━━━━━━━━━━━━━━━━━━━━━━[══●══════════]─────────────│───────▏",
            "Loop: 0:29.300 – 0:38.900  on, pass 3/10  ↓↑ nudge B",
            "",
            "Markers",
            "  1  0:00.500  Intro",
            "  2  0:10.100  Verse",
            "▸ 3  0:29.300  Chorus",
            "  4  0:38.900  Chorus, second half",
            "  5  0:48.500  Outro",
            "",
        ])
        #expect(lines[22] == "added marker 'Chorus' at 0:29.300 (demo.flac.practice.json)")
        #expect(lines[23] == "space play  ←→ seek  [ ] speed  m mark  1-9 jump  a b l loop  ? keys  q quit")
    }

    @Test func at120x40WithAPromptAndColour() {
        var s = ScreenState(player: Self.player, markers: Self.markers, prompt: .init(label: "Marker at 0:31.200, name", text: "Turn"))
        s.player.loop = nil
        s.player.isPlaying = false
        let lines = Screen.render(s, width: 120, height: 40, color: true)
        #expect(lines.count == 40)
        #expect(lines[0] == "\u{1B}[1mPractice Demo\u{1B}[0m")
        #expect(lines[3].hasPrefix("⏸ Paused   0:31.2 / 0:53.3 ") && lines[3].hasSuffix("speed 0.80×  pitch -2 st"))
        #expect(lines[5] == "Loop: none (a and b set its ends)")
        #expect(lines[10] == "\u{1B}[1m▸ 3  0:29.300  Chorus\u{1B}[0m")
        #expect(lines[37] == "Marker at 0:31.200, name: Turn█")
        #expect(lines[39].hasPrefix("\u{1B}[2m"))
    }

    @Test func manyMarkersScrollToKeepTheCurrentOneInView() {
        let many = (0..<40).map { ScreenState.MarkerRow(name: "m\($0)", time: Double($0)) }
        var p = Self.player
        p.position = 30.5
        let lines = Screen.render(ScreenState(player: p, markers: many), width: 80, height: 24)
        #expect(lines.contains("▸    0:30.000  m30"))
        #expect(!lines.contains { $0.hasSuffix("  m0") })
    }

    /// A marker made on another copy of the song, in music this copy does not have, says so.
    @Test func aMarkerNotInThisCopySaysSo() {
        let rows = [ScreenState.MarkerRow(name: "Verse", time: 12.5), ScreenState.MarkerRow(name: "Bridge", time: 19.748, notInThisCopy: true)]
        var p = Self.player
        p.position = 5
        let lines = Screen.render(ScreenState(player: p, markers: rows), width: 80, height: 24)
        #expect(lines.contains("  2  0:19.748  Bridge  (not in this copy)") && lines.contains("  1  0:12.500  Verse"), "\(lines)")
    }

    @Test func helpListsTheKeysAsBound() throws {
        var s = ScreenState(player: Self.player)
        s.showHelp = true
        var lines = Screen.render(s, width: 80, height: 24)
        #expect(Array(lines[3..<24]) == [
            "Keys",
            "",
            "  space        play / pause               l            loop on / off",
            "  ← →          back / forward 5 s         L            the next saved loop",
            "  ⇧← ⇧→        back / forward 1 s         s            save the loop by name",
            "  PgUp PgDn    back / forward 30 s        Tab          nudge A or B",
            "  g            go to a time or marker     ↓ ↑          nudge it −10 / +10 ms",
            "  Home         to the start (or A)        ⇧↓ ⇧↑        nudge it −100 / +100 ms",
            "  [ ]          speed −0.1 / +0.1          t T          tap / other tempo (bpm)",
            "  { }          speed −0.01 / +0.01        y            all the lyrics",
            "  0 backspace  speed 1.0                  < >          lyrics −50 / +50 ms",
            "  - + F        pitch −1 / +1 / formant    c            count-in (as --count-in)",
            "  m            marker where you are       ( ) e        eight: back / next / loop",
            "  1…9          jump to marker N           E z          loop one more / fewer",
            "  , .          previous / next marker     n R          note / phone remote",
            "  M            rename, nudge, delete      v f x        video / full / mirror",
            "  a b          loop start / end here      ?            these keys",
            "  o            loop this section          q Q          quit (edits are saved)",
            "  p            passes: then 1–9, 0        d            detach: it plays on",
            "",
            "Change keys in $XDG_CONFIG_HOME/practice/keys.conf. Press any key to go back.",
        ])
        #expect(Set(Screen.helpEntries.flatMap(\.0)).union([.jump2, .jump3, .jump4, .jump5, .jump6, .jump7, .jump8]) == Set(Action.allCases),
                "every action is in the help")
        // Rebound: the help and the hint show the keys as they now are.
        try s.bindings.apply("x loop-toggle\nl ignore  # not l any more\n\nshift-up help\n", file: "keys.conf")
        lines = Screen.render(s, width: 80, height: 24)
        #expect(lines[5] == "  space        play / pause               x            loop on / off")
        #expect(lines[19] == "  a b          loop start / end here      ? ⇧↑         these keys")
        s.showHelp = false
        #expect(Screen.render(s, width: 80, height: 24)[23] == "space play  ←→ seek  [ ] speed  m mark  1-9 jump  a b x loop  ? keys  q quit")
    }

    /// `M` opens the marker list: the picked row, its own key hint; the tempo, count-in and trainer show.
    @Test func theMarkerListAndTheRehearsal() {
        var s = ScreenState(player: Self.player, markers: Self.markers)
        s.markerList = 1
        s.bpm = 96
        s.selectedEnd = .start
        s.rehearsal = Rehearsal(gap: 1, countIn: 4, countInEvery: true, trainer: Trainer(from: 0.6, to: 1, step: 0.05, every: 2))
        let lines = Screen.render(s, width: 80, height: 24)
        #expect(Array(lines[3..<16]) == [
            "▶ Playing   0:31.2 / 0:53.3                     speed 0.80×  pitch -2 st  96 bpm",
            "▕━│━━━━━━━━━━━━━│━━━━━━━━━━━━━━━━━━━━━━━━━━[══●══════════]─────────────│───────▏",
            "Loop: 0:29.300 – 0:38.900  on, pass 3/10  ↓↑ nudge A",
            "Rehearsal: count-in 4 at 96 bpm before each pass · gap 1 s",
            "Trainer: 0.60× → 1.00×, +0.05 every 2 passes; next pass 0.65×",
            "",
            "Markers (editing)",
            "  1  0:00.500  Intro",
            "› 2  0:10.100  Verse",
            "  3  0:29.300  Chorus",
            "  4  0:38.900  Chorus, second half",
            "  5  0:48.500  Outro",
            "",
        ])
        #expect(lines[23] == "↑↓ pick  ←→ nudge 10 ms  a b loop ends  r rename  d delete  Enter jump  Esc back")
        #expect(Screen.render(s, width: 80, height: 24, color: true)[11] == "\u{1B}[7m› 2  0:10.100  Verse\u{1B}[0m")
    }

    @Test func narrowTerminalsCutLinesWithAnEllipsis() {
        let lines = Screen.render(ScreenState(player: Self.player, markers: Self.markers), width: 30, height: 12)
        #expect(lines.allSatisfy { Table.width(of: $0) <= 30 })
        #expect(lines[11].hasSuffix("…"))
    }

    /// Cutting a styled line never cuts into an escape sequence; wide characters count two
    /// columns; the "…" takes the last one.
    @Test(arguments: [
        ("ab\u{1B}[1mcd\u{1B}[0mef", 4, "ab\u{1B}[1mc…\u{1B}[0m"),
        ("ab\u{1B}[1mcd\u{1B}[0mef", 6, "ab\u{1B}[1mcd\u{1B}[0mef"),
        ("abc\u{1B}[38;2;10;20;30mdef", 4, "abc\u{1B}[38;2;10;20;30m…\u{1B}[0m"),
        ("大神大神", 5, "大神…"), ("大神大神", 4, "大…"), ("abc", 0, ""), ("abc", 1, "…"), ("abc", 3, "abc"),
    ])
    func fitCutsBetweenSequences(line: String, width: Int, fitted: String) {
        #expect(Screen.fit(line, width) == fitted, "\(Screen.fit(line, width).debugDescription)")
        #expect(Screen.columns(of: Screen.fit(line, width)) <= width)
    }

    /// A message too long for its line keeps its start and its end (where the reason is).
    @Test(arguments: [
        ("/home/someone/music/sidecars: cannot create the folder: Read-only file system", 40, "/home/someone/m…r: Read-only file system"),
        ("short enough", 40, "short enough"),
        ("大神大神大神大神大神大神", 11, "大神…神大神"),
        ("abcdefghij", 6, "abcde…"),
    ])
    func longMessagesKeepTheirEnd(message: String, width: Int, fitted: String) {
        #expect(Screen.fitMessage(message, width) == fitted, "\(Screen.fitMessage(message, width).debugDescription)")
        #expect(Screen.columns(of: Screen.fitMessage(message, width)) <= width)
    }

    /// What a click touches: a place on the seek bar (its ends are the track's ends), a marker's
    /// row, a saved loop's row; nothing elsewhere.
    @Test func clicksFindTheSeekBarMarkersAndLoops() throws {
        var s = ScreenState(player: Self.player, markers: Self.markers)
        s.loops = [.init(name: "verse", start: 10.1, end: 29.3)]
        let lines = Screen.render(s, width: 80, height: 24)
        let bar = try #require(lines.firstIndex { $0.hasPrefix("▕") })
        #expect(bar == 4)
        #expect(Screen.hit(s, width: 80, height: 24, column: 2, row: 5) == .seekBar(cells: 78, time: 0))
        #expect(Screen.hit(s, width: 80, height: 24, column: 79, row: 5) == .seekBar(cells: 78, time: 77.0 / 78 * 53.3), "the last cell is inside the track")
        #expect(Screen.hit(s, width: 80, height: 24, column: 1, row: 5) == nil, "the bar's edge is not a place")
        let verse = try #require(lines.firstIndex { $0.hasSuffix("0:10.100  Verse") })
        #expect(Screen.hit(s, width: 80, height: 24, column: 30, row: verse + 1) == .marker(1))
        let loop = try #require(lines.firstIndex { $0.hasSuffix("verse") && $0.contains("–") })
        #expect(Screen.hit(s, width: 80, height: 24, column: 5, row: loop + 1) == .loop(0))
        #expect(Screen.hit(s, width: 80, height: 24, column: 5, row: 1) == nil)
    }

    /// Saved loops are listed under the markers, the one playing marked.
    @Test func savedLoopsAreListed() throws {
        var p = Self.player
        p.loop = LoopState(start: 29.3, end: 38.9, name: "chorus", pass: 1, passes: nil)
        var s = ScreenState(player: p, markers: Self.markers)
        s.loops = [.init(name: "verse", start: 10.1, end: 29.3), .init(name: "chorus", start: 29.3, end: 38.9)]
        let lines = Screen.render(s, width: 80, height: 24)
        let k = try #require(lines.firstIndex(of: "Loops (L plays the next)"))
        #expect(Array(lines[(k + 1)...(k + 2)]) == ["     0:10.100 – 0:29.300  verse", "▸    0:29.300 – 0:38.900  chorus"], "\(lines.joined(separator: "\n"))")
        #expect(lines.contains("  5  0:48.500  Outro"), "the markers keep their rows")
    }

    /// Down to 20×5 the screen still says where you are and how fast, then the loop and what was said.
    @Test func aSmallTerminalStillShowsThePositionAndTheSpeed() {
        var p = Self.player
        p.position = 61.25
        p.pitch = 0
        p.loop = LoopState(start: 60, end: 68, name: nil, pass: 2, passes: 5)
        var s = ScreenState(player: p, markers: Self.markers, message: "loop 'Chorus' → 'Chorus end'")
        #expect(Screen.render(s, width: 20, height: 5) == ["▶ 1:01.2 0.80×", "Practice Demo", "loop 2/5 1:00.0–1:0…", "loop 'C…'Chorus end'", ""])
        s.player.loop?.countIn = .init(beat: 3, of: 4)
        #expect(Screen.render(s, width: 20, height: 5)[0] == "▶ count-in 3 of 4 0…")
        #expect(Screen.render(s, width: 80, height: 24)[3].hasPrefix("▶ Playing   count-in 3 of 4 / "))
    }
}

@Suite struct KeyDecoderTests {
    @Test(arguments: [
        ([0x20], [Key.character(" ")]), ([0x1B, 0x5B, 0x44], [.left]), ([0x1B, 0x5B, 0x31, 0x3B, 0x32, 0x43], [.shiftRight]),
        ([0x1B, 0x4F, 0x48], [.home]), ([0x1B, 0x5B, 0x31, 0x7E], [.home]), ([0x7F], [.backspace]), ([0x0D], [.enter]),
        ([0x03], [.ctrlC]), (Array("ñ]".utf8), [.character("ñ"), .character("]")]), (Array("✨".utf8), [.character("✨")]),
        ([0x1B, 0x5B, 0x41], [.up]), ([0x1B, 0x5B, 0x31, 0x3B, 0x32, 0x42], [.shiftDown]), ([0x09], [.tab]),
        (Array("\u{1B}[5~\u{1B}[6~".utf8), [.pageUp, .pageDown]), ([0x15, 0x17], [.ctrlU, .ctrlW]),
        // SGR mouse: a left press; its release, a right press and a wheel turn are ignored.
        (Array("\u{1B}[<0;12;5M\u{1B}[<0;12;5m\u{1B}[<2;3;4M\u{1B}[<64;3;4Mx".utf8), [.click(column: 12, row: 5), .character("x")]),
        // The old mouse form (ESC [ M and three raw bytes: here a press at column 81, "q") is not typed keys.
        ([0x1B, 0x5B, 0x4D, 0x20, 0x71, 0x25, 0x79], [.character("y")]),
    ] as [([UInt8], [Key])])
    func decodes(bytes: [UInt8], keys: [Key]) {
        var d = KeyDecoder()
        #expect(d.feed(bytes) == keys)
    }

    @Test func aLoneEscapeWaitsForFlushAndSplitSequencesJoin() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B]) == [])
        #expect(d.flush() == [.escape])
        #expect(d.feed([0x1B, 0x5B]) == [])
        #expect(d.feed([0x43]) == [.right])
    }
}

/// Lyrics on the practice screen: the heard line and the next under the seek bar, the sung word
/// marked, and the full view with the picked and the heard line.
@Suite struct LyricsScreenTests {
    static let lyrics = LRC.parse("""
        [00:10.00]<00:10.00>One, <00:10.60>two, <00:11.20>three
        [00:12.40]Five, six, seven, eight
        [00:14.80]Step touch
        """).lyrics

    func render(at t: Double, view: LyricsView? = nil) -> [String] {
        var p = ScreenTests.player
        p.position = t
        p.loop = nil
        var s = ScreenState(player: p)
        s.lyrics = Self.lyrics
        s.lyricsView = view
        return Screen.render(s, width: 80, height: 24)
    }

    /// The line shown at heard position t is the one whose stamp is the last ≤ t (the position is
    /// on the song's timeline, so this holds at any rate); before the first, "…" and the first next.
    @Test(arguments: [(9.99, "♪ …", "  One, two, three"), (10.0, "♪ ‹One,› two, three", "  Five, six, seven, eight"),
                      (10.59, "♪ ‹One,› two, three", "  Five, six, seven, eight"), (10.6, "♪ One, ‹two,› three", "  Five, six, seven, eight"),
                      (12.399, "♪ One, two, ‹three›", "  Five, six, seven, eight"), (12.4, "♪ Five, six, seven, eight", "  Step touch"),
                      (40, "♪ Step touch", "")])
    func theHeardLineAndTheNext(t: Double, current: String, next: String) {
        let lines = render(at: t)
        #expect(Array(lines[6...7]) == [current, next], "at \(t)")
    }

    @Test func theFullViewPicksAndMarksTheHeardLine() {
        let lines = render(at: 12.5, view: LyricsView(selected: 0, seekMode: true, following: false))
        #expect(Array(lines[6...10]) == ["", "Lyrics (Enter jumps)", " › 1  0:10.00  One, two, three", "▸  2  0:12.40  Five, six, seven, eight", "   3  0:14.80  Step touch"])
        #expect(lines[23] == "↑↓ pick  Enter jump  Tab: Enter closes  a b loop lines  < > ±50 ms  Esc back")
        let closing = render(at: 12.5, view: LyricsView(selected: 1, seekMode: false))
        #expect(closing[7] == "Lyrics (Enter closes)" && closing[9] == "▸› 2  0:12.40  Five, six, seven, eight")
        #expect(closing[23] == "↑↓ pick  Enter close  Tab: Enter jumps  a b loop lines  < > ±50 ms  Esc back")
    }
}

/// `keys.conf`: bindings change, unbind and fail with the file and line.
@Suite struct KeyBindingsTests {
    @Test func aFileRebindsAndUnbinds() throws {
        var b = KeyBindings.defaults
        try b.apply("# mine\nx   loop-toggle\nl ignore\nsharp add-marker\nspace quit\n", file: "keys.conf")
        #expect(b[.character("x")] == .loopToggle && b[.character("l")] == nil)
        #expect(b[.character("#")] == .addMarker && b[.character("m")] == .addMarker)
        #expect(b[.character(" ")] == .quit && b.keys(for: .playPause).isEmpty)
        #expect(b[.ctrlC] == .quit)
    }

    @Test(arguments: [
        ("x loop-toggle extra\n", "keys.conf:1: expected 'KEY ACTION', such as 'x loop-toggle' (got 'x loop-toggle extra')"),
        ("\nF1 help\n", "keys.conf:2: unknown key 'F1' (a character, or space, left, right, up, down, shift-left, shift-right, shift-up, shift-down, home, end, page-up, page-down, enter, tab, backspace, escape, sharp)"),
        ("x loop\n", "keys.conf:1: unknown action 'loop' (see 'practice play --help' for the list)"),
    ])
    func badLinesNameTheFileAndLine(text: String, message: String) {
        var b = KeyBindings.defaults
        #expect(throws: PracticeError(.config, message)) { try b.apply(text, file: "keys.conf") }
    }

    @Test func theConfigLivesInXDGConfigHome() {
        #expect(KeyBindings.configPath(environment: ["XDG_CONFIG_HOME": "/c"]) == "/c/practice/keys.conf")
        #expect(KeyBindings.configPath(environment: [:]).hasSuffix("/.config/practice/keys.conf"))
    }
}
