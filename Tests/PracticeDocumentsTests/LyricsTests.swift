// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeDocuments
import PracticeEngine

/// LRC files as people and tools write them, the strict writer, bad input that must never crash,
/// which line is heard when, finding a track's lyrics, and the sidecar's lyrics shift.
@Suite struct LyricsTests {
    typealias Line = Lyrics.Line
    typealias Word = Lyrics.Word

    // MARK: Parsing

    /// A file as found in the wild: BOM, CRLF, header tags, an offset, blank lines, every stamp
    /// style, repeated and unordered stamps, word stamps, garbage, a long song and non-ASCII text.
    static let wild = """
        \u{FEFF}[ti:Practice Test]\r
        [ar:Ana]\r
        [al:Drills]\r
        [By: someone]\r
        [length: 03:18]\r
        [offset:+250]\r
        \r
        [00:12.00]Line one\r
        [00:17.20]<00:17.20>Word <00:17.65>by <00:18.10>word\r
        [00:21.10][00:45.10]Chorus, sing it\r
        [00:30.5]Half second style\r
        [00:33]No fraction\r
        [00:35.125] Milliseconds  \r
        [01:02:300]FLO style\r
        [00:40.00]Out of order\r
        this line has no stamp\r
        [xx:yy]bad stamp\r
        [00:50.00]\r
        [123:04.50]Long song\r
        [00:12.00]Same time as line one\r
        [00:55.00]Ünïcödé 歌词 ✨\r
           \r

        """

