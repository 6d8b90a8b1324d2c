// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// A song's lyrics: synced lines (with word stamps where the file has them) or the text of an
/// unsynced file, and the file's header tags. Read from LRC files (`LRC.parse`).
public struct Lyrics: Sendable, Equatable {
    /// A word of an enhanced (A2) line: where it starts and its text as in the file, spaces
    /// included, so that a line's words joined give its text.
    public struct Word: Sendable, Equatable {
        public var time: Double
        public var text: String
        public init(time: Double, text: String) { self.time = time; self.text = text }
    }

    /// A synced line: when it starts, its text without stamps, and its words (none without word stamps).
    public struct Line: Sendable, Equatable {
        public var time: Double
        public var text: String
        public var words: [Word]
        public init(time: Double, text: String, words: [Word] = []) { self.time = time; self.text = text; self.words = words }
    }

    /// Synced lines sorted by effective time (stable for equal times); times in seconds on the source timeline, the file's [offset:] already applied.
    public var lines: [Line]
    /// Text of an unsynced file (no stamps), line by line.
    public var plain: [String]
    /// Header tags: ar, ti, al, au, length, by, re, ve … (lower-cased keys). `offset` is not kept:
    /// it is folded into the times.
    public var tags: [String: String]

    public init(lines: [Line] = [], plain: [String] = [], tags: [String: String] = [:]) {
        self.lines = lines; self.plain = plain; self.tags = tags
    }

    public var isSynced: Bool { !lines.isEmpty }

    /// The index of the line heard at `t`: the last line whose time ≤ t (nil before the first).
    public func lineIndex(at t: Double) -> Int? {
        Self.lastIndex(in: lines.count, atOrBefore: t) { lines[$0].time }
    }

    /// Within line `i`, the last word whose time ≤ t (nil if the line has no word stamps or t is before its first word).
    public func wordIndex(inLine i: Int, at t: Double) -> Int? {
        guard lines.indices.contains(i) else { return nil }
        let words = lines[i].words
        return Self.lastIndex(in: words.count, atOrBefore: t) { words[$0].time }
    }

    /// Every time (lines and words) moved by `seconds` (positive = later); times stay ≥ 0.
    public func shifted(by seconds: Double) -> Lyrics {
        func move(_ t: Double) -> Double { max(0, Sidecar.milliseconds(t + seconds)) }
        var out = self
        for k in out.lines.indices {
            out.lines[k].time = move(out.lines[k].time)
            for j in out.lines[k].words.indices { out.lines[k].words[j].time = move(out.lines[k].words[j].time) }
        }
        return out
    }

    /// Where line `i` ends: the next later line's time, or `duration` after the last one.
    public func endOfLine(_ i: Int, duration: Double) -> Double {
        lines[(i + 1)...].first { $0.time > lines[i].time }?.time ?? duration
    }

    /// Binary search over times sorted ascending: the last index whose time ≤ t.
    private static func lastIndex(in count: Int, atOrBefore t: Double, time: (Int) -> Double) -> Int? {
        var lo = 0, hi = count   // the first index whose time > t lies in lo...hi
        while lo < hi {
            let mid = (lo + hi) / 2
            if time(mid) <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }
}
