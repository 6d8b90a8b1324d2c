import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeCore

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
