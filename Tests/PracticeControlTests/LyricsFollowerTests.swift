// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import PracticeControl
import PracticeEngine
import PracticeDocuments

/// `practice lyrics --follow`'s logic on a simulated clock: a player heard at a rate, reporting its
/// position ten times a second (to the millisecond, a little late, as the control socket does),
/// seeks and loops; the follower must print each line within 20 ms of the moment it is heard.
@Suite struct LyricsFollowerTests {
    /// Lines every 0.3–1.3 s, two at the same time, one 40 ms after another.
    static let lyrics = Lyrics(lines: [0.5, 1.0, 2.2, 2.24, 3.0, 3.0, 4.1, 5.4, 6.0, 7.25, 8.0, 9.3].enumerated().map {
        Lyrics.Line(time: $0.element, text: "line \($0.offset + 1)")
    })

    /// A player: where it is heard at each wall time.
    struct Simulated {
        var heard: (Double) -> Double
        var rate: Double
        var playing = true
        var loop: StateEvent.Loop?
        func event(at wall: Double, latency: Double) -> StateEvent {
            let p = (heard(wall - latency) * 1000).rounded() / 1000   // eventLine keeps milliseconds
            return StateEvent(position: p, duration: 10, rate: rate, isPlaying: playing, loop: loop)
        }
    }

    /// Runs the follower against `player` from wall 0 to `until`, with reports every 100 ms (plus
    /// jitter) and the follower woken at the times it asks for; returns what it printed and when.
    func follow(_ player: Simulated, until: Double, seed: UInt64 = 1) -> [(wall: Double, line: Int)] {
        var follower = LyricsFollower(lyrics: Self.lyrics)
        var printed: [(Double, Int)] = []
        var random = seed
        func jitter() -> Double {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(random >> 40) / Double(1 << 24) * 0.012   // 0–12 ms
        }
        var nextReport = 0.0, now = 0.0
        while now < until {
            let due = follower.nextDue(after: now) ?? .infinity
            if nextReport <= due {
                now = nextReport
                printed += follower.receive(player.event(at: now, latency: 0.002 + jitter() / 4), at: now).map { (now, $0) }
                nextReport = now + 0.1 + jitter()
            } else {
                now = due
                printed += follower.advance(to: now).map { (now, $0) }
            }
        }
        return printed
    }

    @Test(arguments: [0.5, 0.8, 1.0, 1.5, 2.0])
    func everyLinePrintsOnceWithin20msOfBeingHeard(rate: Double) {
        let start = 0.3
        let player = Simulated(heard: { start + rate * max($0, 0) }, rate: rate)
        let printed = follow(player, until: (9.6 - start) / rate)
        #expect(printed.map(\.line) == Array(0..<Self.lyrics.lines.count))
        for (wall, k) in printed {
            let heardAt = (Self.lyrics.lines[k].time - start) / rate   // the wall time the line is heard
            #expect(wall >= heardAt - 0.001 && wall <= heardAt + 0.02, "line \(k + 1) printed at \(wall) s, heard at \(heardAt) s (\(rate)×)")
        }
    }

    /// A loop from 2.5 to 4.5 s at 0.8× after a lead-in from 1.8 s: each turn prints the line
    /// heard at the loop's start (line 4, begun at 2.24) again, then the lines inside the loop,
    /// each within 20 ms of being heard.
    @Test func aLoopPrintsTheLineAtItsStartOnEachTurn() {
        let rate = 0.8, a = 2.5, b = 4.5
        func heard(_ wall: Double) -> Double {
            let p = 1.8 + rate * max(wall, 0)
            return p < b ? p : a + (p - b).truncatingRemainder(dividingBy: b - a)
        }
        let player = Simulated(heard: heard, rate: rate, loop: StateEvent.Loop(start: a, end: b))
        let printed = follow(player, until: 8.3)   // the lead-in and three passes, the last to 4.44 s
        #expect(printed.map(\.line) == [1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3, 4, 5, 6])
        let lines = Self.lyrics.lines
        for (wall, k) in printed.dropFirst() {   // the first is the line current when it connected
            // The line heard (the last of those sharing its time), and since when, in 0.1 ms steps.
            let g = lines.lastIndex { $0.time == lines[k].time }!
            var since = wall
            while Self.lyrics.lineIndex(at: heard(since - 0.0001)) == g, since > wall - 1 { since -= 0.0001 }
            #expect(Self.lyrics.lineIndex(at: heard(since)) == g && wall - since <= 0.02, "line \(k + 1) printed at \(wall) s, heard since \(since) s")
        }
    }

