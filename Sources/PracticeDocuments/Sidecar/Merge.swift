// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// What a merge did, for people: one line per change, and what they should look at.
public struct MergeReport: Sendable, Equatable {
    public var changes: [String] = []
    /// Where both sides changed one marker, loop or setting differently, and which edit was kept.
    public var decisions: [String] = []
    /// Two live markers (or loops) with the same name: both kept, one should be renamed.
    public var clashes: [String] = []
    /// Different markers at nearly the same place with the same name: probably one place twice.
    public var suggestions: [String] = []

    public var lines: [String] {
        changes.map { "  \($0)" } + decisions.map { "  * \($0)" } + clashes.map { "  ! \($0)" } + suggestions.map { "  ? \($0)" }
    }
}

extension Sidecar {
    /// Merges `other` ("theirs") into this sidecar ("ours"): a union by id where the newer
    /// `updatedAt` wins (on a tie, the entry whose JSON sorts last, so both sides of a merge agree).
    /// Tombstones win like edits. Settings merge one by one, the newer edit of each winning.
    /// This sidecar's identity stays (theirs is taken when it has none); unknown top-level fields
    /// only `other` has are added. `ancestor` (git's common version), when known, tells edits
    /// made on both sides from edits made on one. Returns what changed relative to this sidecar
    /// and what was decided.
    public mutating func merge(_ other: Sidecar, ancestor: Sidecar? = nil) -> MergeReport {
        var report = MergeReport()
        let before = self

        markers = Self.union(markers, other.markers, id: \.id, updatedAt: \.updatedAt, json: \.json)
        loops = Self.union(loops, other.loops, id: \.id, updatedAt: \.updatedAt, json: \.json)
        for (key, value) in other.extra where extra[key] == nil { extra[key] = value }
        if audio == nil { audio = other.audio }
        let settingsMerge = Self.mergeSettings(settings, other.settings)
        settings = settingsMerge.result
        // The beat grid is one thing: the newer wins whole (a tie: the one whose JSON sorts last).
        if let theirs = other.beats {
            if let ours = beats {
                if theirs.updatedAt > ours.updatedAt || (theirs.updatedAt == ours.updatedAt && theirs.json.compact() > ours.json.compact()) { beats = theirs }
            } else {
                beats = theirs
            }
        }
        report.changes = Self.describeChanges(from: before, to: self) + settingsMerge.changes
            + (beats != before.beats ? ["~ beats: \(beats.map { "\(JSONValue.formatMilliseconds($0.tempo)) bpm, the one at \(Timecode.format($0.one, decimals: 3))" } ?? "none")"] : [])
        report.decisions = Self.decisions(ours: before, theirs: other, merged: self, ancestor: ancestor) + settingsMerge.decisions

        // A loop that ends at a marker the other side removed keeps the marker's last time (its
        // edit time stays, so that merging the other way round gives the same document).
        let lastTimes = Dictionary((before.markers + other.markers).filter { !$0.deleted }.map { ($0.id, $0.time) }, uniquingKeysWith: max)
        let ends = loopEnds   // (only loops change below)
        for k in loops.indices where !loops[k].deleted {
            for end in [\Loop.start, \Loop.end] {
                if case .marker(let id) = loops[k][keyPath: end], ends.time(of: .marker(id)) == nil, let t = lastTimes[id] {
                    loops[k][keyPath: end] = .time(t)
                    report.changes.append("~ loop '\(loops[k].name)' keeps \(Timecode.format(t, decimals: 3)) where a removed marker was")
                }
            }
        }
        (report.clashes, report.suggestions) = checkNames()
        return report
    }

