// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeDocuments
import PracticeEngine
/// Follows a player from its state events (ten a second while playing) and says which lyric lines
/// to print and when: between events the heard position is extrapolated (position + rate ×
/// elapsed, turning at a loop's end), so a line is due the moment its time is reached, not at the
/// next event. A seek, or a loop's turn, prints the line that becomes current.
///
/// Pure logic on a caller's clock (seconds, any monotonic origin), so it is tested with a
/// simulated one; `practice lyrics --follow` drives it with a socket and `CLOCK_MONOTONIC`.
public struct LyricsFollower: Sendable {
    public let lyrics: Lyrics
    /// How far (seconds of source) a report may stray from the extrapolation before it counts as a
    /// seek. A report lags by the socket's polling at most; a seek moves much further.
    static let tolerance = 0.15
    /// How long (wall seconds) we extrapolate without a report: reports come every 100 ms while
    /// playing, so a longer silence means a stalled player or machine, which we do not run far ahead of.
    static let horizon = 0.2

    private var anchor: StateEvent?
    private var anchorTime = 0.0
    /// The position the last report gave (the anchor may be corrected from it).
    private var lastReported = 0.0
    /// Loop turns already acted on since the anchor.
    private var turns = 0
    /// The line printed last (nil: none yet, or the position is before the first line).
    private var shown: Int?
    /// The furthest position acted on since the last jump: small corrections back do not reprint.
    private var reached = 0.0

    public init(lyrics: Lyrics) { self.lyrics = lyrics }

    /// The heard position extrapolated to `now`, and how many times the loop turned since the last report.
    func extrapolated(to now: Double) -> (position: Double, turns: Int)? {
        guard let s = anchor else { return nil }
        guard s.isPlaying, !s.isFinished else { return (s.position, 0) }
        var p = s.position + s.rate * min(max(now - anchorTime, 0), Self.horizon)
        var w = 0
        if let loop = s.loop, !loop.isLastPass, loop.end > loop.start, s.position < loop.end, p >= loop.end {
            let length = loop.end - loop.start
            w = Int(((p - loop.start) / length).rounded(.down))
            p -= Double(w) * length
        }
        if s.duration > 0 { p = min(p, s.duration) }
        return (p, w)
    }

    /// The heard position extrapolated to `now` (nil before the first event).
    public func position(at now: Double) -> Double? { extrapolated(to: now)?.position }

    /// Takes a state event received at `now`; returns the lines (indices into `lyrics.lines`) to print now.
    public mutating func receive(_ event: StateEvent, at now: Double) -> [Int] {
        guard let old = anchor, let (predicted, w) = extrapolated(to: now) else {
            start(event, at: now)
            return jump(to: event.position)
        }
        var diff = event.position - predicted
        var loop = event.loop
        if let l = loop, let o = old.loop, l.start == o.start, l.end == o.end, l.end > l.start,
           (l.start...l.end).contains(event.position), (l.start...l.end).contains(predicted) {
            let length = l.end - l.start   // near the seam a report and the extrapolation may sit either side of it
            if diff > length / 2 { diff -= length } else if diff < -length / 2 { diff += length }
        } else if loop?.isLastPass == true || loop.map({ $0.end <= $0.start }) == true {
            loop = nil
        }
        let moving = event.isPlaying || old.isPlaying
        // Beyond where the last report and the time since (up to a second) could have taken it:
        // reports held up a little longer than the horizon are not a seek. Or back from the last report.
        let played = old.isPlaying && !old.isFinished ? old.rate * min(max(now - anchorTime, 0), 1) : 0
        let leapt = event.position > lastReported + played + Self.tolerance
        let wentBack = event.position < lastReported - 0.001
        if moving ? (diff > Self.tolerance && leapt) || (diff < -Self.tolerance && wentBack) : abs(diff) > 0.0005 {
            start(event, at: now)   // a seek (paused, any move is one)
            return jump(to: event.position)
        }
        if abs(diff) > Self.tolerance {
            // Far from the extrapolation, but not a seek: the player (or its reports) stalled while
            // we ran on, or reports were held up. Follow it from here; what was printed stays printed.
            start(event, at: now)
            return advance(to: now)
        }
        // The report agrees with the extrapolation: keep its phase (turns included), corrected by diff.
        var corrected = predicted + diff
        var turned = w > turns
        if let l = loop, predicted < l.end, corrected >= l.end {
            corrected -= l.end - l.start
            turned = true
        }
        var e = event
        e.position = corrected
        start(e, at: now)
        lastReported = event.position
        if turned { return jump(to: max(corrected, loop?.start ?? corrected)) }
        return advance(to: now)
    }

    /// The lines to print at `now` between events: every line passed since the last call, or the
    /// current one after a loop's turn.
    public mutating func advance(to now: Double) -> [Int] {
        guard let (raw, w) = extrapolated(to: now) else { return [] }
        if w > turns {
            turns = w
            return jump(to: raw)
        }
        reached = max(raw, reached)
        guard let current = lyrics.lineIndex(at: reached) else { return [] }
        let first = shown.map { $0 + 1 } ?? 0
        shown = current
        return first <= current ? Array(first...current) : []
    }

    /// When (on the caller's clock) the next line starts or the loop turns, while playing; nil when
    /// nothing is due (paused, finished, after the last line).
    public func nextDue(after now: Double) -> Double? {
        guard let s = anchor, s.isPlaying, !s.isFinished, let (raw, w) = extrapolated(to: now) else { return nil }
        if w > turns { return now }
        let p = max(raw, reached)
        var next = (lyrics.lineIndex(at: p) ?? -1) + 1
        while next < lyrics.lines.count, lyrics.lines[next].time <= p { next += 1 }
        var target = next < lyrics.lines.count ? lyrics.lines[next].time : nil
        if let loop = s.loop, !loop.isLastPass, loop.end > loop.start, s.position < loop.end {
            target = min(target ?? loop.end, loop.end)
        }
        guard let target, s.rate > 0 else { return nil }
        return now + (target - raw) / s.rate + 0.0005   // just past it, so that the line is current then
    }

    private mutating func start(_ event: StateEvent, at now: Double) {
        anchor = event
        anchorTime = now
        turns = 0
        lastReported = event.position
    }

    private mutating func jump(to position: Double) -> [Int] {
        reached = position
        shown = lyrics.lineIndex(at: position)
        return shown.map { [$0] } ?? []
    }
}