    /// Seeks print the line that becomes current (also the same line again), once the report
    /// comes; small back-steps in the reports do not reprint; paused, every seek is one.
    @Test func seeksPrintTheCurrentLine() throws {
        var f = LyricsFollower(lyrics: Self.lyrics)
        func playing(_ p: Double, rate: Double = 1) -> StateEvent { StateEvent(position: p, duration: 10, rate: rate, isPlaying: true) }
        func paused(_ p: Double) -> StateEvent { StateEvent(position: p, duration: 10, isPlaying: false) }
        #expect(f.receive(paused(0.2), at: 0) == [])             // before the first line
        #expect(f.nextDue(after: 0) == nil)
        #expect(f.receive(paused(2.21), at: 1) == [2])
        #expect(f.receive(paused(2.215), at: 2) == [2])          // paused: even a small move is a seek
        #expect(f.receive(paused(2.215), at: 3) == [])           // the same report again is nothing
        #expect(f.receive(playing(2.215), at: 4) == [])          // playing on
        #expect(f.advance(to: 4.03) == [3])                      // 2.24 reached
        #expect(f.receive(playing(2.24), at: 4.1) == [])         // a report a little behind: no reprint
        #expect(f.advance(to: 4.2) == [])
        #expect(f.receive(playing(6.5), at: 4.3) == [8])         // a seek forward
        #expect(f.receive(playing(6.1), at: 4.4) == [8])         // back within the line: printed again
        #expect(f.receive(playing(0.1), at: 4.5) == [])          // before the first line: nothing
        #expect(f.receive(playing(0.4), at: 4.8) == [])
        #expect(f.advance(to: 4.9) == [0])
        #expect(abs(try #require(f.position(at: 4.9)) - 0.5) < 1e-9)
        // The player stops reporting: we do not run ahead for more than 200 ms.
        #expect(abs(try #require(f.position(at: 60)) - 0.6) < 1e-9)
        #expect(f.receive(StateEvent(position: 9.9, duration: 10, rate: 1, isPlaying: false, isFinished: true), at: 61) == [11])
        #expect(f.nextDue(after: 61) == nil)
    }

    /// A player that stalls (the machine is busy) reports late and behind the extrapolation, but
    /// not back from its last report: nothing is printed again, and the next line waits for it.
    @Test func aStalledPlayerIsNotASeek() {
        var f = LyricsFollower(lyrics: Self.lyrics)
        func playing(_ p: Double) -> StateEvent { StateEvent(position: p, duration: 10, rate: 1, isPlaying: true) }
        #expect(f.receive(playing(2.0), at: 0) == [1])
        #expect(f.advance(to: 0.3) == [2])          // 2.2 s reached by extrapolation (200 ms at most)
        #expect(f.receive(playing(2.02), at: 0.3) == [])   // 180 ms behind, not back: a stall
        #expect(f.advance(to: 0.4) == [])
        #expect(f.receive(playing(2.12), at: 0.4) == [])
        #expect(f.advance(to: 0.5205) == [3])        // 2.24 s: the next line, once
        #expect(f.receive(playing(1.9), at: 0.6) == [1])   // back from the last report: a seek

        // Reports held up (the player plays on): the lines passed meanwhile all print when one comes.
        f = LyricsFollower(lyrics: Self.lyrics)
        #expect(f.receive(playing(2.0), at: 0) == [1])
        #expect(f.advance(to: 0.3) == [2])
        #expect(f.receive(playing(2.5), at: 0.5) == [3])
        // Held up for more than a second, a report far ahead is a seek: only the line it lands in.
        #expect(f.receive(playing(6.5), at: 2) == [8])
    }

    /// Rate changes take effect at the report that carries them.
    @Test func aRateChangeKeepsTheTiming() throws {
        var f = LyricsFollower(lyrics: Self.lyrics)
        #expect(f.receive(StateEvent(position: 3.2, duration: 10, rate: 1, isPlaying: true), at: 0) == [5])
        #expect(abs(try #require(f.nextDue(after: 0)) - 0.9005) < 1e-9)   // 4.1 s in 0.9 s, and half a millisecond
        #expect(f.receive(StateEvent(position: 3.3, duration: 10, rate: 0.5, isPlaying: true), at: 0.1) == [])
        #expect(abs(try #require(f.nextDue(after: 0.1)) - 1.7005) < 1e-9)  // 0.8 s of source at 0.5×
    }
}