    /// Settings, one by one: the side with the newer `updatedAt` for a setting wins (a setting
    /// with a time beats one without; a tie goes to the value whose JSON sorts last, so both
    /// orders agree). A setting cleared later than the other side set it stays cleared. Unknown
    /// settings merge the same way.
    static func mergeSettings(_ a: PracticeSettings?, _ b: PracticeSettings?) -> (result: PracticeSettings?, changes: [String], decisions: [String]) {
        guard let b else { return (a, [], []) }
        var ours = a?.json.object ?? [:], theirs = b.json.object ?? [:]
        ours["updatedAt"] = nil
        theirs["updatedAt"] = nil
        let ourTimes = a?.updatedAt ?? [:], theirTimes = b.updatedAt
        var values = ours, times = ourTimes
        var changes: [String] = [], decisions: [String] = []
        let keys = Set(ours.keys).union(theirs.keys).union(ourTimes.keys).union(theirTimes.keys)
        for key in keys.sorted() {
            let (va, vb, ta, tb) = (ours[key], theirs[key], ourTimes[key], theirTimes[key])
            if va == vb {
                if let t = [ta, tb].compactMap({ $0 }).max() { times[key] = t }
                continue
            }
            let theirsWin: Bool
            switch (ta, tb) {
            case let (x?, y?) where x != y: theirsWin = y > x
            case (nil, _?): theirsWin = true
            case (_?, nil): theirsWin = false
            default: theirsWin = (vb?.compact() ?? "") > (va?.compact() ?? "")
            }
            func show(_ v: JSONValue?) -> String { v.map { $0.compact() } ?? "cleared" }
            // Theirs winning is a change (its line shows what we had); ours winning over a
            // different value of theirs drops it, which is said.
            if !theirsWin, vb != nil || tb != nil {
                decisions.append("settings.\(key): ours \(show(va)), theirs \(show(vb)); kept \(theirsWin ? "theirs" : "ours")"
                                 + (ta != nil && tb != nil && ta != tb ? " (the newer edit)" : ta != tb ? " (the one with an edit time)" : ""))
            }
            guard theirsWin else { continue }
            values[key] = vb
            times[key] = tb
            changes.append(vb == nil ? "- settings.\(key)" : va == nil ? "+ settings.\(key) \(show(vb))" : "~ settings.\(key) \(show(va)) → \(show(vb))")
        }
        // Nothing set on either side: ours as it was (an empty `settings` object stays one).
        if values.isEmpty && times.isEmpty { return (a, changes, decisions) }
        if !times.isEmpty { values["updatedAt"] = .object(times.mapValues { .string($0) }) }
        // Both sides were valid settings, and each value comes from one of them.
        guard let merged = try? PracticeSettings(FieldReader(path: "settings", value: .object(values))) else { return (a, [], []) }
        return (merged, changes, decisions)
    }

