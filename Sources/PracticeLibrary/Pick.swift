// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeJournal

/// Today's pick: one track to practise, the same all day.
public struct TodaysPick: Sendable, Equatable {
    public var track: LibraryTrack
    /// `chorus loop, last practised 9 days ago`.
    public var reason: String
    /// The loop the reason names, and where it starts.
    public var loop: String?
    public var from: Double?

    public init(track: LibraryTrack, reason: String, loop: String? = nil, from: Double? = nil) {
        self.track = track; self.reason = reason; self.loop = loop; self.from = from
    }

    /// How long ago a track must have been practised to be picked before ones practised since.
    public static let lately: Double = 3 * 86400

    /// The pick among `tracks` for the day `now` falls on (local time). Tracks with markers or
    /// loops are the candidates (every track, when none has any); of those, the ones not
    /// practised within `lately` (else the least recently practised); of those, one chosen by a
    /// hash of the day and the path, so that it changes every day and not during one.
    /// `practised` gives when a track was last practised (nil: never).
    /// `firstLoop` gives a track's first loop (its name and start).
    public static func choose(among tracks: [LibraryTrack], now: Date = Date(), practised: (LibraryTrack) -> Date?,
                              firstLoop: (LibraryTrack) -> (name: String, time: Double?)?) -> TodaysPick? {
        guard !tracks.isEmpty else { return nil }
        let marked = tracks.filter { $0.markerCount + $0.loopCount > 0 }
        let pool = marked.isEmpty ? tracks : marked
        let seen = pool.map { ($0, practised($0)) }
        var rested = seen.filter { $0.1.map { now.timeIntervalSince($0) >= lately } ?? true }
        if rested.isEmpty {
            let oldest = seen.compactMap(\.1).min()!
            rested = seen.filter { $0.1 == oldest }
        }
        let day = Day(now).description
        let (track, last) = rested.min { hash(day + $0.0.path) < hash(day + $1.0.path) }!
        var parts: [String] = []
        var from: Double?, loopName: String?
        if track.loopCount > 0, let loop = firstLoop(track) {
            parts.append("\(loop.name) loop")
            from = loop.time
            loopName = loop.name
        } else if track.markerCount > 0 {
            parts.append("\(track.markerCount) marker\(track.markerCount == 1 ? "" : "s")")
        }
        if let last {
            let days = Int(now.timeIntervalSince(last) / 86400)
            parts.append(days == 0 ? "last practised today" : days == 1 ? "last practised yesterday" : "last practised \(days) days ago")
        } else {
            parts.append("not practised yet")
        }
        return TodaysPick(track: track, reason: parts.joined(separator: ", "), loop: loopName, from: from)
    }

    /// FNV-1a over the UTF-8 bytes: the same every run (Swift's `Hasher` is seeded per process).
    static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// `2026-11-20T10:01:00.123Z` (as sidecars and resume points write them) → a date.
    public static func date(rfc3339 s: String) -> Date? {
        let b = Array(s.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var n = 0
            for k in from..<(from + count) {
                guard (48...57).contains(b[k]) else { return nil }
                n = n * 10 + Int(b[k] - 48)
            }
            return n
        }
        guard b.count >= 20, let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2),
              let h = number(11, 2), let mi = number(14, 2), let sec = number(17, 2), b.last == UInt8(ascii: "Z") else { return nil }
        var parts = tm()
        parts.tm_year = Int32(y - 1900); parts.tm_mon = Int32(mo - 1); parts.tm_mday = Int32(d)
        parts.tm_hour = Int32(h); parts.tm_min = Int32(mi); parts.tm_sec = Int32(sec)
        return Date(timeIntervalSince1970: Double(timegm(&parts)))
    }
}

extension LibraryIndex {
    /// The first loop of the track with `id` in its sidecar: its name and start.
    public func firstLoop(of id: Int64) -> (name: String, time: Double?)? {
        try? db.read { db in
            try db.row(sql: "SELECT name, time FROM entry WHERE trackId = ? AND kind = 'loop' ORDER BY id LIMIT 1", arguments: [id])
                .map { (name: $0["name"], time: $0["time"]) }
        }
    }

    /// Today's pick among the tracks in the index, "practised" meaning a resume point saved
    /// or a session in the journal.
    public func pick(now: Date = Date(), practised: (LibraryTrack) -> Date?) throws(PracticeError) -> TodaysPick? {
        try pick(among: try tracks(), now: now, practised: practised)
    }

    /// Today's pick among `tracks`: the one chosen first today while it is still among them (kept
    /// in the index), so that practising it, or marking another track, does not change it during
    /// the day; else chosen now and kept. Its reason is told as things are now.
    public func pick(among tracks: [LibraryTrack], now: Date = Date(), practised: (LibraryTrack) -> Date?) throws(PracticeError) -> TodaysPick? {
        let day = Day(now).description
        let kept = (try? db.read { try $0.value(String.self, sql: "SELECT path FROM pick WHERE day = ?", arguments: [day]) }) ?? nil
        if let kept, let track = tracks.first(where: { $0.path == kept }) {
            return TodaysPick.choose(among: [track], now: now, practised: practised) { firstLoop(of: $0.id) }
        }
        let pick = TodaysPick.choose(among: tracks, now: now, practised: practised) { firstLoop(of: $0.id) }
        if let pick {
            // Best effort: an index we cannot write only loses the keeping.
            try? db.write { db in
                try db.execute(sql: "DELETE FROM pick WHERE day <> ?", arguments: [day])
                try db.execute(sql: "INSERT OR REPLACE INTO pick (day, path) VALUES (?, ?)", arguments: [day, pick.track.path])
            }
        }
        return pick
    }
}
