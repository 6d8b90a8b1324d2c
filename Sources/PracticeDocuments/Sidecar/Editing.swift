// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// A time typed by a user for `move`: absolute, or a nudge (`+0.1`, `-0.25`).
public enum TimeChange: Sendable, Equatable {
    case to(Double)
    case by(Double)

    public init?(_ text: String) {
        let t = text.trimmingWhitespace()
        if let sign = t.first, sign == "+" || sign == "-" {
            guard let v = Timecode.parse(String(t.dropFirst())) else { return nil }
            self = .by(sign == "-" ? -v : v)
        } else {
            guard let v = Timecode.parse(t) else { return nil }
            self = .to(v)
        }
    }
}

/// The edits the `markers` and `loops` commands make. Each checks what a person could get wrong
/// and says so in one line; `duration` is the track's, so times past its end are refused.
extension Sidecar {
    /// Checks a new name: not empty, not a time (so `--loop A B` can tell them apart), not taken.
    public static func checkName(_ name: String, kind: String, taken: some Sequence<String>) throws(PracticeError) -> String {
        let trimmed = name.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty else { throw PracticeError(.usage, "a \(kind) name cannot be empty or only spaces") }
        guard !trimmed.contains("\n"), !trimmed.contains("\t") else {
            throw PracticeError(.usage, "a \(kind) name cannot contain a tab or a line break: '\(trimmed)'")
        }
        if TimeChange(trimmed) != nil {
            throw PracticeError(.usage, "'\(trimmed)' looks like a time; a \(kind) name needs a letter or symbol too")
        }
        let folded = trimmed.lowercased()
        if let clash = taken.first(where: { $0.lowercased() == folded }) {
            throw PracticeError(.usage, "there is already a \(kind) named '\(clash)' (names ignore case)")
        }
        return trimmed
    }

    static func checkTime(_ t: Double, duration: Double, what: String) throws(PracticeError) -> Double {
        guard t.isFinite, t >= 0 else { throw PracticeError(.usage, "\(what) cannot be before the start (\(JSONValue.formatMilliseconds(t)) s)") }
        guard t <= duration else {
            throw PracticeError(.usage, "\(what) \(Timecode.format(t, decimals: 3)) is past the end of the track (\(Timecode.format(duration, decimals: 3)))")
        }
        return Sidecar.milliseconds(t)
    }

    /// The live marker a person means by `name`: its name (ignoring case); `@TIME` (or the bare
    /// time), the marker nearest that time (within half a second); `NAME#N`, the Nth by time of the markers that
    /// share a name (after a merge); or its id, or the id's first four or more characters. An
    /// error if none, or several, match.
    public func markerIndex(named name: String) throws(PracticeError) -> Int {
        try Self.pick(name, kind: "marker", among: markers.indices.filter { !markers[$0].deleted }.map {
            (index: $0, name: markers[$0].name, id: markers[$0].id, time: markers[$0].time)
        })
    }

    /// The live loop a person means by `name`, as `markerIndex` (`@TIME` is the loop's start).
    public func loopIndex(named name: String) throws(PracticeError) -> Int {
        let ends = loopEnds
        return try Self.pick(name, kind: "loop", among: loops.indices.filter { !loops[$0].deleted }.map {
            (index: $0, name: loops[$0].name, id: loops[$0].id, time: ends.time(of: loops[$0].start) ?? 0)
        })
    }

    /// How far from a marker `@TIME` may be and still pick it.
    static let pickTolerance = 0.5