    /// Markers and loops that both sides hold in different versions: which was kept and why.
    /// With an ancestor, those that both sides changed since it (true conflicts); without one,
    /// those where our version beat a different one of theirs (their edit is not taken).
    static func decisions(ours: Sidecar, theirs: Sidecar, merged: Sidecar, ancestor: Sidecar?) -> [String] {
        var out: [String] = []
        let theirMarkers = Dictionary(theirs.markers.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let oldMarkers = Dictionary((ancestor?.markers ?? []).map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let kept = Dictionary(merged.markers.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        func state(_ m: Marker) -> String { m.deleted ? "removed it" : "has '\(m.name)' at \(Timecode.format(m.time, decimals: 3))" }
        func change(_ o: Marker, _ m: Marker) -> String {
            if m.deleted { return "removed it" }
            var what: [String] = []
            if o.name != m.name { what.append("renamed it '\(m.name)'") }
            if o.time != m.time { what.append("moved it to \(Timecode.format(m.time, decimals: 3))") }
            if o.note != m.note || o.color != m.color || o.extra != m.extra { what.append("changed its details") }
            return what.isEmpty ? "restored it" : what.joined(separator: " and ")
        }
        for m in ours.markers {
            guard let t = theirMarkers[m.id], t != m, let k = kept[m.id] else { continue }
            let name = oldMarkers[m.id].flatMap { $0.deleted ? nil : $0.name } ?? (m.deleted ? t.name : m.name)
            let ourWords: String, theirWords: String
            if let old = oldMarkers[m.id] {
                guard old != m, old != t else { continue }   // only one side changed it
                (ourWords, theirWords) = (change(old, m), change(old, t))
            } else {
                // Without an ancestor, theirs winning is a change like any (its line says what we
                // had); ours winning drops their version, which is said here.
                guard k == m else { continue }
                (ourWords, theirWords) = (state(m), state(t))
            }
            let winner = k == m ? "ours" : "theirs"
            let why = m.updatedAt == t.updatedAt ? "same edit time" : "the newer edit"
            out.append("marker '\(name)': ours \(ourWords), theirs \(theirWords); kept \(winner) (\(why))")
        }
        let theirLoops = Dictionary(theirs.loops.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let oldLoops = Dictionary((ancestor?.loops ?? []).map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let keptLoops = Dictionary(merged.loops.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        func loopState(_ l: Loop, in s: Sidecar) -> String {
            l.deleted ? "removed it" : "has '\(l.name)' from \(s.describe(l.start)) to \(s.describe(l.end))"
        }
        for l in ours.loops {
            guard let t = theirLoops[l.id], t != l, let k = keptLoops[l.id] else { continue }
            if let old = oldLoops[l.id] {
                if old == l || old == t { continue }
            } else if k != l {
                continue
            }
            let name = oldLoops[l.id].flatMap { $0.deleted ? nil : $0.name } ?? (l.deleted ? t.name : l.name)
            let winner = k == l ? "ours" : "theirs"
            let why = l.updatedAt == t.updatedAt ? "same edit time" : "the newer edit"
            out.append("loop '\(name)': ours \(loopState(l, in: ours)), theirs \(loopState(t, in: theirs)); kept \(winner) (\(why))")
        }
        return out
    }

    static func union<T>(_ ours: [T], _ theirs: [T], id: KeyPath<T, String>, updatedAt: KeyPath<T, String>,
                         json: KeyPath<T, JSONValue>) -> [T] {
        var result = ours
        var index = Dictionary(ours.enumerated().map { ($1[keyPath: id], $0) }, uniquingKeysWith: { a, _ in a })
        for t in theirs {
            guard let k = index[t[keyPath: id]] else {
                index[t[keyPath: id]] = result.count
                result.append(t)
                continue
            }
            let o = result[k]
            let (a, b) = (o[keyPath: updatedAt], t[keyPath: updatedAt])
            if b > a || (b == a && t[keyPath: json].compact() > o[keyPath: json].compact()) { result[k] = t }
        }
        return result
    }

    /// One line per marker or loop that was added, changed or removed between `a` and `b`,
    /// markers in time order.
    static func describeChanges(from a: Sidecar, to b: Sidecar) -> [String] {
        var lines: [(time: Double, text: String)] = []
        let old = Dictionary(a.markers.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        for m in b.markers {
            let t = Timecode.format(m.time, decimals: 3)
            guard let o = old[m.id] else {
                if !m.deleted { lines.append((m.time, "+ marker '\(m.name)' at \(t)")) }
                continue
            }
            if m.deleted && !o.deleted { lines.append((o.time, "- marker '\(o.name)' at \(Timecode.format(o.time, decimals: 3))")); continue }
            if m.deleted || o == m { continue }
            if o.deleted { lines.append((m.time, "+ marker '\(m.name)' at \(t) (restored)")); continue }
            var what: [String] = []
            if o.name != m.name { what.append("renamed from '\(o.name)'") }
            if o.time != m.time { what.append("moved \(Timecode.format(o.time, decimals: 3)) → \(t)") }
            if o.note != m.note || o.color != m.color || o.extra != m.extra { what.append("details changed") }
            if !what.isEmpty { lines.append((m.time, "~ marker '\(m.name)' \(what.joined(separator: ", "))")) }
        }
        var out = lines.sorted { ($0.time, $0.text) < ($1.time, $1.text) }.map(\.text)
        let oldLoops = Dictionary(a.loops.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        for l in b.loops {
            guard let o = oldLoops[l.id] else {
                if !l.deleted { out.append("+ loop '\(l.name)'") }
                continue
            }
            if l.deleted && !o.deleted { out.append("- loop '\(o.name)'") } else if !l.deleted && o != l {
                out.append(o.name == l.name ? "~ loop '\(l.name)' changed" : "~ loop '\(l.name)' (was '\(o.name)') changed")
            }
        }
        return out
    }

    /// Live markers (and loops) that share a name ignoring case; and, among those, pairs under
    /// 50 ms apart, which are probably the same place marked twice.
    func checkNames() -> (clashes: [String], suggestions: [String]) {
        var clashes: [String] = [], suggestions: [String] = []
        let groups = Dictionary(grouping: liveMarkers, by: { $0.name.lowercased() }).values.filter { $0.count > 1 }
        for group in groups.sorted(by: { $0[0].name < $1[0].name }) {
            let sorted = group.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
            let times = sorted.map { Timecode.format($0.time, decimals: 3) }
            clashes.append("\(sorted.count) markers are named '\(sorted[0].name)' (at \(times.joined(separator: ", "))): both kept; rename one")
            for (x, y) in zip(sorted, sorted.dropFirst()) where y.time - x.time < 0.05 {
                suggestions.append("'\(x.name)' at \(Timecode.format(x.time, decimals: 3)) and '\(y.name)' at \(Timecode.format(y.time, decimals: 3)) look like the same place: remove one if so")
            }
        }
        let loopGroups = Dictionary(grouping: liveLoops, by: { $0.name.lowercased() }).values.filter { $0.count > 1 }
        for group in loopGroups.sorted(by: { $0[0].name < $1[0].name }) {
            clashes.append("\(group.count) loops are named '\(group[0].name)': both kept; rename one")
        }
        return (clashes, suggestions)
    }
}
