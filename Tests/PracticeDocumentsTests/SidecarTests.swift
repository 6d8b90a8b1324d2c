// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeDocuments
import PracticeEngine

/// The sidecar document: reading, writing, keeping what we do not know, and the edit rules.
@Suite struct SidecarTests {
    /// Every field this version knows, and unknown ones at every level, in the form we write.
    static let everyField = """
        {
          "$schema": "urn:practice:schema:sidecar:1",
          "audio": {
            "artist": "Ana",
            "chromaprint": {
              "algorithm": 1,
              "fingerprint": "AQAB",
              "futureHint": "kept"
            },
            "duration": 53.3,
            "fileName": "Salsa Lesson 3.mp3",
            "pcm": {
              "bitsHint": 16,
              "channels": 2,
              "frames": 2350530,
              "sampleRate": 44100,
              "sha256": "43c6aa14c0a6e7d2f0a9bd4c3c7bb1b0c4f4a1d6f56ba0c3b1b8e0a7d2a0e9f1"
            },
            "sha256": "e4c7aa14c0a6e7d2f0a9bd4c3c7bb1b0c4f4a1d6f56ba0c3b1b8e0a7d2a0e9f1",
            "title": "Warm-up"
          },
          "beats": {
            "meter": 8,
            "nextHint": "kept",
            "one": 0.5,
            "source": "aubio",
            "tempo": 120.5,
            "times": [
              0.5,
              1.002,
              1.5
            ],
            "updatedAt": "2026-11-22T09:00:00.000Z"
          },
          "format": "practice-markers",
          "futureList": [
            1.50,
            "two",
            null,
            true,
            {}
          ],
          "loops": [
            {
              "author": "ana",
              "end": {
                "marker": "b-verse"
              },
              "id": "l-1",
              "name": "Shine turn",
              "note": "count it",
              "priority": 3,
              "start": 30.25,
              "updatedAt": "2026-11-20T10:02:00.000Z"
            },
            {
              "deleted": true,
              "id": "l-0",
              "updatedAt": "2026-11-20T10:03:00.000Z"
            }
          ],
          "markers": [
            {
              "color": "#ff8800",
              "id": "a-intro",
              "name": "Intro ✨ 日本",
              "note": "quote \\" tab \\t and \\\\ backslash",
              "time": 0,
              "updatedAt": "2026-11-20T10:01:00.000Z"
            },
            {
              "author": "ben",
              "id": "b-verse",
              "name": "Verse 1",
              "shape": "diamond",
              "time": 45.125,
              "updatedAt": "2026-11-20T10:01:00.500Z"
            },
            {
              "deleted": true,
              "id": "c-gone",
              "reason": "kept",
              "updatedAt": "2026-11-21T08:00:00.000Z"
            }
          ],
          "settings": {
            "metronome": false,
            "pitch": -2,
            "position": 12.5,
            "rate": 0.8
          },
          "version": 1
        }

        """

    @Test func everyFieldSurvivesARoundTripByteForByte() throws {
        let s = try Sidecar.decode(Data(Self.everyField.utf8))
        #expect(s.markers.count == 3 && s.liveMarkers.count == 2 && s.loops.count == 2)
        #expect(s.markers[1].name == "Verse 1" && s.markers[1].time == 45.125 && s.markers[1].extra["shape"] == .string("diamond"))
        #expect(s.markers[0].note == "quote \" tab \t and \\ backslash")
        #expect(s.loops[0].start == .time(30.25) && s.loops[0].end == .marker("b-verse"))
        #expect(s.audio?.pcm.frames == 2_350_530 && s.audio?.chromaprint?.fingerprint == "AQAB")
        #expect(s.audio?.chromaprint?.lengthSeconds == nil && s.audio?.chromaprint?.extra == ["futureHint": .string("kept")])
        #expect(s.extra["futureList"] == .array([.number("1.50"), .string("two"), .null, .bool(true), .object([:])]))
        #expect(s.settings == { var p = PracticeSettings(rate: 0.8, pitch: -2, position: 12.5); p.extra = ["metronome": .bool(false)]; return p }())
        #expect(s.beats?.times == [0.5, 1.002, 1.5] && s.beats?.tempo == 120.5 && s.beats?.meter == 8 && s.beats?.extra == ["nextHint": .string("kept")])
        #expect(String(decoding: s.encoded(), as: UTF8.self) == Self.everyField)
    }

