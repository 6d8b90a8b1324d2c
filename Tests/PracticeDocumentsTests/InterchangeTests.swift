// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import PracticeDocuments
import PracticeEngine
import PracticeTestSupport

/// Other programs' marker files: round trips, files as other tools write them, WAV chunks, and
/// bad input that must be an error with a line, never a crash.
@Suite struct InterchangeTests {
    /// What a chapter format (FFMETADATA, WebVTT) gives back for the sample markers and loop: each
    /// marker runs to the next marker (the loop's region laid over it does not cut it short).
    static let chaptersReadBack = [
        InterchangeEntry(name: "Verse 1", start: 12.5, end: 3725.125),
        InterchangeEntry(name: "Shine turn ✨", start: 30.25, end: 45),
        InterchangeEntry(name: "Coda", start: 3725.125, end: 3800),
    ]

    /// A point, a region and a point past an hour, with a non-ASCII name.
    static let entries = [
        InterchangeEntry(name: "Verse 1", start: 12.5),
        InterchangeEntry(name: "Shine turn ✨", start: 30.25, end: 45),
        InterchangeEntry(name: "Coda", start: 3725.125),
    ]

    func read(_ text: String, _ format: InterchangeFormat) throws -> (entries: [InterchangeEntry], notes: [String]) {
        try Interchange.read(Data(text.utf8), format: format)
    }

    func write(_ entries: [InterchangeEntry], _ format: InterchangeFormat, title: String? = nil) -> (text: String, notes: [String], leftOut: Int) {
        let (data, notes, leftOut) = Interchange.write(entries, format: format, audioFileName: "song.flac", duration: 3800, title: title)
        return (String(decoding: data, as: UTF8.self), notes, leftOut)
    }

    func error(_ line: Int?, _ message: String) -> InterchangeError { InterchangeError(line: line, message: message) }

    // MARK: Formats

    @Test func formatsFromExtensions() {
        #expect(InterchangeFormat(pathExtension: "txt") == .audacity)
        #expect(InterchangeFormat(pathExtension: "CUE") == .cue)
        #expect(InterchangeFormat(pathExtension: "ffmeta") == .ffmetadata)
        #expect(InterchangeFormat(pathExtension: "ffmetadata") == .ffmetadata)
        #expect(InterchangeFormat(pathExtension: "meta") == .ffmetadata)
        #expect(InterchangeFormat(pathExtension: "vtt") == .webvtt)
        #expect(InterchangeFormat(pathExtension: "LRC") == .lrc)
        #expect(InterchangeFormat(pathExtension: "wav") == .wav)
        #expect(InterchangeFormat(pathExtension: "WAVE") == .wav)
        #expect(InterchangeFormat(pathExtension: "mp3") == nil)
        #expect(InterchangeFormat(pathExtension: "") == nil)
        #expect(InterchangeFormat.exportable == [.audacity, .cue, .ffmetadata, .webvtt, .lrc])
    }

    @Test func errorsDescribeThemselves() {
        #expect(error(3, #"not a time: "abc""#).description == #"line 3: not a time: "abc""#)
        #expect(error(nil, "not a RIFF WAVE file").description == "not a RIFF WAVE file")
    }

    @Test func wavIsNotWrittenAsText() {
        let (data, notes, leftOut) = Interchange.write(Self.entries, format: .wav, audioFileName: "a.wav", duration: 60, title: nil)
        #expect(data.isEmpty && leftOut == Self.entries.count)
        #expect(notes == ["WAV cues are not a text file: render a WAV to get them"])
    }

    @Test func writersLeaveOutTimesNoFormatHolds() throws {
        let bad = [
            InterchangeEntry(name: "NaN", start: .nan),
            InterchangeEntry(name: "Before", start: -1),
            InterchangeEntry(name: "Late", start: 90_000),
            InterchangeEntry(name: "Backwards", start: 5, end: 4),
            InterchangeEntry(name: "Flat", start: 7, end: 7),
            InterchangeEntry(name: "Ok", start: 1),
        ]
        let (text, notes, leftOut) = write(bad, .audacity)
        #expect(text == "1.000000\t1.000000\tOk\n7.000000\t7.000000\tFlat\n" && leftOut == 4)
        #expect(notes == ["left out 4 entries with a time outside 0 to 24 hours or an end before the start"])
    }

    // MARK: Audacity