    @Test func parsesAFileAsFoundInTheWild() {
        let (lyrics, warnings) = LRC.parse(Self.wild)
        #expect(lyrics.lines == [
            Line(time: 11.75, text: "Line one"),
            Line(time: 11.75, text: "Same time as line one"),
            Line(time: 16.95, text: "Word by word", words: [Word(time: 16.95, text: "Word "), Word(time: 17.4, text: "by "), Word(time: 17.85, text: "word")]),
            Line(time: 20.85, text: "Chorus, sing it"),
            Line(time: 30.25, text: "Half second style"),
            Line(time: 32.75, text: "No fraction"),
            Line(time: 34.875, text: "Milliseconds"),
            Line(time: 39.75, text: "Out of order"),
            Line(time: 44.85, text: "Chorus, sing it"),
            Line(time: 49.75, text: ""),
            Line(time: 54.75, text: "Ünïcödé 歌词 ✨"),
            Line(time: 62.05, text: "FLO style"),
            Line(time: 7384.25, text: "Long song"),
        ])
        #expect(lyrics.tags == ["ti": "Practice Test", "ar": "Ana", "al": "Drills", "by": "someone", "length": "03:18"])
        #expect(lyrics.plain.isEmpty && lyrics.isSynced)
        #expect(warnings == [
            #"line 16: skipped "this line has no stamp" (no time stamp)"#,
            #"line 17: skipped "[xx:yy]bad stamp" (not a time stamp or a tag)"#,
        ])
    }

    @Test func offsetsMoveEveryTimeBothWaysAndNeverBelowZero() {
        let later = LRC.parse("[offset:-500]\n[00:01.00]a <00:01.20>b\n").lyrics
        #expect(later.lines == [Line(time: 1.5, text: "a b", words: [Word(time: 1.5, text: "a "), Word(time: 1.7, text: "b")])])
        let sooner = LRC.parse("[00:01.00]a\n[00:03.00]b\n[offset: +2000]\n").lyrics   // the offset applies wherever it stands
        #expect(sooner.lines == [Line(time: 0, text: "a"), Line(time: 1, text: "b")])
        let (ignored, warnings) = LRC.parse("[offset:soon]\n[00:01.00]a\n")
        #expect(ignored.lines == [Line(time: 1, text: "a")] && ignored.tags.isEmpty)
        #expect(warnings == [#"line 1: skipped "[offset:soon]" (the offset is a whole number of milliseconds, such as +250)"#])
    }

    @Test(arguments: ["\n", "\r\n", "\r"])
    func everyLineEndingGivesTheSameLyrics(separator: String) {
        let text = ["[ti:T]", "", "[00:01.00]one", "[00:02.00]two", ""].joined(separator: separator)
        let (lyrics, warnings) = LRC.parse(text)
        #expect(lyrics == Lyrics(lines: [Line(time: 1, text: "one"), Line(time: 2, text: "two")], tags: ["ti": "T"]))
        #expect(warnings.isEmpty)
    }

    @Test func aFileWithoutStampsIsUnsyncedText() {
        let (lyrics, warnings) = LRC.parse("\n[ti:Song]\nFirst line\n  [Chorus]\n\nSecond stanza ✨\n\n\n")
        #expect(!lyrics.isSynced && lyrics.lines.isEmpty)
        #expect(lyrics.plain == ["First line", "[Chorus]", "", "Second stanza ✨"])
        #expect(lyrics.tags == ["ti": "Song"] && warnings.isEmpty)
        #expect(LRC.parse("").lyrics == Lyrics())
    }

    @Test func wordStamps() {
        let (lyrics, warnings) = LRC.parse("""
            [00:10.00]Hey <00:10.50>you <00:11.00>there<00:11.40>
            [00:12.00] <00:12.10>  Spaced   <00:12.60>out  <00:13.00>
            [00:14.00]a < b <not a stamp> <00:15.00>c
            [00:16.00]<00:16.50>late <00:16.20>early
            """)
        #expect(lyrics.lines[0] == Line(time: 10, text: "Hey you there", words: [
            Word(time: 10, text: "Hey "), Word(time: 10.5, text: "you "), Word(time: 11, text: "there"), Word(time: 11.4, text: ""),
        ]))
        #expect(lyrics.lines[1] == Line(time: 12, text: "Spaced   out", words: [
            Word(time: 12.1, text: "Spaced   "), Word(time: 12.6, text: "out"), Word(time: 13, text: ""),
        ]))
        #expect(lyrics.lines[2] == Line(time: 14, text: "a < b <not a stamp> c", words: [
            Word(time: 14, text: "a < b <not a stamp> "), Word(time: 15, text: "c"),
        ]))
        #expect(lyrics.lines[3].words == [Word(time: 16.5, text: "late "), Word(time: 16.5, text: "early")])
        #expect(warnings == ["line 4: word stamps out of order; each kept no earlier than the one before"])
        // A line with several stamps carries its words along to each.
        let repeated = LRC.parse("[00:05.00][00:20.00]<00:05.00>la <00:05.50>la\n").lyrics
        #expect(repeated.lines.map { $0.words.map(\.time) } == [[5, 5.5], [20, 20.5]])
    }

    @Test func stampsThatAreNotStamps() {
        for bad in ["[1:60.00]x", "[00000:01.00]x", "[00:1.0000]x", "[-00:01.00]x", "[00:01.]x", "[00:01:]x", "[00-01]x", "[00:01.00x"] {
            let (lyrics, warnings) = LRC.parse("[00:00.50]ok\n" + bad)
            #expect(lyrics.lines == [Line(time: 0.5, text: "ok")], "\(bad)")
            #expect(warnings.count == 1, "\(bad): \(warnings)")
        }
        #expect(LRC.parse("[999:59.999]end").lyrics.lines == [Line(time: 59_999.999, text: "end")])
        #expect(LRC.parse("[1440:00.00]a day in").lyrics.lines == [Line(time: 86_400, text: "a day in")])
        #expect(LRC.parse("[0:5]x").lyrics.lines == [Line(time: 5, text: "x")])
        #expect(LRC.parse("[00:01.00] [00:02.00]  spaced stamps").lyrics.lines.map(\.time) == [1, 2])
        #expect(LRC.parse("[00:01.00][Chorus] la").lyrics.lines == [Line(time: 1, text: "[Chorus] la")])
    }

    // MARK: Writing

    @Test func writesTheStrictForm() {
        let lyrics = Lyrics(lines: [
            Line(time: 12.345, text: "rounds up"),
            Line(time: 12.344, text: "rounds down"),
            Line(time: 17.2, text: "Word by word", words: [Word(time: 17.2, text: "Word "), Word(time: 17.65, text: "by "), Word(time: 18.1, text: "word")]),
            Line(time: 6000, text: "an hour and a half in"),
            Line(time: 6001, text: "line\nbreak"),
        ], tags: ["re": "practice", "ti": "Test", "ar": "Ana", "offset": "+250", "x-custom": "kept"])
        #expect(LRC.write(lyrics) == """
            [ti:Test]
            [ar:Ana]
            [re:practice]
            [x-custom:kept]
            [00:12.35]rounds up
            [00:12.34]rounds down
            [00:17.20]<00:17.20>Word <00:17.65>by <00:18.10>word
            [100:00.00]an hour and a half in
            [100:01.00]line break

            """)
        #expect(LRC.write(Lyrics(plain: ["just", "", "text"])) == "just\n\ntext\n")
        #expect(LRC.stamp(59.995) == "01:00.00" && LRC.stamp(-1) == "00:00.00" && LRC.stamp(.nan) == "00:00.00")
    }

    @Test func theOffsetIsFoldedIntoWrittenStamps() {
        let text = LRC.write(LRC.parse("[offset:+250]\n[ti:T]\n[00:12.00]Line one\n").lyrics)
        #expect(text == "[ti:T]\n[00:11.75]Line one\n")
    }

    @Test func writeThenParseGivesTheSameLyrics() {
        var parsed = LRC.parse(Self.wild).lyrics
        parsed.lines.removeAll { $0.time == 34.875 }   // not on the hundredths LRC writes
        let again = LRC.parse(LRC.write(parsed))
        #expect(again.lyrics == parsed && again.warnings.isEmpty)
        #expect(LRC.parse(LRC.write(Lyrics(plain: ["a", "b"], tags: ["ti": "x"]))).lyrics == Lyrics(plain: ["a", "b"], tags: ["ti": "x"]))
    }

    // MARK: Robustness

    /// Every prefix of several files, and a few hundred random corruptions of each, parse without
    /// crashing into lyrics that keep their promises: sorted, not negative, words joining to the text.
    @Test func cutAndCorruptedFilesNeverCrash() {
        let samples = [Self.wild, "[00:01.00]<00:01.00>a <00:01.50>b\n[00:02:500]FLO\n[offset:-100]\n",
                       "[ti:x]\nno stamps at all\n\n[Chorus]\n", "[00:0\r[01:00.00][02:00.0]x<00:0"]
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        var parsed = 0
        func check(_ text: String) {
            let (l, warnings) = LRC.parse(text)
            parsed += 1
            #expect(zip(l.lines, l.lines.dropFirst()).allSatisfy { $0.time <= $1.time })
            #expect(l.lines.allSatisfy { line in
                line.time >= 0 && line.time.isFinite && line.words.map(\.text).joined() == (line.words.isEmpty ? "" : line.text)
                    && zip(line.words, line.words.dropFirst()).allSatisfy { $0.time <= $1.time }
            })
            #expect(l.isSynced ? l.plain.isEmpty : true)
            #expect(warnings.allSatisfy { $0.hasPrefix("line ") && !$0.contains("\n") })
        }
        for sample in samples {
            let bytes = Array(sample.utf8)
            for n in 0...bytes.count { check(String(decoding: bytes.prefix(n), as: UTF8.self)) }
            for _ in 0..<300 {
                var b = bytes
                for _ in 0..<3 {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    b[Int(seed >> 33) % b.count] = UInt8(truncatingIfNeeded: seed >> 13)
                }
                check(String(decoding: b, as: UTF8.self))
            }
        }
        #expect(parsed > 1_500)
    }

    // MARK: Which line is heard

    static let song = Lyrics(lines: [
        Line(time: 1, text: "one"), Line(time: 2.5, text: "two"), Line(time: 2.5, text: "two again"),
        Line(time: 4, text: "three", words: [Word(time: 4.2, text: "a "), Word(time: 4.6, text: "b")]),
        Line(time: 6.25, text: "four"),
    ])

    @Test func lineAndWordAtATime() {
        let s = Self.song
        #expect(s.lineIndex(at: 0) == nil && s.lineIndex(at: 0.999) == nil && s.lineIndex(at: .nan) == nil)
        #expect(s.lineIndex(at: 1) == 0 && s.lineIndex(at: 2.499) == 0)
        #expect(s.lineIndex(at: 2.5) == 2)   // equal stamps: the last of them
        #expect(s.lineIndex(at: 6.25) == 4 && s.lineIndex(at: 1e9) == 4)
        #expect(Lyrics().lineIndex(at: 5) == nil)
        #expect(s.wordIndex(inLine: 3, at: 4.1) == nil && s.wordIndex(inLine: 3, at: 4.2) == 0 && s.wordIndex(inLine: 3, at: 9) == 1)
        #expect(s.wordIndex(inLine: 0, at: 5) == nil && s.wordIndex(inLine: 7, at: 5) == nil)
        #expect(s.endOfLine(0, duration: 10) == 2.5 && s.endOfLine(1, duration: 10) == 4 && s.endOfLine(4, duration: 10) == 10)
    }

    /// Positions as the player reports them (the heard source position, in milliseconds) over a
    /// simulated wall clock at each rate: the current line changes exactly when the reported
    /// position reaches a stamp, never a tick early or late, and at the wall time the rate gives.
    @Test(arguments: [0.5, 0.8, 1.0, 1.5, 2.0])
    func linesChangeExactlyAtTheirStampsAtAnyRate(rate: Double) {
        let s = Self.song
        let start = 0.5
        var current: Int? = nil, previous = start
        var switches: [(wall: Double, position: Double, line: Int?)] = []
        for tick in 0...Int(7 / rate * 1000) {   // 1 ms of wall time a tick
            let wall = Double(tick) / 1000
            let position = ((start + rate * wall) * 1000).rounded() / 1000   // as eventLine reports it
            let line = s.lineIndex(at: position)
            if line != current {
                switches.append((wall, position, line))
                #expect(s.lines.contains { $0.time > previous && $0.time <= position }, "switched at \(position) without a stamp passed")
                current = line
            }
            previous = position
        }
        #expect(switches.map(\.line) == [0, 2, 3, 4])
        for (sw, stamp) in zip(switches, [1, 2.5, 4, 6.25]) {
            #expect(sw.position >= stamp && sw.position < stamp + rate / 1000 + 0.0011, "line at \(stamp) shown at \(sw.position)")
            #expect(abs(sw.wall - (stamp - start) / rate) <= 0.0011, "line at \(stamp) shown at wall \(sw.wall) s at \(rate)×")
        }
    }

    @Test func shiftingMovesEveryTimeAndStopsAtZero() {
        let s = Self.song
        let later = s.shifted(by: 0.25)
        #expect(later.lines.map(\.time) == [1.25, 2.75, 2.75, 4.25, 6.5])
        #expect(later.lines[3].words.map(\.time) == [4.45, 4.85])
        let sooner = s.shifted(by: -2.6)
        #expect(sooner.lines.map(\.time) == [0, 0, 0, 1.4, 3.65])
        #expect(sooner.lineIndex(at: 0) == 2)
        #expect(s.shifted(by: 0) == s)
    }

    // MARK: Files

    @Test func findsTheFileByEitherName() throws {
        let dir = ScratchDirectory("lyrics-find")
        let audio = dir.file("song.mp3")
        #expect(LyricsFile.find(forAudio: audio) == nil)
        #expect(LyricsFile.candidates(forAudio: audio) == [dir.file("song.mp3.lrc"), dir.file("song.lrc")])
        #expect(LyricsFile.candidates(forAudio: "noext") == ["noext.lrc"])
        #expect(LyricsFile.notFound(forAudio: "a/song.mp3") == "no lyrics for a/song.mp3 (looked for a/song.mp3.lrc, a/song.lrc)")
        try FileManager.default.createDirectory(atPath: dir.file("song.mp3.lrc"), withIntermediateDirectories: true)
        #expect(LyricsFile.find(forAudio: audio) == nil)   // a folder is not a lyrics file
        try "[00:01.00]stem".write(toFile: dir.file("song.lrc"), atomically: true, encoding: .utf8)
        #expect(LyricsFile.find(forAudio: audio) == dir.file("song.lrc"))
        try FileManager.default.removeItem(atPath: dir.file("song.mp3.lrc"))
        try "[00:01.00]own".write(toFile: dir.file("song.mp3.lrc"), atomically: true, encoding: .utf8)
        #expect(LyricsFile.find(forAudio: audio) == dir.file("song.mp3.lrc"))
    }

    @Test func loadNamesTheFileInErrorsAndWarnings() throws {
        let dir = ScratchDirectory("lyrics-load")
        #expect(throws: PracticeError(.noInput, "\(dir.file("none.lrc")): no such file")) { try LyricsFile.load(dir.file("none.lrc")) }
        #expect(throws: PracticeError(.noInput, "\(dir.path): is a directory, not a lyrics file")) { try LyricsFile.load(dir.path) }
        try Data([0x5B, 0x30, 0x30, 0x5D, 0x0A, 0xFF, 0xFE, 0x41]).write(to: URL(fileURLWithPath: dir.file("latin1.lrc")))
        #expect(throws: PracticeError(.dataError, "\(dir.file("latin1.lrc")):2: not UTF-8 text")) { try LyricsFile.load(dir.file("latin1.lrc")) }
        try Data([0x00, 0x01, 0x02]).write(to: URL(fileURLWithPath: dir.file("binary.lrc")))
        #expect(throws: PracticeError(.dataError, "\(dir.file("binary.lrc")):1: not a text file")) { try LyricsFile.load(dir.file("binary.lrc")) }
        try "[00:01.00]one\nstray\n".write(toFile: dir.file("ok.lrc"), atomically: true, encoding: .utf8)
        let (lyrics, warnings) = try LyricsFile.load(dir.file("ok.lrc"))
        #expect(lyrics.lines == [Line(time: 1, text: "one")])
        #expect(warnings == [#"\#(dir.file("ok.lrc")):2: skipped "stray" (no time stamp)"#])
        // Windows tools save UTF-16 with a byte order mark.
        var utf16 = Data([0xFF, 0xFE])
        for unit in "[00:02.00]zwei ✨\r\n".utf16 { utf16.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        try utf16.write(to: URL(fileURLWithPath: dir.file("utf16.lrc")))
        #expect(try LyricsFile.load(dir.file("utf16.lrc")).lyrics.lines == [Line(time: 2, text: "zwei ✨")])
    }

    /// `forTrack` finds the file (or takes `--lyrics`) and applies the sidecar's `lyricsShift`,
    /// which the sidecar keeps to the millisecond, and writes back as it read it.
    @Test func theSidecarsShiftMovesTheTracksLyrics() throws {
        let dir = ScratchDirectory("lyrics-track")
        let path = dir.file("song.wav")
        try Signals.write(Signals.sine(440, seconds: 2), to: path)
        let track = try Track.open(path).track
        #expect(try LyricsFile.forTrack(track) == nil)
        try "[00:01.00]one <00:01.50>two\n".write(toFile: dir.file("song.lrc"), atomically: true, encoding: .utf8)
        try "[00:00.50]other\n".write(toFile: dir.file("other.lrc"), atomically: true, encoding: .utf8)
        var found = try #require(try LyricsFile.forTrack(track))
        #expect(found.path == dir.file("song.lrc") && found.lyrics.lines[0].time == 1 && found.warnings.isEmpty)
        try SidecarStore.update(for: track) { (s: inout Sidecar) throws(PracticeError) in s.settings = PracticeSettings(lyricsShift: -0.2504) }
        let text = try String(contentsOfFile: dir.file("song.wav.practice.json"), encoding: .utf8)
        #expect(text.contains("\"settings\": {\n    \"lyricsShift\": -0.25\n  },"))
        found = try #require(try LyricsFile.forTrack(track))
        #expect(found.lyrics.lines == [Line(time: 0.75, text: "one two", words: [Word(time: 0.75, text: "one "), Word(time: 1.25, text: "two")])])
        found = try #require(try LyricsFile.forTrack(track, explicit: dir.file("other.lrc")))
        #expect(found.path == dir.file("other.lrc") && found.lyrics.lines.map(\.time) == [0.25])
        // Another sidecar (--markers) without a shift leaves the times as the file has them.
        try #"{"format": "practice-markers", "version": 1, "settings": {"lyricsShift": 0.5}}"#.write(toFile: dir.file("friend.json"), atomically: true, encoding: .utf8)
        #expect(try LyricsFile.forTrack(track, sidecar: dir.file("friend.json"))?.lyrics.lines.map(\.time) == [1.5])
        #expect(throws: PracticeError(.noInput, "\(dir.file("gone.lrc")): no such file")) { try LyricsFile.forTrack(track, explicit: dir.file("gone.lrc")) }
    }

    @Test func lyricsShiftIsASidecarSetting() throws {
        let doc = #"{"format": "practice-markers", "version": 1, "settings": {"bpm": 96, "lyricsShift": 1.5}}"#
        let s = try Sidecar.decode(Data(doc.utf8))
        #expect(s.settings == PracticeSettings(bpm: 96, lyricsShift: 1.5))
        #expect(String(decoding: s.encoded(), as: UTF8.self).contains("\"settings\": {\n    \"bpm\": 96,\n    \"lyricsShift\": 1.5\n  },"))
        #expect(throws: SidecarFormatError(field: "settings.lyricsShift", message: "expected a number of seconds, found a string")) {
            try Sidecar.decode(Data(#"{"format": "practice-markers", "version": 1, "settings": {"lyricsShift": "+0.1"}}"#.utf8))
        }
    }
}
