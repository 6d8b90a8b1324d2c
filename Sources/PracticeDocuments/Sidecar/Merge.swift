import FoundationEssentials
import Glibc

/// What a merge did, for people: one line per change, and what they should look at.
public struct MergeReport: Sendable, Equatable {
    public var changes: [String] = []
    /// Two live markers (or loops) with the same name: both kept, one should be renamed.
    public var clashes: [String] = []
    /// Different markers at nearly the same place with the same name: probably one place twice.
    public var suggestions: [String] = []

    public var lines: [String] {
        changes.map { "  \($0)" } + clashes.map { "  ! \($0)" } + suggestions.map { "  ? \($0)" }
    }
}

extension Sidecar {
    /// Merges `other` into this sidecar: a union by id where the newer `updatedAt` wins (on a tie,
    /// the entry whose JSON sorts last, so both sides of a merge agree). Tombstones win like edits.
    /// This sidecar's identity, settings and unknown top-level fields stay; unknown top-level
    /// fields only `other` has are added. Returns what changed relative to this sidecar.
    public mutating func merge(_ other: Sidecar) -> MergeReport {
        var report = MergeReport()
        let before = self

        markers = Self.union(markers, other.markers, id: \.id, updatedAt: \.updatedAt, json: \.json)
        loops = Self.union(loops, other.loops, id: \.id, updatedAt: \.updatedAt, json: \.json)
        for (key, value) in other.extra where extra[key] == nil { extra[key] = value }
        report.changes = Self.describeChanges(from: before, to: self)

        // A loop that ends at a marker the other side removed keeps the marker's last time (its
        // edit time stays, so that merging the other way round gives the same document).
        let lastTimes = Dictionary((before.markers + other.markers).filter { !$0.deleted }.map { ($0.id, $0.time) }, uniquingKeysWith: max)
        for k in loops.indices where !loops[k].deleted {
            for end in [\Loop.start, \Loop.end] {
                if case .marker(let id) = loops[k][keyPath: end], time(of: .marker(id)) == nil, let t = lastTimes[id] {
                    loops[k][keyPath: end] = .time(t)
                    report.changes.append("~ loop '\(loops[k].name)' keeps \(Timecode.format(t, decimals: 3)) where a removed marker was")
                }
            }
        }
        (report.clashes, report.suggestions) = checkNames()
        return report
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