    @Test func audacityRoundTripIsExactToTheMicrosecond() throws {
        let (text, notes, _) = write(Self.entries, .audacity)
        #expect(text == """
            12.500000\t12.500000\tVerse 1
            30.250000\t45.000000\tShine turn ✨
            3725.125000\t3725.125000\tCoda

            """)
        #expect(notes.isEmpty)
        let back = try Interchange.read(Data(text.utf8), format: .audacity)
        #expect(back.entries == Self.entries)
        #expect(back.notes.isEmpty)

        let fine = [InterchangeEntry(name: "µs", start: 1.234567, end: 2.000001)]
        #expect(try read(write(fine, .audacity).text, .audacity).entries == fine)
    }

    @Test func audacityWritingRoundsAndReplacesTabs() {
        let (text, notes, _) = write([InterchangeEntry(name: "a\tb\nc", start: 1.0000004)], .audacity)
        #expect(text == "1.000000\t1.000000\ta b c\n")
        #expect(notes == ["tabs and line breaks in 1 name replaced with spaces", "times rounded to microseconds"])
    }

    /// As Audacity 3 exports a label track with spectral selections, plus hand-made lines.
    @Test func audacityFileWithFrequencyLinesAndShortLabels() throws {
        let text = """
            12.500000\t12.500000\tVerse 1
            \\\t440.000000\t880.000000
            30.250000\t45.000000\tShine turn
            \\\t-1.000000\t-1.000000
            60.000000\tOutro
            75.5

            """
        let (entries, notes) = try read(text, .audacity)
        #expect(entries == [
            InterchangeEntry(name: "Verse 1", start: 12.5),
            InterchangeEntry(name: "Shine turn", start: 30.25, end: 45),
            InterchangeEntry(name: "Outro", start: 60),
            InterchangeEntry(name: "", start: 75.5),
        ])
        #expect(notes == ["skipped 2 Audacity frequency lines"])
    }

    @Test func audacityAcceptsCRLFAndUTF16WithABOM() throws {
        #expect(try read("12.5\t12.5\tA\r\n13\t14\tB\r\n", .audacity).entries == [
            InterchangeEntry(name: "A", start: 12.5), InterchangeEntry(name: "B", start: 13, end: 14),
        ])
        #expect(try read("12.5\t12.5\tA\r13\t13\tB\r", .audacity).entries == [   // classic Mac OS
            InterchangeEntry(name: "A", start: 12.5), InterchangeEntry(name: "B", start: 13),
        ])
        var utf16 = Data([0xFF, 0xFE])
        for unit in "12.5\t12.5\tVerse ✨\r\n".utf16 { utf16.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        #expect(try Interchange.read(utf16, format: .audacity).entries == [InterchangeEntry(name: "Verse ✨", start: 12.5)])
        #expect(throws: error(nil, "truncated UTF-16 text")) { try Interchange.read(utf16.dropLast(), format: .audacity) }
    }

    @Test func emptyFilesHoldNoMarkers() throws {
        for format in InterchangeFormat.exportable {
            for text in ["", "\n\n", "\u{FEFF}"] {
                let (entries, notes) = try read(text, format)
                #expect(entries.isEmpty)
                #expect(notes == ["no markers in the file"])
            }
        }
    }

    @Test(arguments: [
        ("12.5\t10.0\tBack", 1, "end before start"),
        ("abc\tdef", 1, #"not a time: "abc""#),
        ("nan\tnan\tX", 1, #"not a time: "nan""#),
        ("inf\tinf\tX", 1, #"not a time: "inf""#),
        ("1e300\t1e300\tHuge", 1, "time out of range"),
        ("1e999\t1e999\tOverflow", 1, "time out of range"),
        ("-1\t2\tNegative", 1, "negative time"),
        ("1\t1\tok\n90000\t90000\tLate", 2, "time out of range"),
        ("1\t2e300\tLong", 1, "time out of range"),
    ])
    func audacityBadInput(text: String, line: Int, message: String) {
        #expect(throws: error(line, message)) { try read(text, .audacity) }
    }

    @Test func textReadersRefuseBinaryAndBadUTF8() {
        for format in InterchangeFormat.exportable {
            #expect(throws: error(1, "not UTF-8 text")) { try Interchange.read(Data([0x31, 0x09, 0xC3, 0x28]), format: format) }
            #expect(throws: error(2, "not UTF-8 text")) { try Interchange.read(Data("1\t1\tok\n1\t1\tCaf".utf8) + [0xC3], format: format) }
            #expect(throws: error(1, "not a text file")) { try Interchange.read(Data([0x52, 0x00, 0xFF, 0x13, 0x88]), format: format) }
            // A WAV file given as text: its header has NUL bytes.
            #expect(throws: error(1, "not a text file")) { try Interchange.read(Self.pcmWave(rate: 8000, frames: 4), format: format) }
        }
    }

    // MARK: CUE

    @Test func cueRoundTripIsWithinHalfAFrame() throws {
        let (text, notes, _) = write(Self.entries, .cue, title: "Practice")
        #expect(text == """
            TITLE "Practice"
            FILE "song.flac" WAVE
              TRACK 01 AUDIO
                TITLE "Verse 1"
                INDEX 01 00:12:38
              TRACK 02 AUDIO
                TITLE "Shine turn ✨"
                INDEX 01 00:30:19
              TRACK 03 AUDIO
                TITLE "Coda"
                INDEX 01 62:05:09

            """)
        #expect(notes == ["CUE sheets hold points only: 1 loop kept as its start point", "times rounded to CUE frames (1/75 s)"])
        let (back, readNotes) = try read(text, .cue)
        #expect(readNotes.isEmpty)
        #expect(back.map(\.name) == ["Verse 1", "Shine turn ✨", "Coda"])
        #expect(back.allSatisfy { $0.end == nil })
        for (a, b) in zip(back, Self.entries) { #expect(abs(a.start - b.start) <= 1.0 / 150) }
        // 12.5 s is 937.5 frames → 00:12:38 → 12.5067 s.
        #expect(text.contains("INDEX 01 00:12:38"))
        #expect(back[0].start == 938.0 / 75)
        #expect(abs(back[0].start - 12.5067) < 0.00005)
    }

    @Test func cueLimitsTitlesQuotesAndTracks() throws {
        var many = (0..<101).map { InterchangeEntry(name: "M\($0)", start: Double($0)) }
        many[0].name = String(repeating: "x", count: 100)
        many[1].name = #"Say "hi""#
        many.append(InterchangeEntry(name: "Same frame", start: 2.001))
        let (text, notes, leftOut) = write(many, .cue, title: #"The "Drills""#)
        #expect(leftOut == 3 && text.components(separatedBy: "INDEX 01").count - 1 == 99)
        #expect(notes == [
            "times rounded to CUE frames (1/75 s)",
            "left out 1 marker on the same CUE frame as the one before",
            "CUE sheets hold 99 tracks: left out the last 2 markers",
            "\" replaced with ' in 2 titles",
            "shortened 1 title to 80 characters",
        ])
        #expect(text.hasPrefix("TITLE \"The 'Drills'\"\nFILE \"song.flac\" WAVE\n  TRACK 01 AUDIO\n    TITLE \"\(String(repeating: "x", count: 80))\"\n"))
        #expect(text.contains("    TITLE \"Say 'hi'\"\n"))
        let back = try read(text, .cue).entries
        #expect(back.count == 99)
        #expect(back.last == InterchangeEntry(name: "M98", start: 98))
        #expect(!text.contains("TRACK 100"))
        // A title that starts with a combining mark makes one Character of it and the opening
        // quote; the quotes are still found, and the title reads back without them.
        let marked = [InterchangeEntry(name: "\u{301}Accent", start: 1), InterchangeEntry(name: "\u{7AC}", start: 2)]
        let markedText = write(marked, .cue).text
        #expect(markedText.contains("    TITLE \"\u{301}Accent\"\n") && markedText.contains("    TITLE \"\u{7AC}\"\n"))
        #expect(try read(markedText, .cue).entries == marked)
    }

    /// As EAC writes an image's sheet: REM lines, disc PERFORMER and TITLE, pregaps, CRLF.
    @Test func cueSheetFromEAC() throws {
        let text = [
            #"REM GENRE "Latin""#,
            "REM DATE 2024",
            "REM DISCID 2A0B7D04",
            #"REM COMMENT "ExactAudioCopy v1.6""#,
            #"PERFORMER "Practice Band""#,
            #"TITLE "Salsa Lesson 3""#,
            #"FILE "Salsa Lesson 3.wav" WAVE"#,
            "  TRACK 01 AUDIO",
            #"    TITLE "Intro""#,
            #"    PERFORMER "Practice Band""#,
            "    INDEX 01 00:00:00",
            "  TRACK 02 AUDIO",
            #"    TITLE "Verse 1""#,
            #"    PERFORMER "Practice Band""#,
            "    INDEX 00 00:10:00",
            "    INDEX 01 00:12:38",
            "  TRACK 03 AUDIO",
            #"    PERFORMER "Practice Band""#,
            "    FLAGS DCP",
            "    INDEX 00 01:29:50",
            "    INDEX 01 01:30:74",
            "",
        ].joined(separator: "\r\n")
        let (entries, notes) = try read(text, .cue)
        #expect(entries == [
            InterchangeEntry(name: "Intro", start: 0),
            InterchangeEntry(name: "Verse 1", start: 938.0 / 75),
            InterchangeEntry(name: "Track 03", start: 6824.0 / 75),   // 1:30 + 74 frames
        ])
        #expect(notes == ["ignored 2 pregaps (INDEX 00)"])
    }

    @Test func cueReadsLongTimesAndTheFirstFileOnly() throws {
        let text = """
            FILE "one.wav" WAVE
              TRACK 01 AUDIO
                INDEX 01 120:00:00
            FILE "two.wav" WAVE
              TRACK 02 AUDIO
                TITLE "Elsewhere"
                INDEX 01 00:00:00
              TRACK 03 AUDIO
            """
        let (entries, notes) = try read(text, .cue)
        #expect(entries == [InterchangeEntry(name: "Track 01", start: 7200)])
        #expect(notes == ["skipped 1 track without INDEX 01", "read the first FILE only: left out 1 track of other files"])
    }

    @Test(arguments: [
        ("INDEX 01 9999999:00:00", "time out of range"),
        ("INDEX 01 00:00:99999999999999999999", "time out of range"),
        ("INDEX 01 1441:00:00", "time out of range"),
        ("INDEX 01 00:61:00", #"not a CUE time (mm:ss:ff): "00:61:00""#),
        ("INDEX 01 00:12:75", #"not a CUE time (mm:ss:ff): "00:12:75""#),
        ("INDEX 01 00:1", #"not a CUE time (mm:ss:ff): "00:1""#),
        ("INDEX 01 nan", #"not a CUE time (mm:ss:ff): "nan""#),
        ("INDEX 01 -00:01:00", "negative time"),
        ("INDEX 01", "bad INDEX line"),
    ])
    func cueBadIndex(index: String, message: String) {
        let text = "FILE \"a.wav\" WAVE\r\n  TRACK 01 AUDIO\r\n    \(index)\r\n"
        #expect(throws: error(3, message)) { try read(text, .cue) }
    }

    @Test func cueBadStructure() {
        #expect(throws: error(1, "not a CUE sheet")) { try read("hello world\nthis is not a cue\n", .cue) }
        #expect(throws: error(2, #"bad TRACK number "xx""#)) { try read("FILE \"a.wav\" WAVE\nTRACK xx AUDIO\n", .cue) }
        #expect(throws: error(2, "INDEX outside a TRACK")) { try read("FILE \"a.wav\" WAVE\nINDEX 01 00:00:00\n", .cue) }
        #expect(throws: error(4, "second INDEX 01 in a track")) {
            try read("FILE \"a.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nINDEX 01 00:01:00\n", .cue)
        }
        // Windows-1252 "é" from an old ripper.
        #expect(throws: error(3, "not UTF-8 text")) {
            try Interchange.read(Data("FILE \"a.wav\" WAVE\nTRACK 01 AUDIO\nTITLE \"Caf".utf8) + [0xE9, 0x22], format: .cue)
        }
    }

    // MARK: FFMETADATA

    @Test func ffmetadataRoundTripIsExactToTheMillisecond() throws {
        let (text, notes, _) = write(Self.entries, .ffmetadata, title: "Drills; take=2")
        #expect(text == """
            ;FFMETADATA1
            title=Drills\\; take\\=2
            [CHAPTER]
            TIMEBASE=1/1000
            START=12500
            END=3725125
            title=Verse 1
            [CHAPTER]
            TIMEBASE=1/1000
            START=30250
            END=45000
            title=Shine turn ✨
            [CHAPTER]
            TIMEBASE=1/1000
            START=3725125
            END=3800000
            title=Coda

            """)
        #expect(notes == ["chapters are regions: 2 markers end at the next marker or the track end"])
        let (back, readNotes) = try read(text, .ffmetadata)
        #expect(back == Self.chaptersReadBack)
        #expect(readNotes.isEmpty)

        let fine = [InterchangeEntry(name: #"a=b;c#d\e"#, start: 1.234, end: 5.678)]
        #expect(try read(write(fine, .ffmetadata).text, .ffmetadata).entries == fine)
    }

    /// `ffmpeg -i lesson.mkv -f ffmetadata -`: nanosecond TIMEBASE, escapes, a continued line.
    @Test func ffmetadataDumpFromMatroska() throws {
        let text = """
            ;FFMETADATA1
            title=Salsa Lesson 3 \\= warm-up
            encoder=Lavf60.16.100
            # added by hand
            [CHAPTER]
            TIMEBASE=1/1000000000
            START=0
            END=12500000000
            title=Intro
            [CHAPTER]
            TIMEBASE=1/1000000000
            START=12500000000
            END=30250000000
            title=A\\=B drill
            [CHAPTER]
            TIMEBASE=1/1000000000
            START=30250000000
            END=45000000000
            title=Shine turn\\
            two lines
            [STREAM]
            title=not a chapter

            """
        let (entries, notes) = try read(text, .ffmetadata)
        #expect(entries == [
            InterchangeEntry(name: "Intro", start: 0, end: 12.5),
            InterchangeEntry(name: "A=B drill", start: 12.5, end: 30.25),
            InterchangeEntry(name: "Shine turn two lines", start: 30.25, end: 45),
        ])
        #expect(notes.isEmpty)
    }

    @Test func ffmetadataChaptersWithoutAnEndArePoints() throws {
        let text = ";FFMETADATA1\r\n[CHAPTER]\r\nSTART=1000\r\n[CHAPTER]\r\nSTART=3000\r\nEND=2000\r\ntitle=Back\r\nstray line\r\n"
        let (entries, notes) = try read(text, .ffmetadata)
        #expect(entries == [InterchangeEntry(name: "Chapter 1", start: 1), InterchangeEntry(name: "Back", start: 3)])
        #expect(notes == ["skipped 1 line without key=value", "read 1 chapter ending before the start as a point"])
    }

    @Test(arguments: [
        ("START=12.5", 4, #"chapter START is not an integer: "12.5""#),
        ("START=1e300", 4, #"chapter START is not an integer: "1e300""#),
        ("START=nan", 4, #"chapter START is not an integer: "nan""#),
        ("START=99999999999999999999", 4, "time out of range"),
        ("START=90000000", 4, "time out of range"),
        ("START=-5", 4, "negative time"),
        ("START=0\nEND=99999999999999999999", 5, "time out of range"),
        ("TIMEBASE=1/1000000000\nSTART=86400001000000", 5, "time out of range"),
        ("TIMEBASE=1/0\nSTART=0", 4, #"bad TIMEBASE "1/0""#),
        ("title=No start", 2, "chapter without START"),
    ])
    func ffmetadataBadChapter(body: String, line: Int, message: String) {
        let text = ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\n" + body + "\n"
        #expect(throws: error(line, message)) { try read(text, .ffmetadata) }
    }

    @Test func ffmetadataNeedsItsHeader() {
        #expect(throws: error(1, "missing ;FFMETADATA1 header")) { try read("[CHAPTER]\nSTART=0\n", .ffmetadata) }
        #expect(throws: error(1, "missing ;FFMETADATA1 header")) { try read("garbage", .ffmetadata) }
    }

    // MARK: WebVTT

    @Test func webvttRoundTripIsExactToTheMillisecond() throws {
        let (text, notes, _) = write(Self.entries, .webvtt)
        #expect(text == """
            WEBVTT

            00:12.500 --> 01:02:05.125
            Verse 1

            00:30.250 --> 00:45.000
            Shine turn ✨

            01:02:05.125 --> 01:03:20.000
            Coda


            """)
        #expect(notes == ["WebVTT cues are regions: 2 markers end at the next marker or the track end"])
        let (back, readNotes) = try read(text, .webvtt)
        #expect(back == Self.chaptersReadBack)
        #expect(readNotes.isEmpty)

        let odd = [InterchangeEntry(name: "Rock & <Roll> -->", start: 1.234, end: 5.678)]
        let oddText = write(odd, .webvtt).text
        #expect(oddText.contains("Rock &amp; &lt;Roll&gt; --&gt;\n"))
        #expect(try read(oddText, .webvtt).entries == odd)
    }

    /// Hand-made chapters for a web player: a BOM, header text, a NOTE block, ids, hours, cue
    /// settings, markup and a two-line title.
    @Test func webvttFileWithNotesIdsAndSettings() throws {
        let text = """
            \u{FEFF}WEBVTT - Salsa Lesson 3
            Kind: chapters

            NOTE
            Chapters by hand,
            checked in the browser.

            intro
            00:00:00.000 --> 00:00:12.500
            Intro

            verse-1
            00:00:12.500 --> 00:00:30.250 align:start position:10%
            Verse 1 &amp; <b>clave</b>

            STYLE
            ::cue { color: yellow }

            01:00:00.000 --> 01:00:30.500
            Long
            practice
            """
        let (entries, notes) = try read(text.replacingOccurrences(of: "\n", with: "\r\n"), .webvtt)
        #expect(entries == [
            InterchangeEntry(name: "Intro", start: 0, end: 12.5),
            InterchangeEntry(name: "Verse 1 & clave", start: 12.5, end: 30.25),
            InterchangeEntry(name: "Long practice", start: 3600, end: 3630.5),
        ])
        #expect(notes.isEmpty)
    }

    @Test(arguments: [
        ("00:05.000 --> 00:01.000", "end before start"),
        ("99999999999999999999:00:00.000 --> 99999999999999999999:00:01.000", "time out of range"),
        ("25:00:00.000 --> 25:00:01.000", "time out of range"),
        ("00:61.000 --> 01:02.000", #"not a WebVTT time (hh:mm:ss.ttt): "00:61.000""#),
        ("00:01.5 --> 00:02.000", #"not a WebVTT time (hh:mm:ss.ttt): "00:01.5""#),
        ("00:01.000 --> 00:0", #"not a WebVTT time (hh:mm:ss.ttt): "00:0""#),
        ("nan --> nan", #"not a WebVTT time (hh:mm:ss.ttt): "nan""#),
        ("1e300 --> 1e301", #"not a WebVTT time (hh:mm:ss.ttt): "1e300""#),
        ("-00:01.000 --> 00:02.000", "negative time"),
    ])
    func webvttBadTiming(timing: String, message: String) {
        #expect(throws: error(4, message)) { try read("WEBVTT\n\nid\n\(timing)\nTitle\n", .webvtt) }
    }

    @Test func webvttNeedsItsHeader() throws {
        #expect(throws: error(1, "missing WEBVTT header")) { try read("Hello\n\n00:01.000 --> 00:02.000\nA\n", .webvtt) }
        #expect(throws: error(1, "missing WEBVTT header")) { try read("WEBVTTX\n", .webvtt) }
        let (entries, notes) = try read("WEBVTT\n\njust words\nno timing\n", .webvtt)
        #expect(entries.isEmpty)
        #expect(notes == ["skipped 1 block without a cue timing line", "no markers in the file"])
    }

    // MARK: LRC

    /// Markers become `[mm:ss.xx]name` lines: points only, hundredths, the title as `[ti:]`.
    @Test func lrcRoundTripIsExactToTheHundredth() throws {
        let (text, notes, _) = write(Self.entries, .lrc, title: "Practice")
        #expect(text == "[ti:Practice]\n[00:12.50]Verse 1\n[00:30.25]Shine turn ✨\n[62:05.13]Coda\n")
        #expect(notes == ["LRC files hold points only: 1 loop kept as its start point", "times rounded to hundredths of a second"])
        let (entries, readNotes) = try read(text, .lrc)
        #expect(entries == [InterchangeEntry(name: "Verse 1", start: 12.5), InterchangeEntry(name: "Shine turn ✨", start: 30.25),
                            InterchangeEntry(name: "Coda", start: 3725.13)])
        #expect(readNotes.isEmpty)
    }

    /// Lyric lines as markers: the offset applied, repeated stamps each a marker, lines without
    /// text left out, skipped lines noted; a file without stamps is an error.
    @Test func lrcLinesAsMarkers() throws {
        let lrc = "[ti:Song]\r\n[offset:+500]\r\n[00:21.10][00:45.10]Chorus\r\n[00:10.00]<00:10.00>Verse <00:10.50>one\r\n[00:30.00]\r\nstray\r\n"
        let (entries, notes) = try read(lrc, .lrc)
        #expect(entries == [InterchangeEntry(name: "Verse one", start: 9.5), InterchangeEntry(name: "Chorus", start: 20.6),
                            InterchangeEntry(name: "Chorus", start: 44.6)])
        #expect(notes == [#"line 6: skipped "stray" (no time stamp)"#, "left out 1 line without text"])
        #expect(throws: error(nil, "no time stamps (unsynced lyrics)")) { try read("[ti:x]\nJust words\n", .lrc) }
        // Header tags alone are what an export of no markers writes: no markers, not an error (found by fuzzing).
        let headerOnly = try read("[ti:x]\n[ar:y]\n\n", .lrc)
        #expect(headerOnly.entries.isEmpty && headerOnly.notes == ["no markers in the file"])
        #expect(try read(write([], .lrc).text, .lrc).entries.isEmpty)
        // A name that reads as a time stamp stays one marker's name (found by fuzzing: it came back as two).
        let stamped = [InterchangeEntry(name: "[00:12.50]Five, six", start: 1), InterchangeEntry(name: " [1:02]x", start: 2)]
        let written = write(stamped, .lrc).text
        #expect(written == "[00:01.00]<00:01.00>[00:12.50]Five, six\n[00:02.00]<00:02.00> [1:02]x\n")
        #expect(try read(written, .lrc).entries == [stamped[0], InterchangeEntry(name: "[1:02]x", start: 2)])
        // A name that starts with a combining mark (Thaana's U+07AC here) joins the stamp's `]` or
        // `>` in one Character; the brackets are still found (found by fuzzing: "no time stamps").
        let marked = [InterchangeEntry(name: "\u{7AC}]", start: 52), InterchangeEntry(name: "\u{301}[00:01.00]x", start: 53)]
        let markedText = write(marked, .lrc).text
        #expect(markedText == "[00:52.00]\u{7AC}]\n[00:53.00]\u{301}[00:01.00]x\n")
        #expect(try read(markedText, .lrc).entries == marked)
        // A name holding what reads as a word stamp keeps its place and its text, `<` written `‹`
        // (found by fuzzing: the stamp was read as timing and the name left out).
        let angled = write([InterchangeEntry(name: "<00<00:37.7>0:37.70>", start: 62), InterchangeEntry(name: "a < b", start: 63)], .lrc)
        #expect(angled.text == "[01:02.00]‹00‹00:37.7>0:37.70>\n[01:03.00]a < b\n")
        #expect(angled.notes.contains("< written ‹ in 1 name where it would read as a word stamp"))
        #expect(try read(angled.text, .lrc).entries.map(\.start) == [62, 63])
        // A text that starts with a line separator other than LF (U+0085 here) and a mark: the
        // separator is white space, so the mark is the name, and it reads back (found by fuzzing:
        // written as a space, which took the mark with it when the line was trimmed).
        let separated = try read("[00:00.50]\u{85}\u{485}\n[00:01.00]\u{2028}\n", .lrc)
        #expect(separated.entries == [InterchangeEntry(name: "\u{485}", start: 0.5)] && separated.notes == ["left out 1 line without text"])
        #expect(try read(write(separated.entries, .lrc).text, .lrc).entries == separated.entries)
        // Past 999 minutes (an offset can move a stamp there; a marker may be up to 24 hours in):
        // written with four digits of minutes, and read back (found by fuzzing: "no time stamps").
        let late = try read("[offset:-61000551]\n[15:03.50]ru\n", .lrc).entries
        #expect(late == [InterchangeEntry(name: "ru", start: 61_904.051)])
        let lateText = write(late, .lrc).text
        #expect(lateText == "[1031:44.05]ru\n")
        #expect(try read(lateText + "[1440:00.00]end\n", .lrc).entries.map(\.start) == [61_904.05, 86_400])
        let words = LRC.parse("[00:10.00]a <00:10.50>\u{301}b\n").lyrics.lines
        #expect(words.map(\.text) == ["a \u{301}b"] && words.first?.words.map(\.time) == [10, 10.5])
    }

    /// A space carrying a combining mark (U+0020 U+0301: one character, that the standard library
    /// calls white space by its first scalar) at either end of a name is not white space to trim:
    /// the name keeps it, in every format (before, the mark went with the trimmed space).
    @Test(arguments: InterchangeFormat.exportable)
    func aSpaceCarryingAMarkIsKeptAtEitherEnd(format: InterchangeFormat) throws {
        let entries = [InterchangeEntry(name: " \u{301}Turn", start: 1), InterchangeEntry(name: "Turn \u{301}", start: 2)]
        #expect(try read(write(entries, format).text, format).entries.map(\.name) == entries.map(\.name))
        #expect(" \u{301}a \u{301}\t".trimmingWhitespace() == " \u{301}a \u{301}")
        // In LRC word timing, a word of it is kept too.
        let words = LRC.parse("[00:10.00] \u{301}<00:10.50>b \u{301}\n").lyrics.lines
        #expect(words.map(\.text) == [" \u{301}b \u{301}"] && words.first?.words.map(\.text) == [" \u{301}", "b \u{301}"])
        #expect("\n \u{301}\u{A0}".trimmingWhitespaceAndNewlines() == " \u{301}" && "\t\u{A0} \r\n".trimmingWhitespaceAndNewlines() == "")
    }

    /// A combining mark after a delimiter makes one Character of the two; the delimiter is still
    /// found, and the text keeps the mark: FFMETADATA's `=`, `;` and `\\`, LRC's tag `:`, and the
    /// quotes CUE's writer turns to `'`.
    @Test func aMarkAfterADelimiterHidesNothing() throws {
        let names = ["\u{301}Accent", "x\\\u{301}y", ";\u{301}", "=\u{301}"]
        let entries = names.enumerated().map { InterchangeEntry(name: $1, start: Double($0)) }
        let ff = write(entries, .ffmetadata, title: "\u{301}Title")
        #expect(ff.text.contains("title=\\=\u{301}\n") && ff.text.contains("title=x\\\\\u{301}y\n"))
        #expect(try read(ff.text, .ffmetadata).entries.map(\.name) == names)
        #expect(try read(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\ntitle=\u{301}Accent\n", .ffmetadata).entries.map(\.name) == ["\u{301}Accent"])
        // An LRC tag whose value starts with a mark is a tag: an export of no markers for a track so
        // titled reads back as no markers, not as "no time stamps".
        #expect(LRC.parse("[ti:\u{301}X]\n[00:01.00]a\n").lyrics.tags["ti"] == "\u{301}X")
        #expect(try read(write([], .lrc, title: "\u{301}X").text, .lrc).entries.isEmpty)
        let cue = write([InterchangeEntry(name: "Say \"\u{301}hi\"", start: 1)], .cue)
        #expect(try read(cue.text, .cue).entries.map(\.name) == ["Say '\u{301}hi'"] && cue.notes.contains("\" replaced with ' in 1 title"))
        // A prepended scalar (U+0600) makes one Character of itself and a `<` after it: LRC's
        // writer still writes that `<` as `‹` where it would read as a word stamp, and markup
        // escapes still escape it; WebVTT's reader still finds tags and references.
        let prepended = write([InterchangeEntry(name: "\u{600}<00:02.00>x", start: 1)], .lrc)
        #expect(prepended.text == "[00:01.00]\u{600}‹00:02.00>x\n")
        #expect(try read(prepended.text, .lrc).entries == [InterchangeEntry(name: "\u{600}‹00:02.00>x", start: 1)])
        #expect("\u{600}<b>&\u{301}>\u{301}".markupEscaped == "\u{600}&lt;b&gt;&amp;\u{301}&gt;\u{301}")
        #expect(try read("WEBVTT\n\n00:01.000 --> 00:02.000\n<b>\u{301}x</b>&amp;\u{301}\n", .webvtt).entries.map(\.name) == ["\u{301}x&\u{301}"])
    }

    /// LRC has no line for a marker without a name (a line without text is a break, which readers
    /// skip): such markers are left out, counted and said.
    @Test func lrcLeavesOutMarkersWithoutANameAndSaysSo() throws {
        let written = write([InterchangeEntry(name: "", start: 1), InterchangeEntry(name: " \t", start: 2), InterchangeEntry(name: "x", start: 3)], .lrc)
        #expect(written.text == "[00:03.00]x\n" && written.leftOut == 2)
        #expect(written.notes == ["left out 2 markers without a name (an LRC line without text is a break)"])
        #expect(try read(written.text, .lrc).entries == [InterchangeEntry(name: "x", start: 3)])
    }

    /// An imported name keeps to one line whatever line break it holds (U+2028, U+0085 too).
    @Test func importedNamesHoldNoLineBreak() {
        var s = Sidecar()
        _ = s.importEntries([InterchangeEntry(name: "a\u{2028}b\u{85}c\u{B}d", start: 1)], from: .audacity, duration: 10)
        #expect(s.liveMarkers.map(\.name) == ["a b c d"])
    }

    /// What is already here is skipped, matched by name ignoring case (within 1 ms for a marker,
    /// to the millisecond for a loop), what the same import brought in included; a name taken
    /// gets the next free number, counted separately for markers and loops, ignoring case too.
    /// A beat finder's 10,000 labels of one name become `B`, `B (2)` … `B (10000)`, and the note
    /// names the first five renames and counts the rest.
    @Test func importedNamesAreMatchedAndNumberedIgnoringCase() {
        var s = Sidecar()
        s.markers = [Marker(name: "Verse", time: 10)]
        s.loops = [Loop(name: "Chorus", start: .time(20), end: .time(30))]
        let first = s.importEntries([
            InterchangeEntry(name: "verse", start: 10.0004),               // here: skipped
            InterchangeEntry(name: "Verse", start: 12),                    // Verse (2)
            InterchangeEntry(name: "VERSE", start: 14),                    // VERSE (3)
            InterchangeEntry(name: "Verse (2)", start: 16),                // taken by this import: Verse (2) (2)
            InterchangeEntry(name: "verse (2)", start: 12),                // this import's: skipped
            InterchangeEntry(name: "chorus", start: 20, end: 30),          // here: skipped
            InterchangeEntry(name: "Chorus", start: 40, end: 50),          // Chorus (2), a loop
            InterchangeEntry(name: "Chorus", start: 60),                   // a marker: no marker is named so
        ], from: .audacity, duration: 100)
        #expect(s.liveMarkers.map(\.name) == ["Verse", "Verse (2)", "VERSE (3)", "Verse (2) (2)", "Chorus"])
        #expect(s.liveMarkers.map(\.time) == [10, 12, 14, 16, 60])
        #expect(s.liveLoops.map(\.name) == ["Chorus", "Chorus (2)"])
        #expect(first == ImportSummary(markers: 4, loops: 1, notes: [
            "skipped 3 already here (same name and time)",
            "renamed (name taken): 'Verse' → 'Verse (2)', 'VERSE' → 'VERSE (3)', 'Verse (2)' → 'Verse (2) (2)', 'Chorus' → 'Chorus (2)'",
        ]))

        var beats = Sidecar()
        let summary = beats.importEntries((0..<10_000).map { InterchangeEntry(name: "B", start: Double($0) / 4) } + [InterchangeEntry(name: "b", start: 0)],
                                          from: .audacity, duration: 3_000)
        #expect(beats.liveMarkers.map(\.name) == ["B"] + (2...10_000).map { "B (\($0))" })
        #expect(Set(beats.liveMarkers.map(\.id)).count == 10_000)
        #expect(beats.liveMarkers.allSatisfy { marker in   // random (version 4) UUIDs, in lowercase
            let b = Array(marker.id.utf8), dashes = [8, 13, 18, 23]
            return b.count == 36 && b[14] == UInt8(ascii: "4") && "89ab".utf8.contains(b[19])
                && b.indices.allSatisfy { dashes.contains($0) ? b[$0] == UInt8(ascii: "-") : "0123456789abcdef".utf8.contains(b[$0]) }
        })
        #expect(summary == ImportSummary(markers: 10_000, loops: 0, notes: [
            "skipped 1 already here (same name and time)",
            "renamed (name taken): 'B' → 'B (2)', 'B' → 'B (3)', 'B' → 'B (4)', 'B' → 'B (5)', 'B' → 'B (6)', and 9994 more",
        ]))
    }

    // MARK: WAV

    /// A 44-byte header and `frames` of 16-bit mono PCM (a rising ramp).
    static func pcmWave(rate: UInt32, frames: Int) -> Data {
        var b: [UInt8] = []
        func u32(_ v: UInt32) { for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        func u16(_ v: UInt16) { b.append(UInt8(v & 0xFF)); b.append(UInt8(v >> 8)) }
        b += Array("RIFF".utf8); u32(UInt32(36 + frames * 2)); b += Array("WAVE".utf8)
        b += Array("fmt ".utf8); u32(16); u16(1); u16(1); u32(rate); u32(rate * 2); u16(2); u16(16)
        b += Array("data".utf8); u32(UInt32(frames * 2))
        for i in 0..<frames { u16(UInt16(truncatingIfNeeded: i)) }
        return Data(b)
    }

    /// Bytes for hand-built chunks.
    struct Bytes {
        var b: [UInt8] = []
        mutating func u32(_ v: UInt32) { for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        mutating func text(_ s: String) { b += Array(s.utf8) }
        mutating func chunk(_ id: String, _ body: Bytes) {
            text(id); u32(UInt32(body.b.count)); b += body.b
            if body.b.count % 2 == 1 { b.append(0) }
        }
    }

    /// `wav` written to a file and given `entries` as cue points there by `appendCues` (what a
    /// render does), read back.
    func withCues(_ wav: Data, _ entries: [InterchangeEntry], sampleRate: Int) throws -> Data {
        let dir = ScratchDirectory("cues")
        let path = dir.file("render.wav")
        try wav.write(to: URL(fileURLWithPath: path))
        try Interchange.appendCues(toWAVAt: path, entries: entries, sampleRate: sampleRate)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The ids of the top-level chunks.
    func chunkIDs(_ wav: Data) throws -> [String] {
        try Interchange.Wave.chunks([UInt8](wav)).map(\.id)
    }

    @Test func wavCuesRoundTripToTheSample() throws {
        let wav = Self.pcmWave(rate: 8000, frames: 16000)
        let entries = [
            InterchangeEntry(name: "Verse 1", start: 0.5),
            InterchangeEntry(name: "Shine turn ✨", start: 1, end: 1.5),
            InterchangeEntry(name: "Coda", start: 1.75),
        ]
        let out = try withCues(wav, entries, sampleRate: 8000)
        // cue: 8 + 4 + 3 × 24 = 84; LIST: 8 + "adtl" + labl 20 + labl 28 (14-byte name, padded) + ltxt 28 + labl 18 = 106.
        #expect(out.count == 44 + 32_000 + 84 + 106)
        #expect(Interchange.Wave.u32([UInt8](out), 4) == UInt32(out.count - 8))
        #expect(out[8..<(44 + 32_000)] == wav[8...])
        #expect(try chunkIDs(out) == ["fmt ", "data", "cue ", "LIST"])
        let (back, notes) = try Interchange.read(out, format: .wav)
        #expect(back == entries)
        #expect(notes.isEmpty)

        // Rounded to the nearest sample.
        let rounded = try withCues(wav, [InterchangeEntry(name: "Outro", start: 1.00006)], sampleRate: 8000)
        #expect(try Interchange.read(rounded, format: .wav).entries == [InterchangeEntry(name: "Outro", start: 8000.0 / 8000)])

        // No entries: the file is left as it was, and reads as having no markers.
        let none = try withCues(wav, [], sampleRate: 8000)
        #expect(none == wav)
        let empty = try Interchange.read(none, format: .wav)
        #expect(empty.entries.isEmpty)
        #expect(empty.notes == ["no markers in the file"])
    }

    /// A file as a sampler editor leaves it: an odd-sized chunk with its pad byte, a labelled cue
    /// at a loop's start, an unlabelled cue, a LIST/INFO, and `smpl` loops with inclusive ends.
    static func samplerWave() -> Data {
        var fmt = Bytes(); fmt.u32(0x0001_0001); fmt.u32(44_100); fmt.u32(88_200); fmt.u32(0x0010_0002)
        var junk = Bytes(); junk.text("abc")
        var data = Bytes(); data.u32(0); data.u32(0)
        var cue = Bytes(); cue.u32(2)
        for (id, frame) in [(1, 44_100), (2, 11_025)] as [(UInt32, UInt32)] {
            cue.u32(id); cue.u32(frame); cue.text("data"); cue.u32(0); cue.u32(0); cue.u32(frame)
        }
        var info = Bytes(); info.text("INFO"); var name = Bytes(); name.text("Lesson\0"); info.chunk("INAM", name)
        var adtl = Bytes(); adtl.text("adtl"); var labl = Bytes(); labl.u32(1); labl.text("Shine turn\0"); adtl.chunk("labl", labl)
        var smpl = Bytes()
        for v in [0, 0, 22_675, 60, 0, 0, 0, 2, 0] as [UInt32] { smpl.u32(v) }   // 36 bytes; 2 loops
        for (id, start, last) in [(1, 44_100, 88_199), (9, 0, 22_049)] as [(UInt32, UInt32, UInt32)] {
            smpl.u32(id); smpl.u32(0); smpl.u32(start); smpl.u32(last); smpl.u32(0); smpl.u32(0)
        }
        var body = Bytes(); body.text("WAVE")
        body.chunk("fmt ", fmt); body.chunk("junk", junk); body.chunk("data", data); body.chunk("cue ", cue)
        body.chunk("LIST", info); body.chunk("LIST", adtl); body.chunk("smpl", smpl)
        var file = Bytes(); file.chunk("RIFF", body)
        return Data(file.b)
    }

    @Test func wavWithSmplLoopsEndingInclusive() throws {
        let (entries, notes) = try Interchange.read(Self.samplerWave(), format: .wav)
        #expect(entries == [
            InterchangeEntry(name: "Loop 2", start: 0, end: 0.5),
            InterchangeEntry(name: "Cue 1", start: 0.25),
            InterchangeEntry(name: "Shine turn", start: 1, end: 2),
        ])
        #expect(notes.isEmpty)
    }

    @Test func appendedCuesAddAMissingPadByte() throws {
        var body = Bytes(); body.text("WAVE")
        var fmt = Bytes(); fmt.u32(0x0001_0001); fmt.u32(8000); fmt.u32(8000); fmt.u32(0x0008_0001)
        body.chunk("fmt ", fmt)
        body.text("data"); body.u32(3); body.b += [1, 2, 3]   // 8-bit mono, no pad byte at the end
        var file = Bytes(); file.text("RIFF"); file.u32(UInt32(body.b.count)); file.b += body.b   // no pad either
        let out = try withCues(Data(file.b), [InterchangeEntry(name: "A", start: 0.000125)], sampleRate: 8000)
        #expect(out[44..<48] == Data([1, 2, 3, 0]))
        #expect(try Interchange.read(out, format: .wav).entries == [InterchangeEntry(name: "A", start: 1.0 / 8000)])
    }

    @Test func wavBadInput() throws {
        let notWave = error(nil, "not a RIFF WAVE file")
        #expect(throws: notWave) { try Interchange.read(Data(), format: .wav) }
        #expect(throws: notWave) { try Interchange.read(Data("hello, this is text".utf8), format: .wav) }
        let noise: [UInt8] = (0..<64).map { (i: Int) in UInt8((i * 151 + 7) % 256) }
        #expect(throws: notWave) { try Interchange.read(Data(noise), format: .wav) }
        let mark = [InterchangeEntry(name: "A", start: 0)]
        #expect(throws: notWave) { try withCues(Data("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8), mark, sampleRate: 44_100) }
        #expect(throws: error(nil, "bad sample rate 0")) { try withCues(Self.pcmWave(rate: 8000, frames: 2), mark, sampleRate: 0) }
        #expect(throws: error(nil, #"time out of range: "Late""#)) {
            try withCues(Self.pcmWave(rate: 8000, frames: 2), [InterchangeEntry(name: "Late", start: 90_000)], sampleRate: 8000)
        }
        #expect(throws: error(nil, #"time out of range: "NaN""#)) {
            try withCues(Self.pcmWave(rate: 8000, frames: 2), [InterchangeEntry(name: "Ok", start: 1), InterchangeEntry(name: "NaN", start: .nan)], sampleRate: 8000)
        }

        // Cut short inside the data chunk: nothing to read, and nothing we may append to.
        let cut = Self.pcmWave(rate: 8000, frames: 100).prefix(100)
        let cutRead = try Interchange.read(cut, format: .wav)
        #expect(cutRead.entries.isEmpty)
        #expect(cutRead.notes == [#"the file ends inside the "data" chunk"#, "no markers in the file"])

        // Cut short inside the cue chunk.
        let full = try withCues(Self.pcmWave(rate: 8000, frames: 2), Array(Self.entries.prefix(1)), sampleRate: 8000)
        #expect(throws: error(nil, "truncated cue chunk")) { try Interchange.read(full.prefix(60), format: .wav) }

        // A count that promises more points than the chunk holds.
        var bytes = [UInt8](full)
        bytes[56] = 5   // the cue chunk's count, after 44 + 4 bytes of PCM and its 8-byte header
        #expect(throws: error(nil, "cue chunk too short for 5 points")) { try Interchange.read(Data(bytes), format: .wav) }

        // A cue with no fmt chunk to say the rate, and a rate of 0.
        var noFormat = Bytes(); noFormat.text("WAVE")
        var cue = Bytes(); cue.u32(1); for v in [1, 8000, 0x6174_6164, 0, 0, 8000] as [UInt32] { cue.u32(v) }
        noFormat.chunk("cue ", cue)
        var file = Bytes(); file.chunk("RIFF", noFormat)
        #expect(throws: error(nil, "no fmt chunk")) { try Interchange.read(Data(file.b), format: .wav) }
        var zeroRate = Self.pcmWave(rate: 0, frames: 2)
        zeroRate.append(contentsOf: Array("cue ".utf8) + [UInt8(cue.b.count), 0, 0, 0] + cue.b)
        #expect(throws: error(nil, "sample rate is 0")) { try Interchange.read(zeroRate, format: .wav) }

        // A position past 24 hours (2^32 − 1 frames at 8 kHz is 149 hours).
        var late = Self.pcmWave(rate: 8000, frames: 2)
        var lateCue = Bytes(); lateCue.u32(1); for v in [1, .max, 0x6174_6164, 0, 0, .max] as [UInt32] { lateCue.u32(v) }
        late.append(contentsOf: Array("cue ".utf8) + [UInt8(lateCue.b.count), 0, 0, 0] + lateCue.b)
        #expect(throws: error(nil, "time out of range")) { try Interchange.read(late, format: .wav) }

        // A loop whose inclusive end comes before its start.
        var backwards = [UInt8](Self.samplerWave())
        let smplAt = backwards.count - (8 + 36 + 48)
        #expect(Interchange.Wave.fourCC(backwards, smplAt) == "smpl")
        for i in 0..<4 { backwards[smplAt + 8 + 36 + 12 + i] = 0 }   // loop 1 now ends at frame 0
        #expect(throws: error(nil, "loop 1 ends before it starts")) { try Interchange.read(Data(backwards), format: .wav) }
        // A loop count of 2 in a chunk cut to hold one loop (a 36-byte header + 24).
        var short = Array(Self.samplerWave().dropLast(24))
        short[smplAt + 4] = 36 + 24
        #expect(throws: error(nil, "smpl chunk too short for 2 loops")) { try Interchange.read(Data(short), format: .wav) }
    }

    // MARK: Robustness

    /// Every prefix of every sample, and every sample with bytes flipped, reads or throws.
    @Test func cutAndCorruptedFilesNeverCrash() {
        let texts: [(String, InterchangeFormat)] = [
            (write(Self.entries, .audacity).text, .audacity),
            (write(Self.entries, .cue, title: "T").text, .cue),
            (write(Self.entries, .ffmetadata, title: "T").text, .ffmetadata),
            (write(Self.entries, .webvtt).text, .webvtt),
            (write(Self.entries, .lrc, title: "T").text, .lrc),
        ]
        var samples = texts.map { (Data($0.0.utf8), $0.1) }
        samples.append((Self.samplerWave(), .wav))
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var (read, refused) = (0, 0)
        /// Either entries a sidecar can take (finite, not negative, ends after starts) or one line of error.
        func check(_ data: Data, _ format: InterchangeFormat) {
            do {
                let (entries, _) = try Interchange.read(data, format: format)
                for e in entries {
                    #expect(e.start.isFinite && e.start >= 0, "\(format): \(e)")
                    if let end = e.end { #expect(end.isFinite && end > e.start, "\(format): \(e)") }
                }
                read += 1
            } catch {
                #expect(!error.message.isEmpty && !error.message.contains("\n"), "\(format): \(error.message)")
                refused += 1
            }
        }
        for (data, format) in samples {
            for n in 0...data.count { check(data.prefix(n), format) }
            for _ in 0..<300 {
                var bytes = [UInt8](data)
                for _ in 0..<3 {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    bytes[Int(seed >> 33) % bytes.count] = UInt8(truncatingIfNeeded: seed >> 13)
                }
                check(Data(bytes), format)
            }
        }
        // Both ways were taken, many times.
        #expect(read > 500 && refused > 100, "read \(read), refused \(refused)")
    }
}
