// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl

/// What `--from`, `--to`, `--loop` and the `jump` command resolve names to: the times in the
/// track's sidecar.
@Suite struct PlacesTests {
    let dir = ScratchDirectory("places")

    func track() throws -> Track {
        let path = dir.file("song.wav")
        try Signals.write(Signals.sine(440, seconds: 10), to: path)
        let track = try Track.open(path).track
        try SidecarStore.update(for: track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Chorus", time: 4.25, duration: 10)
            try s.addMarker(name: "Outro", time: 8, duration: 10)
            try s.addLoop(name: "drill", from: "Chorus", to: "7.5", duration: 10)
        }
        return track
    }

    @Test func namesAndTimesResolve() throws {
        var places = Places(track: try track())
        #expect(try places.time("chorus", option: "--from") == 4.25)
        #expect(try places.time("1:02.5", option: "--from") == 62.5)
        #expect(try places.loop(["drill"], passes: 3) == LoopRange(start: 4.25, end: 7.5, passes: 3, name: "drill"))
        #expect(try places.loop(["Chorus", "Outro"], passes: nil) == LoopRange(start: 4.25, end: 8))
        #expect(places.warnings.isEmpty)
    }

    /// `line N` is the Nth synced line (in time order, the sidecar's lyrics shift applied); as an
    /// end it is where that line ends, so the line is heard whole. A marker called "line 2" wins.
    @Test func lyricLinesArePlaces() throws {
        let track = try track()
        try "[00:03.00]three\n[00:01.00]one\n[00:02.00]two\nstray\n[00:05.50]last\n".write(toFile: dir.file("song.lrc"), atomically: true, encoding: .utf8)
        var places = Places(track: track)
        #expect(try places.time("line 1", option: "--from") == 1)
        #expect(try places.time("LINE  3", option: "--from") == 3)
        #expect(try places.time("line 3", option: "--to", end: true) == 5.5)
        #expect(try places.time("line 4", option: "--to", end: true) == 10)   // the last line ends with the track
        #expect(try places.loop(["line 2", "line 3"], passes: 2) == LoopRange(start: 2, end: 5.5, passes: 2))
        #expect(try places.loop(["Chorus", "line 4"], passes: nil) == LoopRange(start: 4.25, end: 10))
        #expect(places.warnings == [#"\#(dir.file("song.lrc")):4: skipped "stray" (no time stamp)"#])
        #expect(throws: PracticeError(.usage, "--loop: no line 40 (\(dir.file("song.lrc")) has 4 lines)")) { try places.loop(["line 2", "line 40"], passes: nil) }
        #expect(throws: PracticeError(.usage, "--from: no line 0 (\(dir.file("song.lrc")) has 4 lines)")) { try places.time("line 0", option: "--from") }
        #expect(throws: PracticeError(.usage, "--from: no marker named 'line two' (there are 'Chorus', 'Outro')")) { try places.time("line two", option: "--from") }

        try SidecarStore.update(for: track) { (s: inout Sidecar) throws(PracticeError) in
            try s.addMarker(name: "Line 2", time: 7.125, duration: 10)
            s.settings = PracticeSettings(lyricsShift: 0.25)
        }
        places = Places(track: track)
        #expect(try places.time("line 2", option: "--from") == 7.125)
        #expect(try places.time("line 1", option: "--from") == 1.25)
        #expect(try places.time("line 3", option: "--to", end: true) == 5.75)
        // --lyrics: another file; unsynced or missing lyrics are errors that say so.
        try "[00:00.50]only\n".write(toFile: dir.file("other.lrc"), atomically: true, encoding: .utf8)
        places = Places(track: track, lyrics: dir.file("other.lrc"))
        #expect(try places.time("line 1", option: "--to", end: true) == 10)
        try "no stamps here\n".write(toFile: dir.file("plain.lrc"), atomically: true, encoding: .utf8)
        places = Places(track: track, lyrics: dir.file("plain.lrc"))
        #expect(throws: PracticeError(.usage, "--from: \(dir.file("plain.lrc")) has no time stamps (unsynced lyrics)")) { try places.time("line 1", option: "--from") }
        try FileManager.default.removeItem(atPath: dir.file("song.lrc"))
        places = Places(track: track)
        let path = dir.file("song.wav")
        #expect(throws: PracticeError(.noInput, "--loop: no lyrics for \(path) (looked for \(path).lrc, \(dir.file("song.lrc")))")) { try places.loop(["line 1", "line 2"], passes: nil) }
    }

    @Test func aTimeAloneIsNotALoop() throws {
        var places = Places(track: try track())
        #expect(throws: PracticeError(.usage, "--loop takes a loop's name, or a start and an end (got only '3')")) {
            try places.loop(["3"], passes: nil)
        }
        #expect(throws: PracticeError(.usage, "jump: no marker named 'Bridge' (there are 'Chorus', 'Outro')")) {
            try places.time("Bridge", option: "jump")
        }
    }
}