    /// The one entry of `live` that `text` names (see `markerIndex`).
    private static func pick(_ text: String, kind: String, among live: [(index: Int, name: String, id: String, time: Double)]) throws(PracticeError) -> Int {
        let typed = text.trimmingWhitespace(), folded = typed.lowercased()
        let byTime = live.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        func at(_ t: Double) -> String { Timecode.format(t, decimals: 3) }
        if let exact = live.first(where: { $0.id == typed }) { return exact.index }
        let named = byTime.filter { $0.name.lowercased() == folded }
        if named.count == 1 { return named[0].index }
        if named.count > 1 {
            let choices = named.indices.map { "'\(named[0].name)#\($0 + 1)' (\(at(named[$0].time)))" }
            throw PracticeError(.usage, "\(named.count) \(kind)s are named '\(named[0].name)': say which, as \(choices.joined(separator: ", ")), or '@TIME'")
        }
        let idHits = folded.count >= 4 && folded.allSatisfy({ $0.isHexDigit || $0 == "-" }) ? live.filter { $0.id.lowercased().hasPrefix(folded) } : []
        // A name is never a time, so a bare time (`0:02`) means the same as `@0:02`, unless it is
        // the start of one marker's id (ids may begin with digits).
        if typed.hasPrefix("@") || Timecode.parse(typed) != nil && idHits.count != 1 {
            guard let t = Timecode.parse(typed.hasPrefix("@") ? String(typed.dropFirst()) : typed) else {
                throw PracticeError(.usage, "'\(typed)': after @ comes a time, such as @1:02.5")
            }
            func distance(_ x: Double) -> Int { Int((abs(x - t) * 1000).rounded()) }   // in ms: times are kept to the ms
            let nearest = byTime.sorted { (distance($0.time), $0.time) < (distance($1.time), $1.time) }
            guard let best = nearest.first, distance(best.time) <= Int(pickTolerance * 1000) else {
                let hint = nearest.first.map { " (the nearest is '\($0.name)' at \(at($0.time)))" } ?? " (there are none yet)"
                throw PracticeError(.usage, "no \(kind) within \(JSONValue.formatMilliseconds(pickTolerance)) s of \(at(t))\(hint)")
            }
            if nearest.count > 1, distance(nearest[1].time) == distance(best.time) {
                throw PracticeError(.usage, "'\(best.name)' at \(at(best.time)) and '\(nearest[1].name)' at \(at(nearest[1].time)) are equally near \(at(t)): pick one by name or id")
            }
            return best.index
        }
        if let hash = typed.lastIndex(of: "#"), let n = Int(typed[typed.index(after: hash)...]) {
            let base = typed[..<hash].trimmingWhitespace().lowercased()
            let group = byTime.filter { $0.name.lowercased() == base }
            if !group.isEmpty {
                guard (1...group.count).contains(n) else {
                    throw PracticeError(.usage, "'\(typed)': there \(group.count == 1 ? "is 1 \(kind)" : "are \(group.count) \(kind)s") named '\(group[0].name)'")
                }
                return group[n - 1].index
            }
        }
        if idHits.count == 1 { return idHits[0].index }
        if idHits.count > 1 { throw PracticeError(.usage, "\(idHits.count) \(kind)s have ids that start with '\(typed)': give more of the id") }
        throw PracticeError(.usage, "no \(kind) named '\(typed)'\(suggestion(typed, in: byTime.map(\.name)))")
    }

    private static func suggestion(_ name: String, in names: [String]) -> String {
        if names.isEmpty { return " (there are none yet)" }
        let shown = names.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
        return " (there are \(shown)\(names.count > 8 ? ", …" : ""))"
    }

    @discardableResult
    public mutating func addMarker(name: String, time: Double, note: String? = nil, color: String? = nil,
                                   duration: Double) throws(PracticeError) -> Marker {
        let checked: String
        do {
            // The names read in place: a marker is not copied to be looked at.
            let all = markers
            checked = try Self.checkName(name, kind: "marker", taken: all.indices.lazy.filter { !all[$0].deleted }.map { all[$0].name })
        }
        let t = try Self.checkTime(time, duration: duration, what: "the time")
        if let color { try Self.checkColor(color) }
        let m = Marker(name: checked, time: t, note: note, color: color)
        // In its place by time, so that writing it needs no sort (and no second copy of 10,000).
        markers.insert(m, at: markers.firstIndex { Self.markerBefore(m, $0) } ?? markers.count)
        return m
    }

    static func checkColor(_ c: String) throws(PracticeError) {
        let hex = c.dropFirst()
        guard c.first == "#", hex.count == 6, hex.allSatisfy(\.isHexDigit) else {
            throw PracticeError(.usage, "a colour is written #rrggbb, such as #ff8800 (got '\(c)')")
        }
    }

    /// Removes a marker, leaving a tombstone so that a merge does not bring it back. Loops that
    /// started or ended at it keep its time.
    @discardableResult
    public mutating func removeMarker(named name: String) throws(PracticeError) -> Marker {
        let k = try markerIndex(named: name)
        let removed = markers[k]
        for j in loops.indices where !loops[j].deleted {
            var changed = false
            if loops[j].start == .marker(removed.id) { loops[j].start = .time(removed.time); changed = true }
            if loops[j].end == .marker(removed.id) { loops[j].end = .time(removed.time); changed = true }
            if changed { loops[j].updatedAt = Sidecar.now() }
        }
        markers[k] = Self.tombstone(of: removed)
        return removed
    }

    static func tombstone(of m: Marker) -> Marker {
        var t = Marker(id: m.id, name: "", time: 0, updatedAt: Sidecar.now(), author: nil)
        t.deleted = true
        return t
    }