    /// A beat grid that is not one: one line naming the field.
    @Test(arguments: [
        (#"{"tempo": 500, "one": 0, "meter": 8}"#, "beats.tempo: expected beats a minute from 20 to 400"),
        (#"{"tempo": 120, "one": 0, "meter": 20}"#, "beats.meter: expected beats to a count from 2 to 16 (8: eights; 4 or 3: bars), found 20"),
        (#"{"tempo": 120, "one": 0, "meter": 8, "times": [1, 2, 1.5]}"#, "beats.times[2]: 1.5 s is not after the beat before it"),
        (#"{"tempo": 120, "meter": 8}"#, "beats.one: missing"),
    ])
    func aBadBeatGridNamesItsField(beats: String, message: String) {
        let text = #"{"format": "practice-markers", "version": 1, "beats": "# + beats + "}"
        do {
            _ = try Sidecar.decode(Data(text.utf8))
            Issue.record("read: \(beats)")
        } catch {
            #expect("\(error.field): \(error.message)" == message, "\(error)")
        }
    }

    /// Two grids: the newer wins whole, both ways round.
    @Test func theNewerBeatGridWinsAMerge() {
        var a = Sidecar(), b = Sidecar()
        a.beats = BeatGrid(times: [0.5, 1], tempo: 120, one: 0.5, meter: 8, source: "aubio", updatedAt: "2026-11-20T10:00:00.000Z")
        b.beats = BeatGrid(times: [0.25, 0.75], tempo: 120, one: 0.75, meter: 4, source: "aubio", updatedAt: "2026-11-21T10:00:00.000Z")
        var ab = a, ba = b
        let report = ab.merge(b)
        _ = ba.merge(a)
        #expect(ab.beats == b.beats && ba.beats == b.beats)
        #expect(report.changes.contains("~ beats: 120 bpm, the one at 0:00.750"), "\(report.changes)")
        var none = Sidecar()
        _ = none.merge(a)
        #expect(none.beats == a.beats)
    }

    @Test func writesSortedWithMillisecondsAndTombstonesLast() throws {
        var s = Sidecar()
        s.markers = [Marker(id: "z", name: "Late", time: 12.34567, updatedAt: "t", author: nil),
                     Marker(id: "y", name: "Early", time: 1, updatedAt: "t", author: nil)]
        s.markers.insert(Sidecar.tombstone(of: Marker(id: "a", name: "Old", time: 5, updatedAt: "t", author: nil)), at: 0)
        let text = String(decoding: s.encoded(), as: UTF8.self)
        let names = try Sidecar.decode(Data(text.utf8)).markers.map(\.id)
        #expect(names == ["y", "z", "a"])
        #expect(text.contains("\"time\": 12.346,\n") && text.contains("\"time\": 1,\n"))
        #expect(text.hasSuffix("}\n") && text.hasPrefix("{\n  \"format\": \"practice-markers\",\n"))
    }

    @Test(arguments: [
        ("{\n  \"format\": \"practice-markers\",\n  \"version\": 1,\n  \"markers\": [1, 2,, 3]\n}", "4:20: unexpected ','; expected a value"),
        ("{\"format\": \"practice-markers\" \"version\": 1}", "1:31: unexpected '\"'; expected ',' or '}'"),
        ("{\"format\": \"practice-markers\", \"version\": 1", "1:44: unexpected end of file; expected ',' or '}'"),
        ("", "1:1: the file is empty; expected a JSON object"),
        ("{\"a\": 1, \"a\": 2}", "1:10: duplicate key \"a\""),
        ("{\"name\": \"caf\u{0}\"}", "1:14: control character in a string (write \\n, \\t or \\u00XX)"),
        ("[01]", "1:2: a number cannot start with 0"),
        ("{} x", "1:4: unexpected 'x' after the end of the document"),
    ])
    func syntaxErrorsSayLineAndColumn(text: String, expected: String) {
        do {
            _ = try JSONValue.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect("\(error.line):\(error.column): \(error.message)" == expected)
        }
    }

    /// The document as written is `json.prettyBytes()` to the byte, though markers are written
    /// from their fields: every optional field, unknown ones sorting before, between and after the
    /// known ones, tombstones with and without unknown fields.
    @Test func markersWrittenFromTheirFieldsAreTheJSONsBytes() throws {
        var s = Sidecar()
        var full = Marker(name: "Verse \"1\"", time: 45.125, note: "quiet\there", color: "#ff8800")
        full.author = "Ana"
        full.extra = ["aaa": .number("1"), "kind": .string("cue"), "zzz": .object(["nested": .array([.null, .bool(true)])])]
        var gone = Marker(name: "Old", time: 3)
        gone.deleted = true
        var goneWithExtra = Marker(name: "", time: 0)
        goneWithExtra.deleted = true
        goneWithExtra.extra = ["by": .string("merge")]
        s.markers = [full, Marker(name: "Intro", time: 0), Marker(name: "Ünïcödé ✨", time: 12.5), gone, goneWithExtra]
        s.loops = [Loop(name: "Chorus", start: .marker(s.markers[1].id), end: .time(20))]
        s.extra = ["$schema": .string("x"), "zNext": .array([])]
        s.normalize()
        let written = s.encoded()
        #expect(written == Data(s.json.prettyBytes()))
        #expect(try Sidecar.decode(written).encoded() == written)   // (a tombstone keeps no name or time)
        s.markers = []
        #expect(s.encoded() == Data(s.json.prettyBytes()))
    }

    /// Strings are taken straight from the input when they have no escapes: ASCII as it is, the rest
    /// checked as UTF-8 (bytes that are not are an error at the string, never a repaired string).
    @Test func stringsWithoutEscapesAreTakenAsTheyAreAndCheckedWhenNotASCII() throws {
        #expect(try JSONValue.parse(Data(#"{"café": "Ünder \u00e9 ok", "plain": "m00042"}"#.utf8))
                == .object(["café": .string("Ünder é ok"), "plain": .string("m00042")]))
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xE2, 0x82]] {
            let bytes = Array(#"{"ok": "x", "name": "caf"#.utf8) + bad + Array(#""}"#.utf8)
            #expect(throws: JSONSyntaxError(line: 1, column: 21, message: "a string is not valid UTF-8")) {
                try JSONValue.parse(Data(bytes))
            }
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
    }

    @Test(arguments: [
        (#"{"format": "practice-markers", "version": 1, "markers": [{"id": "a", "name": "x", "time": "12"}]}"#, "markers[0].time: expected a number of seconds, found a string"),
        (#"{"format": "practice-markers", "version": 1, "markers": [{"id": "a", "name": "x", "time": -1}]}"#, "markers[0].time: is negative (-1 s)"),
        (#"{"format": "practice-markers", "version": 1, "markers": [{"id": "a", "time": 3}]}"#, "markers[0].name: missing"),
        (#"{"format": "practice-markers", "version": 1, "markers": [{"id": "a", "name": "x", "time": 1}, {"id": "a", "name": "y", "time": 2}]}"#, "markers[1].id: \"a\" is used twice"),
        (#"{"format": "something-else", "version": 1}"#, "format: is \"something-else\", not \"practice-markers\""),
        (#"{"version": 1}"#, "format: missing; a practice sidecar has \"format\": \"practice-markers\""),
        (#"{"format": "practice-markers", "version": 1.5}"#, "version: expected a whole number from 1 up"),
        (#"{"format": "practice-markers", "version": 1, "loops": [{"id": "l", "name": "x", "start": 1, "end": "Chorus"}]}"#, "loops[0].end: no single marker is named \"Chorus\""),
        (#"[1, 2]"#, ": expected an object, found a list"),
    ])
    func fieldErrorsSayWhere(text: String, expected: String) {
        do {
            _ = try Sidecar.decode(Data(text.utf8))
            Issue.record("decoded \(text)")
        } catch {
            #expect("\(error.field): \(error.message)" == expected)
        }
    }

    /// `loopEnds` reads loop ends as `time(of:)` and `describe(_:)` do, from a lookup made once: a
    /// time, a live marker, a removed one (its tombstone) and an id no marker has.
    @Test func loopEndsReadAsTheSidecarDoes() {
        var s = Sidecar()
        s.markers = [Marker(id: "a", name: "Verse", time: 12.5), Sidecar.tombstone(of: Marker(id: "b", name: "Gone", time: 20)),
                     Marker(id: "c", name: "Bridge", time: 40)]
        let points: [LoopPoint] = [.time(3.25), .marker("a"), .marker("b"), .marker("c"), .marker("nobody")]
        let ends = s.loopEnds
        #expect(points.map(ends.time(of:)) == points.map(s.time(of:)))
        #expect(points.map(ends.describe) == points.map(s.describe))
        #expect(points.map(ends.time(of:)) == [3.25, 12.5, nil, 40, nil])
        #expect(points.map(ends.describe) == ["0:03.250", "Verse", "(removed marker)", "Bridge", "(removed marker)"])
    }

    /// A fingerprint is Chromaprint's URL-safe base64 and nothing else: standard base64's `+`, `/`
    /// and padding, a space, letters and digits outside ASCII (a fullwidth A, an accented letter
    /// written as one character or as a letter and a combining accent, an Arabic-Indic three) and
    /// an empty one are refused in one line naming the field; every character of the alphabet is
    /// taken. (The check reads bytes: a day-long track's fingerprint is 340 kB.)
    @Test(arguments: ["AQ+B", "AQ/B", "AQAB=", "AQ AB", "AQ\u{e9}B", "AQA\u{301}B", "AQ\u{ff21}B", "AQ\u{663}B", "AQ\u{0}B", ""])
    func aFingerprintOutsideBase64URLIsRefused(fingerprint: String) throws {
        func text(_ fingerprint: String) -> Data {
            var quoted: [UInt8] = []
            JSONValue.quote(fingerprint, into: &quoted)
            let f = String(decoding: quoted, as: UTF8.self)
            return Data(#"{"format": "practice-markers", "version": 1, "audio": {"fileName": "a.flac", "duration": 1, "pcm": {"sampleRate": 44100, "channels": 2, "frames": 44100, "sha256": "43c6aa14c0a6e7d2f0a9bd4c3c7bb1b0c4f4a1d6f56ba0c3b1b8e0a7d2a0e9f1"}, "chromaprint": {"algorithm": 1, "fingerprint": \#(f)}}}"#.utf8)
        }
        do {
            _ = try Sidecar.decode(text(fingerprint))
            Issue.record("read \(fingerprint.unicodeScalars.map { String($0.value, radix: 16) })")
        } catch {
            #expect("\(error.field): \(error.message)" == "audio.chromaprint.fingerprint: expected Chromaprint's base64 text (letters, digits, - and _)")
        }
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        #expect(try Sidecar.decode(text(alphabet)).audio?.chromaprint?.fingerprint == alphabet)
    }

    /// Markers are read from the bytes straight into `Marker`s (`JSONValue.parse(_:splitting:item:)`
    /// with `JSONReader.marker()`), not through a dictionary or a list of members each: the same
    /// markers as the whole-way read, field for field, in any order, with unknown fields kept
    /// (nested, or 70 of them), a key written with escapes, tombstones, numbers in any JSON form;
    /// and what that way does not take is read the whole way, which reads it or names what is wrong.
    @Test func markersReadFromTheBytesAreTheWholeWayReadsMarkers() throws {
        let many = (0..<70).map { #""x\#($0)": \#($0)"# }.joined(separator: ", ")
        let markers = [
            #"{"time": 2, "name": "B", "id": "b", "shape": {"k": [true]}}"#,
            ##"{"id": "a", "n\u0061me": "A \"quoted\"\ttab", "time": 1.5e1, "note": "Ünïcödé ✨", "color": "#ff8800", "author": "Ana", "updatedAt": "2026-01-02T03:04:05.678Z", \##(many)}"##,
            #"{"id": "t", "deleted": true, "updatedAt": "2026-01-01T00:00:00.000Z"}"#,
            #"{"deleted": false, "id": "z", "name": "zero", "time": 0, "zz": null}"#,
        ]
        let text = #"{"format": "practice-markers", "version": 1, "zNext": [1], "markers": [\#(markers.joined(separator: ", "))], "loops": [{"id": "l", "name": "AB", "start": "A \"quoted\"\ttab", "end": "b"}]}"#
        let data = Data(text.utf8)
        let whole = try Sidecar.decode(JSONValue.parse(data))
        // Read that way itself, not the whole-way read `decode(_:)` falls back on (had that way
        // failed, `decode(_:)` would still give the same sidecar).
        let split = try JSONValue.parse(data, splitting: "markers") { (reader) throws(JSONSyntaxError) in try reader.marker() }
        #expect(split.root.keys.sorted() == ["format", "loops", "version", "zNext"])
        #expect(split.items == whole.markers)
        #expect(try Sidecar.decode(root: split.root, markers: split.items) == whole)
        #expect(try Sidecar.decode(data) == whole)
        let read = try #require(split.items)
        #expect(read.map(\.name) == ["B", "A \"quoted\"\ttab", "", "zero"] && read.map(\.time) == [2, 15, 0, 0])
        #expect(read[1].extra.count == 70 && read[1].extra["x69"] == .number("69") && read[1].note == "Ünïcödé ✨" && read[1].author == "Ana")
        #expect(read[0].extra == ["shape": .object(["k": .array([.bool(true)])])] && read[3].extra == ["zz": .null])
        #expect(read[2].deleted && !read[3].deleted && read[0].updatedAt == "1970-01-01T00:00:00.000Z")
        #expect(whole.loops[0].start == .marker("a") && whole.loops[0].end == .marker("b"))

        func quick(_ text: String) throws -> [Marker]? {
            try JSONValue.parse(Data(text.utf8), splitting: "markers") { (reader) throws(JSONSyntaxError) in try reader.marker() }.items
        }
        #expect(try quick(#"{"format": "practice-markers", "version": 1}"#) == nil)
        // Not taken that way: something other than a list of markers, a null, a field of another
        // kind or out of range, a key twice (also spelled with an escape), a marker without its
        // name or time. The whole way reads what it can, as it always has.
        for marker in [#"{"id": "a", "name": "A", "time": 1, "note": null}"#, #"{"id": "a", "name": "A", "time": 1, "deleted": null}"#,
                       #"{"id": "a", "name": "A", "time": "1"}"#, #"{"id": "a", "name": "A", "time": -1}"#, #"{"id": "a", "name": "A", "time": 1e10}"#,
                       #"{"id": "a", "name": "A", "time": 1, "name": "B"}"#, #"{"id": "a", "name": "A", "time": 1, "n\u0061me": "B"}"#,
                       #"{"id": "a", "time": 1}"#, #"{"id": "a", "name": "A"}"#, #"{}"#, #"3"#] {
            let text = #"{"format": "practice-markers", "version": 1, "markers": [\#(marker)]}"#
            #expect(throws: JSONSyntaxError.self) { try quick(text) }
            let fast = Result { () throws(SidecarFormatError) in try Sidecar.decode(Data(text.utf8)) }
            let whole = Result { () throws(SidecarFormatError) in
                do { return try Sidecar.decode(JSONValue.parse(text)) } catch let e as JSONSyntaxError {
                    throw SidecarFormatError(field: "", message: e.message, line: e.line, column: e.column)
                } catch let e as SidecarFormatError { throw e } catch { preconditionFailure() }
            }
            #expect(fast.map(\.markers) == whole.map(\.markers), "\(marker)")
        }
        #expect(try Sidecar.decode(Data(#"{"format": "practice-markers", "version": 1, "markers": [{"id": "a", "name": "A", "time": 1, "note": null}]}"#.utf8)).markers[0].note == nil)
        for other in [#""markers": null"#, #""markers": {}"#] { #expect(throws: JSONSyntaxError.self) { try quick(#"{"version": 1, \#(other)}"#) } }
        #expect(throws: JSONSyntaxError.self) { try quick("[1]") }
        // A key written twice in a marker is the whole way's error, at its place.
        let twice = Data(#"{"format": "practice-markers", "version": 1, "markers": [{"id": "a", "name": "A", "time": 1, "name": "B"}]}"#.utf8)
        #expect(throws: SidecarFormatError(field: "", message: "duplicate key \"name\"", line: 1, column: 94)) { try Sidecar.decode(twice) }
        // 20 keys, the last one again: past 16 keys they are looked up in a set.
        let long = "{" + (0..<20).map { #""k\#($0)": 0, "# }.joined() + #""k19": 1}"#
        #expect(throws: JSONSyntaxError(line: 1, column: 192, message: "duplicate key \"k19\"")) { try JSONValue.parse(long) }
    }

    @Test func handWrittenLoopEndsNamingMarkersBecomeIds() throws {
        let s = try Sidecar.decode(Data(#"{"format": "practice-markers", "version": 1, "markers": [{"id": "m1", "name": "Chorus", "time": 30}], "loops": [{"name": "c", "start": "chorus", "end": 40}]}"#.utf8))
        #expect(s.loops[0].start == .marker("m1"))
        #expect(s.time(of: s.loops[0].start) == 30)
        #expect(s.loops[0].updatedAt == "1970-01-01T00:00:00.000Z" && !s.loops[0].id.isEmpty)
    }

    @Test(arguments: [
        ("", "a marker name cannot be empty or only spaces"),
        ("   ", "a marker name cannot be empty or only spaces"),
        ("1:23", "'1:23' looks like a time; a marker name needs a letter or symbol too"),
        ("83.5", "'83.5' looks like a time; a marker name needs a letter or symbol too"),
        ("+0.5", "'+0.5' looks like a time; a marker name needs a letter or symbol too"),
        ("chorus", "there is already a marker named 'Chorus' (names ignore case)"),
        (" CHORUS ", "there is already a marker named 'Chorus' (names ignore case)"),
        ("a\tb", "a marker name cannot contain a tab or a line break: 'a\tb'"),
    ])
    func badNamesAreRefused(name: String, message: String) throws {
        var s = Sidecar()
        try s.addMarker(name: "Chorus", time: 30, duration: 60)
        #expect(throws: PracticeError(.usage, message)) { try s.addMarker(name: name, time: 10, duration: 60) }
    }

    @Test func editsKeepLoopsWorking() throws {
        var s = Sidecar()
        try s.addMarker(name: "Verse", time: 10, duration: 60)
        try s.addMarker(name: "Chorus", time: 30.5, duration: 60)
        #expect(throws: PracticeError(.usage, "the time 1:01.000 is past the end of the track (1:00.000)")) {
            try s.addMarker(name: "Outro", time: 61, duration: 60)
        }
        let loop = try s.addLoop(name: "verse loop", from: "verse", to: "CHORUS", duration: 60)
        #expect(loop.start == .marker(s.markers[0].id))
        #expect(throws: PracticeError(.usage, "a loop must end after it starts ('Chorus' is 0:30.500, '0:20' is 0:20.000)")) {
            try s.addLoop(name: "backwards", from: "Chorus", to: "0:20", duration: 60)
        }
        try s.renameMarker("Verse", to: "Verse 1")
        #expect(s.describe(s.loops[0].start) == "Verse 1")
        try s.moveMarker("verse 1", .by(-0.25), duration: 60)
        #expect(s.time(of: s.loops[0].start) == 9.75)
        #expect(throws: PracticeError(.usage, "the new time cannot be before the start (-0.25 s)")) {
            try s.moveMarker("Verse 1", .to(-0.25), duration: 60)
        }
        try s.removeMarker(named: "chorus")
        #expect(s.loops[0].end == .time(30.5))
        #expect(s.markers[1].deleted && s.liveMarkers.map(\.name) == ["Verse 1"])
        #expect(throws: PracticeError(.usage, "no marker named 'Chorus' (there are 'Verse 1')")) { try s.removeMarker(named: "Chorus") }
        // A tombstone frees the name.
        try s.addMarker(name: "Chorus", time: 31, duration: 60)
    }

    /// After a merge two markers may share a name: each can still be picked, by its time, its
    /// place among those of that name, or its id's start; the name alone is refused, saying how.
    @Test func markersThatShareANameCanEachBePicked() throws {
        var s = Sidecar()
        s.markers = [Marker(id: "9f1c2d3e-0000-4000-8000-000000000001", name: "Intro", time: 2, author: nil),
                     Marker(id: "4b7a0c11-0000-4000-8000-000000000002", name: "intro", time: 5.25, author: nil),
                     Marker(id: "4b7a99aa-0000-4000-8000-000000000003", name: "Verse", time: 9, author: nil)]
        #expect(throws: PracticeError(.usage, "2 markers are named 'Intro': say which, as 'Intro#1' (0:02.000), 'Intro#2' (0:05.250), or '@TIME'")) {
            try s.markerIndex(named: "intro")
        }
        #expect(try s.markerIndex(named: "Intro#2") == 1)
        #expect(try s.markerIndex(named: "INTRO #1") == 0)
        #expect(try s.markerIndex(named: "@0:05") == 1, "the nearest, within half a second")
        #expect(try s.markerIndex(named: "@2.4") == 0)
        #expect(try s.markerIndex(named: "0:05.25") == 1, "a bare time, as names are never times")
        #expect(try s.markerIndex(named: "9f1c") == 0)
        #expect(try s.markerIndex(named: "4b7a0c") == 1)
        #expect(try s.markerIndex(named: s.markers[2].id) == 2)
        #expect(throws: PracticeError(.usage, "2 markers have ids that start with '4b7a': give more of the id")) { try s.markerIndex(named: "4b7a") }
        #expect(throws: PracticeError(.usage, "no marker within 0.5 s of 0:07.000 (the nearest is 'intro' at 0:05.250)")) { try s.markerIndex(named: "@7") }
        #expect(throws: PracticeError(.usage, "'Intro#3': there are 2 markers named 'Intro'")) { try s.markerIndex(named: "Intro#3") }
        #expect(throws: PracticeError(.usage, "'@soon': after @ comes a time, such as @1:02.5")) { try s.markerIndex(named: "@soon") }
        // An id may start with digits: its start still picks it, though it also reads as a time.
        var digits = s
        digits.markers.append(Marker(id: "20481234-0000-4000-8000-000000000004", name: "Bridge", time: 20, author: nil))
        #expect(try digits.markerIndex(named: "2048") == 3)
        #expect(try digits.markerIndex(named: "9") == 2, "a time no id starts with")
        // Two markers equally near a time: neither is guessed.
        var tie = Sidecar()
        tie.markers = [Marker(name: "A", time: 0.1, author: nil), Marker(name: "B", time: 0.3, author: nil)]
        #expect(throws: PracticeError(.usage, "'A' at 0:00.100 and 'B' at 0:00.300 are equally near 0:00.200: pick one by name or id")) {
            try tie.markerIndex(named: "@0.2")
        }
        // The picks work for every edit.
        let was = try s.renameMarker("Intro#2", to: "Intro (turn)")
        #expect(was.time == 5.25 && s.markers[1].name == "Intro (turn)" && s.markers[0].name == "Intro")
        try s.moveMarker("@2", .by(0.5), duration: 60)
        #expect(s.markers[0].time == 2.5)
        try s.removeMarker(named: "9f1c")
        #expect(s.liveMarkers.map(\.name) == ["Intro (turn)", "Verse"])
    }

    @Test(arguments: [("+0.1", TimeChange.by(0.1)), ("-0.25", .by(-0.25)), ("1:12.5", .to(72.5)), ("-1:00", .by(-60))] as [(String, TimeChange)])
    func nudgesAndTimes(text: String, change: TimeChange) { #expect(TimeChange(text) == change) }
}

/// The JSON writer writes only numbers it can read back: every finite value, from the smallest to
/// the largest, comes back finite and within half a millisecond (or exactly, past 10¹² s).
@Suite struct JSONNumberTests {
    @Test func everyNumberWrittenReadsBack() throws {
        var values: [Double] = [0, -0.0, 0.0005, 0.0004999, 1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude, 1, 12.5, 83.123456,
                                999_999_999_999.999, 1e12, 1e15, 1e16, 1e300, 1e308, .greatestFiniteMagnitude]
        values += values.map { -$0 }
        var rng = SplitMix(seed: 42)
        for _ in 0..<20_000 {
            let d = Double(bitPattern: rng.next())
            if d.isFinite { values.append(d) }
        }
        for v in values {
            for written in [JSONValue.seconds(v), .double(v)] {
                let text = JSONValue.object(["t": written]).compact()
                let back = try #require(try JSONValue.parse(text).object?["t"]?.double, "\(v) wrote \(text)")
                #expect(back.isFinite, "\(v) wrote \(text)")
                #expect(abs(back - v) <= (v.magnitude < 1e12 ? 0.0005 : 0), "\(v) wrote \(text)")
            }
        }
    }

    /// Numbers our files hold are read without `strtod` (JSONValue.value(ofNumber:)): the value must be
    /// `Double(literal)`'s to the bit, for every literal of up to 15 digits with a point anywhere,
    /// either sign, and for those it leaves to `Double` (16 digits, exponents, a lone point).
    @Test func numbersReadDirectlyAreStrtodsToTheBit() {
        var literals = ["0", "-0", "0.0", "-0.000", "1", "12.5", "0.001", "0.1", "0.3", "83.123", "999999999999999",
                        "0.000000000000001", "9007199254740.993", "123456789012345", "1234567890.12345",
                        "1234567890123456", "0.0000000000000001", "1e5", "1.5E-3", "-2.5e+10", ".5", "5.", "-", "", "1.2.3", "+1"]
        var rng = SplitMix(seed: 7)
        for _ in 0..<200_000 {
            let digits = Int(rng.next() % 17) + 1                     // 1…17: past the 15 read directly
            var text = ""
            for _ in 0..<digits { text.append(Character(UnicodeScalar(UInt8(0x30 + rng.next() % 10)))) }
            let point = Int(rng.next() % UInt64(digits + 1))          // digits: no point
            if point < digits, point > 0 { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            if rng.next() % 2 == 0 { text = "-" + text }
            literals.append(text)
        }
        for literal in literals {
            let direct = JSONValue.value(ofNumber: literal)
            let strtod = Double(literal)
            #expect(direct?.bitPattern == strtod?.bitPattern, "\(literal): \(String(describing: direct)) against \(String(describing: strtod))")
        }
    }

    @Test func timecodesOfAnyNumberAreText() {
        #expect(Timecode.format(1e308, decimals: 3) == "≥ 100000:00:00")
        #expect(Timecode.format(.infinity) == "≥ 100000:00:00")
        #expect(Timecode.format(.nan) == "?")
        #expect(Timecode.format(359_999_999.5) == "99999:59:59.5")
    }
}

/// Where each track was left, per person: a round trip through the file, and a file that
/// cannot be read is reported, used for nothing and never written over.
@Suite struct ResumeStoreTests {
    let dir = ScratchDirectory("resume-store")

    @Test func savesAndReadsBackAPlace() throws {
        var store = ResumeStore(path: dir.file("state/resume.json"))
        #expect(store.problem == nil && store.point(for: "/music/a.flac") == nil)
        let point = ResumePoint(position: 72.125, rate: 0.8, pitch: -2, loop: .init(start: 30, end: 45.5, name: "chorus", isOn: false),
                                updatedAt: "2026-11-24T08:00:00Z")
        try store.save(point, for: "/music/a.flac")
        #expect(ResumeStore(path: dir.file("state/resume.json")).point(for: "/music/a.flac") == point)
        #expect(point.summary == "resumed at 1:12.1, 0.80×, -2 st")
        // A video's picture mirrored is kept too, and said.
        var mirrored = point
        mirrored.mirror = true
        try store.save(mirrored, for: "/music/b.mp4")
        #expect(ResumeStore(path: dir.file("state/resume.json")).point(for: "/music/b.mp4")?.mirror == true)
        #expect(mirrored.summary == "resumed at 1:12.1, 0.80×, -2 st, mirrored")
        try store.save(nil, for: "/music/a.flac")
        #expect(ResumeStore(path: dir.file("state/resume.json")).point(for: "/music/a.flac") == nil)
    }

    /// A track is one place whatever the path it is played by: through a link to its folder, with
    /// "." and "..". (Keyed as URL's resolvingSymlinksInPath
    /// and standardizedFileURL keyed it before, so that places saved then are found now.)
    @Test func aTrackIsFoundByAnyPathToIt() throws {
        try FileManager.default.createDirectory(atPath: dir.file("music/Dance"), withIntermediateDirectories: true)
        let song = dir.file("music/Dance/song.flac")
        try #require(FileManager.default.createFile(atPath: song, contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: dir.file("linked"), withDestinationPath: dir.file("music"))
        var store = ResumeStore(path: dir.file("links/resume.json"))
        let point = ResumePoint(position: 12.5, rate: 0.9, pitch: 0, loop: nil, updatedAt: "2026-12-04T19:00:00Z")
        try store.save(point, for: dir.file("linked/Dance/../Dance/./song.flac"))
        let real = try #require(Path.resolved(song))
        #expect(String(decoding: ReadableFile.wholeFile(dir.file("links/resume.json")) ?? [], as: UTF8.self).contains("\"\(real)\""))
        #expect(ResumeStore(path: dir.file("links/resume.json")).point(for: song) == point)
        // A track that is gone keeps its place under its tidied path. (Relative paths are taken
        // from the working folder, which a test does not change: the suites run beside it.)
        try store.save(point, for: dir.file("music/Dance/../Gone/./x.flac"))
        #expect(ResumeStore(path: dir.file("links/resume.json")).point(for: dir.file("music/Gone/x.flac")) == point)
    }

    @Test func anUnreadableFileIsKept() throws {
        let path = dir.file("resume.json")
        try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
        var store = ResumeStore(path: path)
        #expect(store.problem == "\(path):1:3: unexpected 'n'; expected a key in double quotes; not resuming, and not saving where you stop")
        try store.save(ResumePoint(position: 1, rate: 1, pitch: 0, loop: nil), for: "/music/a.flac")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{ not json")
    }
}

/// What a writer killed part-way leaves is removed by the next writer once its process is gone,
/// and a killed process its parent has not reaped yet (a zombie, which `kill(pid, 0)` still
/// finds) counts as gone; a live one's file stays.
@Suite struct AbandonedFileTests {
    let dir = ScratchDirectory("abandoned")

    @Test func aZombieWritersTemporaryFileIsRemovedAndALiveOnesKept() throws {
        let song = dir.file("song.wav")
        let zombie = try Spawned("/bin/true", [], environment: [:])
        defer { _ = zombie.wait() }
        // Not reaped: it stays a zombie until `wait`.
        try eventually("/bin/true to exit") {
            (try? String(contentsOfFile: "/proc/\(zombie.pid)/stat", encoding: .utf8))?.split(separator: ")").last?.dropFirst().first == "Z"
        }
        #expect(kill(zombie.pid, 0) == 0, "the zombie is still found by kill")
        let left = dir.file(".song.wav.practice.json.tmp-\(zombie.pid)-1"), live = dir.file(".song.wav.practice.json.tmp-\(getppid())-2")
        for path in [left, live] { try Data().write(to: URL(fileURLWithPath: path)) }
        AtomicFile.removeLeftovers(of: song + ".practice.json")
        #expect(!FileManager.default.fileExists(atPath: left))
        #expect(FileManager.default.fileExists(atPath: live))
    }
}
