// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials

/// How the times of one copy of a song (the reference: the copy a sidecar's times belong to) land
/// on another copy: one offset, or, where a section was cut or added, one offset for each part.
/// Found from the two copies' fingerprints (the engine's `Alignment`); specified in
/// `Formats/practice-sidecar.md`, "Other copies of the song".
public struct TimeMap: Sendable, Equatable {
    /// From `start` (seconds on the reference) up to the next piece's start, a time on the
    /// reference is `offset` seconds later on this copy; nil: audio this copy does not have.
    public struct Piece: Sendable, Equatable {
        public var start: Double
        public var offset: Double?
        public init(start: Double, offset: Double?) { self.start = start; self.offset = offset }
    }

    /// By `start`; the first covers everything before its start too.
    public var pieces: [Piece]
    /// The share of fingerprint bits that agree where the copies were matched (0–1; another
    /// encode of the same audio scores 0.9 and more, another song about 0.5–0.6).
    public var similarity: Double
    /// Seconds of music matched between the two copies.
    public var matched: Double
    /// This copy's length in seconds: times mapped outside it are audio this copy does not have.
    public var duration: Double
    /// Whether the match is good enough, over enough music, to move markers by it.
    public var isConfident: Bool
    /// Read from where an earlier open kept it (its notice was said then): not part of the map.
    public var kept = false

    public static func == (a: TimeMap, b: TimeMap) -> Bool {
        a.pieces == b.pieces && a.similarity == b.similarity && a.matched == b.matched && a.duration == b.duration && a.isConfident == b.isConfident
    }

    public init(pieces: [Piece], similarity: Double, matched: Double, duration: Double, isConfident: Bool) {
        self.pieces = pieces; self.similarity = similarity; self.matched = matched; self.duration = duration
        self.isConfident = isConfident
    }

    /// One offset for the whole song.
    public init(offset: Double, similarity: Double, matched: Double, duration: Double, isConfident: Bool) {
        self.init(pieces: [Piece(start: 0, offset: offset)], similarity: similarity, matched: matched,
                  duration: duration, isConfident: isConfident)
    }

    /// Where a reference time lands on this copy.
    public enum Place: Sendable, Equatable {
        /// At this time.
        case at(Double)
        /// Its audio is not on this copy (cut, or past an end); `near` is where the cut is.
        case missing(near: Double)

        public var time: Double { switch self { case .at(let t), .missing(near: let t): t } }
    }

    /// The piece that holds reference time `t`.
    private func index(of t: Double) -> Int {
        var k = 0
        while k + 1 < pieces.count && pieces[k + 1].start <= t { k += 1 }
        return k
    }

    /// Where the music at reference time `t` is on this copy.
    public func place(_ t: Double) -> Place {
        let k = index(of: t)
        guard let offset = pieces[k].offset else {
            // A cut: the place where the audio before it ends on this copy.
            let before = pieces[..<k].last { $0.offset != nil }
            let at = before.map { pieces[k].start + $0.offset! } ?? 0
            return .missing(near: Sidecar.milliseconds(min(max(at, 0), duration)))
        }
        let u = Sidecar.milliseconds(t + offset)
        if u < 0 || u > duration { return .missing(near: Sidecar.milliseconds(min(max(u, 0), duration))) }
        return .at(u)
    }

    /// The reference time of this copy's time `u` (the way back, for edits made on this copy). A
    /// time in audio the reference does not have (a section this copy adds) goes to the nearest
    /// place the reference has.
    public func reference(_ u: Double) -> Double {
        var best: (distance: Double, time: Double)?
        for (k, piece) in pieces.enumerated() {
            guard let offset = piece.offset else { continue }
            let from = k == 0 ? -Double.infinity : piece.start
            let to = k + 1 < pieces.count ? pieces[k + 1].start : .infinity
            let t = u - offset
            let clamped = min(max(t, from), to)
            let distance = abs(clamped - t)
            if best.map({ distance < $0.distance }) ?? true { best = (distance, clamped) }
        }
        return Sidecar.milliseconds(max(best?.time ?? u, 0))
    }

    /// The offset where the song starts (for things timed as a whole, such as the lyrics' shift).
    public var leadingOffset: Double { pieces.first { $0.offset != nil }?.offset ?? 0 }

    /// Whether it moves nothing.
    public var isIdentity: Bool { pieces.allSatisfy { $0.offset == 0 } }

    /// `+1.250 s`, or for a cut `+0.020 s, then −15.980 s from 1:02.300 (16.000 s cut)`.
    public var summary: String {
        func signed(_ x: Double) -> String { (x >= 0 ? "+" : "−") + JSONValue.formatMilliseconds(abs(x)).fixedMilliseconds + " s" }
        var parts: [String] = []
        var last: Double?
        for (k, p) in pieces.enumerated() {
            guard let o = p.offset else { continue }
            if k == 0 || last == nil {
                parts.append(signed(o))
            } else if let l = last {
                let change = o - l
                let what = change < 0 ? "\(JSONValue.formatMilliseconds(-change).fixedMilliseconds) s cut" : "\(JSONValue.formatMilliseconds(change).fixedMilliseconds) s added"
                parts.append("then \(signed(o)) from \(Timecode.format(p.start, decimals: 3)) (\(what))")
            }
            last = o
        }
        return parts.joined(separator: ", ")
    }

    /// "match 96 %".
    public var score: String { "match \(Int((similarity * 100).rounded(.down))) %" }