    /// Renames the marker `old` picks (see `markerIndex`); returns it as it was.
    @discardableResult
    public mutating func renameMarker(_ old: String, to new: String) throws(PracticeError) -> Marker {
        let k = try markerIndex(named: old)
        let before = markers[k]
        let others = liveMarkers.filter { $0.id != markers[k].id }.map(\.name)
        let name = try Self.checkName(new, kind: "marker", taken: others)
        if name == markers[k].name { return before }
        markers[k].name = name
        markers[k].updatedAt = Sidecar.now()
        if let a = Sidecar.author { markers[k].author = a }
        return before
    }

    @discardableResult
    public mutating func moveMarker(_ name: String, _ change: TimeChange, duration: Double) throws(PracticeError) -> Marker {
        let k = try markerIndex(named: name)
        let target: Double
        switch change {
        case .to(let t): target = t
        case .by(let d): target = markers[k].time + d
        }
        let time = try Self.checkTime(target, duration: duration, what: "the new time")
        if time == markers[k].time { return markers[k] }
        markers[k].time = time
        markers[k].updatedAt = Sidecar.now()
        if let a = Sidecar.author { markers[k].author = a }
        return markers[k]
    }

    /// Reads a loop end as a user typed it: a marker's name, or a time.
    public func loopPoint(_ text: String, duration: Double) throws(PracticeError) -> LoopPoint {
        if let t = Timecode.parse(text) { return .time(try Self.checkTime(t, duration: duration, what: "the time")) }
        return .marker(markers[try markerIndex(named: text)].id)
    }

    /// The time of a loop end; nil if it names a marker that no longer exists.
    public func time(of point: LoopPoint) -> Double? {
        LoopEnds.time(of: point) { id in markers.first { $0.id == id && !$0.deleted } }
    }

    /// How a loop end reads to a person: the marker's name, or the time.
    public func describe(_ point: LoopPoint) -> String {
        LoopEnds.describe(point) { id in markers.first { $0.id == id && !$0.deleted } }
    }

    /// The loop ends of this sidecar as it is now, for reading many at once (`time(of:)` and
    /// `describe(_:)` look each marker up in the whole list: 1,000 loops on 20,000 markers spent
    /// 70 % of `practice loops`' 150 ms there).
    public var loopEnds: LoopEnds { LoopEnds(self) }

    @discardableResult
    public mutating func addLoop(name: String, from a: String, to b: String, note: String? = nil, duration: Double) throws(PracticeError) -> Loop {
        let name = try Self.checkName(name, kind: "loop", taken: liveLoops.map(\.name))
        let start = try loopPoint(a, duration: duration), end = try loopPoint(b, duration: duration)
        guard let s = time(of: start), let e = time(of: end), e > s else {
            throw PracticeError(.usage, "a loop must end after it starts ('\(a)' is \(Timecode.format(time(of: start) ?? 0, decimals: 3)), '\(b)' is \(Timecode.format(time(of: end) ?? 0, decimals: 3)))")
        }
        let loop = Loop(name: name, start: start, end: end, note: note)
        loops.append(loop)
        return loop
    }

    @discardableResult
    public mutating func removeLoop(named name: String) throws(PracticeError) -> Loop {
        let k = try loopIndex(named: name)
        let removed = loops[k]
        var t = Loop(id: removed.id, name: "", start: .time(0), end: .time(0), updatedAt: Sidecar.now(), author: nil)
        t.deleted = true
        loops[k] = t
        return removed
    }
}

/// A sidecar's live markers by id: `Sidecar.time(of:)` and `describe(_:)` for many loop ends.
public struct LoopEnds: Sendable {
    private let markers: [String: Marker]

    public init(_ sidecar: Sidecar) {
        var byID: [String: Marker] = [:]
        byID.reserveCapacity(sidecar.markers.count)
        for m in sidecar.markers where !m.deleted && byID[m.id] == nil { byID[m.id] = m }   // the first, as `first(where:)`
        markers = byID
    }

    /// As `Sidecar.time(of:)`.
    public func time(of point: LoopPoint) -> Double? { Self.time(of: point) { markers[$0] } }

    /// As `Sidecar.describe(_:)`.
    public func describe(_ point: LoopPoint) -> String { Self.describe(point) { markers[$0] } }

    /// A loop end's time, its marker found by `marker` (given the id; nil if it is gone).
    static func time(of point: LoopPoint, marker: (String) -> Marker?) -> Double? {
        switch point {
        case .time(let t): t
        case .marker(let id): marker(id)?.time
        }
    }

    /// A loop end as it reads to a person, its marker found by `marker`.
    static func describe(_ point: LoopPoint, marker: (String) -> Marker?) -> String {
        switch point {
        case .time(let t): Timecode.format(t, decimals: 3)
        case .marker(let id): marker(id)?.name ?? "(removed marker)"
        }
    }
}
