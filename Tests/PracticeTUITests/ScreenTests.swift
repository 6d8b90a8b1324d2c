import Testing
import PracticeCore
@testable import PracticeTUI

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
        let s = ScreenState(player: Self.player, markers: Self.markers, loopStart: 29.3, loopEnd: 38.9, looping: true,
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
            "Loop: 0:29.300 – 0:38.900  on, pass 3/10",
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

    @Test func helpListsTheKeys() {
        var s = ScreenState(player: Self.player)
        s.showHelp = true
        let lines = Screen.render(s, width: 80, height: 24)
        #expect(lines[3] == "Keys")
        #expect(lines.contains("  m            marker at the heard position (type a name, Enter)"))
    }

    @Test func narrowTerminalsCutLinesWithAnEllipsis() {
        let lines = Screen.render(ScreenState(player: Self.player, markers: Self.markers), width: 30, height: 12)
        #expect(lines.allSatisfy { Table.width(of: $0) <= 30 })
        #expect(lines[11].hasSuffix("…"))
    }
}

@Suite struct KeyDecoderTests {
    @Test(arguments: [
        ([0x20], [Key.character(" ")]), ([0x1B, 0x5B, 0x44], [.left]), ([0x1B, 0x5B, 0x31, 0x3B, 0x32, 0x43], [.shiftRight]),
        ([0x1B, 0x4F, 0x48], [.home]), ([0x1B, 0x5B, 0x31, 0x7E], [.home]), ([0x7F], [.backspace]), ([0x0D], [.enter]),
        ([0x03], [.ctrlC]), (Array("ñ]".utf8), [.character("ñ"), .character("]")]), (Array("✨".utf8), [.character("✨")]),
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