    /// The score, and for a close match over too little music (a tone, a short clip), how little.
    public var verdict: String {
        isConfident || similarity < 0.85 ? score : "\(score), but over only \(JSONValue.formatMilliseconds(matched)) s of music"
    }
}

extension String {
    /// `1.25` → `1.250`: seconds always with three decimals.
    var fixedMilliseconds: String {
        guard let dot = firstIndex(of: ".") else { return self + ".000" }
        let decimals = distance(from: dot, to: endIndex) - 1
        return self + String(repeating: "0", count: max(0, 3 - decimals))
    }
}

// MARK: Keeping it (the engine caches the map it found for a copy)

extension TimeMap {
    public var json: JSONValue {
        .object([
            "pieces": .array(pieces.map { p in
                var o: [String: JSONValue] = ["start": .seconds(p.start)]
                o["offset"] = p.offset.map(JSONValue.seconds) ?? .null
                return .object(o)
            }),
            "similarity": .number(cFormat("%.4f", similarity)),
            "matched": .seconds(matched),
            "duration": .seconds(duration),
            "confident": .bool(isConfident),
        ])
    }

    public init?(json: JSONValue) {
        guard let o = json.object, let items = o["pieces"]?.array, !items.isEmpty,
              let similarity = o["similarity"]?.double, let matched = o["matched"]?.double,
              let duration = o["duration"]?.double, let confident = o["confident"]?.bool else { return nil }
        var pieces: [Piece] = []
        for item in items {
            guard let p = item.object, let start = p["start"]?.double else { return nil }
            pieces.append(Piece(start: start, offset: p["offset"]?.double))
        }
        self.init(pieces: pieces, similarity: similarity, matched: matched, duration: duration, isConfident: confident)
    }
}

// MARK: A sidecar on another copy

extension Sidecar {
    /// This sidecar (its times on the reference copy) with every time moved onto another copy:
    /// markers (tombstones too), loop ends that are times, the last position and the lyrics'
    /// shift. Returns the ids of the live markers whose audio that copy does not have (they are
    /// put where the cut is).
    public func placed(by map: TimeMap) -> (sidecar: Sidecar, missing: [String]) {
        var out = self
        var missing: [String] = []
        for k in out.markers.indices {
            let place = map.place(out.markers[k].time)
            out.markers[k].time = place.time
            if case .missing = place, !out.markers[k].deleted { missing.append(out.markers[k].id) }
        }
        func move(_ p: LoopPoint) -> LoopPoint {
            if case .time(let t) = p { return .time(map.place(t).time) }
            return p
        }
        for k in out.loops.indices {
            out.loops[k].start = move(out.loops[k].start)
            out.loops[k].end = move(out.loops[k].end)
        }
        if var b = out.beats {
            b.times = b.times.map { map.place($0).time }
            b.one = map.place(b.one).time
            out.beats = b
        }
        if var s = out.settings {
            if let p = s.position { s.position = map.place(p).time }
            let shift = Sidecar.milliseconds((s.lyricsShift ?? 0) + map.leadingOffset)
            if shift != 0 || s.lyricsShift != nil { s.lyricsShift = shift }
            out.settings = s
        } else if map.leadingOffset != 0 {
            out.settings = PracticeSettings(lyricsShift: map.leadingOffset)
        }
        return (out, missing)
    }

    /// `edited` (this sidecar `placed` on another copy, then edited there) back on the
    /// reference's timeline, `self` being the sidecar as read: what was not edited keeps its
    /// reference time exactly (so a copy's edits never move anybody else's markers), and what
    /// was is moved back by `map`.
    public func unplaced(_ edited: Sidecar, placed: Sidecar, by map: TimeMap) -> Sidecar {
        var out = edited
        let originals = Dictionary(markers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let shown = Dictionary(placed.markers.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for k in out.markers.indices {
            let m = out.markers[k]
            if let was = shown[m.id], let original = originals[m.id], was.time == m.time {
                out.markers[k].time = original.time
            } else {
                out.markers[k].time = map.reference(m.time)
            }
        }
        let originalLoops = Dictionary(loops.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let shownLoops = Dictionary(placed.loops.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func back(_ p: LoopPoint, was: LoopPoint?, original: LoopPoint?) -> LoopPoint {
            guard case .time(let t) = p else { return p }
            if let was, let original, was == p { return original }
            return .time(map.reference(t))
        }
        for k in out.loops.indices {
            let l = out.loops[k], was = shownLoops[l.id], original = originalLoops[l.id]
            out.loops[k].start = back(l.start, was: was?.start, original: original?.start)
            out.loops[k].end = back(l.end, was: was?.end, original: original?.end)
        }
        // The grid: as read unless it was changed on this copy (then moved back).
        if let b = out.beats {
            if b == placed.beats { out.beats = beats } else {
                var back = b
                back.times = b.times.map { map.reference($0) }
                back.one = map.reference(b.one)
                out.beats = back
            }
        }
        if var s = out.settings {
            let was = placed.settings, original = settings
            if let p = s.position {
                s.position = was?.position == p ? original?.position : map.reference(p)
            }
            if was?.lyricsShift == s.lyricsShift {
                s.lyricsShift = original?.lyricsShift
            } else if let shift = s.lyricsShift {
                s.lyricsShift = Sidecar.milliseconds(shift - map.leadingOffset)
            }
            out.settings = s == PracticeSettings() ? original : s
        }
        return out
    }
}
