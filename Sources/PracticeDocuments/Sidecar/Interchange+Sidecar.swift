// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// What an import added, and what it left out or changed (one line each).
public struct ImportSummary: Sendable, Equatable {
    public var markers = 0
    public var loops = 0
    public var notes: [String] = []
}

extension Sidecar {
    /// In chapter formats (WebVTT, FFMETADATA) every entry is a region, so loops are told apart
    /// by this prefix on their names: `Loop: chorus`.
    public static let loopChapterPrefix = "Loop: "

    /// Live markers as points and live loops as regions, by start time, for another program.
    /// For chapter formats, loop names get `loopChapterPrefix`; CUE sheets and LRC get the markers only.
    public func interchangeEntries(for format: InterchangeFormat) -> [InterchangeEntry] {
        let chapters = format == .webvtt || format == .ffmetadata
        var out = liveMarkers.map { InterchangeEntry(name: $0.name, start: $0.time) }
        let ends = loopEnds
        for l in liveLoops where !format.holdsPointsOnly {
            if let a = ends.time(of: l.start), let b = ends.time(of: l.end) {
                out.append(InterchangeEntry(name: chapters ? Self.loopChapterPrefix + l.name : l.name, start: a, end: b))
            }
        }
        return out.sorted { ($0.start, $0.end ?? -1, $0.name) < ($1.start, $1.end ?? -1, $1.name) }
    }

    /// Adds another program's points as markers and regions as loops. Entries outside the track
    /// are left out; an entry that is already here (same name ignoring case, within 1 ms) is
    /// skipped; a name already taken gets " (2)", " (3)"…; a name that reads as a time gets
    /// "Marker " in front; a region shorter than a loop can be becomes a marker.
    ///
    /// From a chapter format (WebVTT, FFMETADATA), whose entries are all regions, a chapter named
    /// `Loop: NAME` becomes the loop NAME and every other chapter a marker at its start.
    public mutating func importEntries(_ entries: [InterchangeEntry], from format: InterchangeFormat, duration: Double) -> ImportSummary {
        var summary = ImportSummary()
        var entries = entries
        if format == .webvtt || format == .ffmetadata {
            entries = entries.map { e in
                let prefix = Self.loopChapterPrefix
                if e.name.lowercased().hasPrefix(prefix.lowercased()), e.end != nil {
                    return InterchangeEntry(name: String(e.name.dropFirst(prefix.count)), start: e.start, end: e.end)
                }
                return InterchangeEntry(name: e.name, start: e.start)
            }
        }
        var outside = 0, already = 0, renamed: [String] = [], short = 0
        // The names taken (as matched: ignoring case) and where each is, kept as entries come in:
        // made again for each entry, they made an import of 10,000 labels take a minute.
        var markerTimes: [String: [Double]] = [:], loopSpans: [String: [(start: Double?, end: Double?)]] = [:]
        for m in liveMarkers { markerTimes[m.name.lowercased(), default: []].append(m.time) }
        let ends = loopEnds
        for l in liveLoops { loopSpans[l.name.lowercased(), default: []].append((ends.time(of: l.start), ends.time(of: l.end))) }
        var nextMarker: [String: Int] = [:], nextLoop: [String: Int] = [:]
        let stamp = Sidecar.now(), author = Sidecar.author   // (one import, one moment)
        for (k, e) in entries.enumerated() {
            let start = Sidecar.milliseconds(e.start)
            guard start >= 0, start <= duration, (e.end.map { $0 <= duration + 0.0005 } ?? true) else { outside += 1; continue }
            var isRegion = false
            var end = start
            if let b = e.end {
                end = Sidecar.milliseconds(min(b, duration))
                if end - start >= Sidecar.shortestLoop { isRegion = true } else if end != start { short += 1 }
            }
            var base = (e.name.onOneLine(tabs: true) ?? e.name).trimmingWhitespace()   // any line break (U+2028 too)
            if base.isEmpty { base = isRegion ? "Loop \(k + 1)" : "Marker \(k + 1)" }
            if TimeChange(base) != nil { base = "Marker \(base)" }
            let key = base.lowercased()
            if isRegion {
                if loopSpans[key]?.contains(where: { $0.start == start && $0.end == end }) == true {
                    already += 1
                    continue
                }
                let name = Self.freeName(base, taken: { loopSpans[$0] != nil }, next: &nextLoop)
                if name != base { renamed.append("'\(base)' → '\(name)'") }
                loops.append(Loop(name: name, start: .time(start), end: .time(end), updatedAt: stamp, author: author))
                loopSpans[name.lowercased(), default: []].append((start, end))
                summary.loops += 1
            } else {
                if markerTimes[key]?.contains(where: { abs($0 - start) < 0.001 }) == true {
                    already += 1
                    continue
                }
                let name = Self.freeName(base, taken: { markerTimes[$0] != nil }, next: &nextMarker)
                if name != base { renamed.append("'\(base)' → '\(name)'") }
                markers.append(Marker(name: name, time: start, updatedAt: stamp, author: author))
                markerTimes[name.lowercased(), default: []].append(start)
                summary.markers += 1
            }
        }
        if outside > 0 { summary.notes.append("left out \(outside) outside the track (0:00.000–\(Timecode.format(duration, decimals: 3)))") }
        if already > 0 { summary.notes.append("skipped \(already) already here (same name and time)") }
        if short > 0 { summary.notes.append("\(short) region\(short == 1 ? "" : "s") shorter than \(Int(Sidecar.shortestLoop * 1000)) ms imported as marker\(short == 1 ? "" : "s")") }
        if !renamed.isEmpty {   // (a beat finder's 10,000 labels of one name: a line, not 10,000 names)
            let more = renamed.count > 5 ? ", and \(renamed.count - 5) more" : ""
            summary.notes.append("renamed (name taken): \(renamed.prefix(5).joined(separator: ", "))\(more)")
        }
        return summary
    }

    /// `base`, or `base (2)`, `base (3)`… if taken (`taken` is asked each name lowercased).
    /// `next` keeps where the count of each name got to, so that 10,000 labels of one name (a
    /// beat finder's) do not each count up from 2; names are only ever added while it is kept.
    static func freeName(_ base: String, taken: (String) -> Bool, next: inout [String: Int]) -> String {
        let key = base.lowercased()
        guard taken(key) else { return base }
        var n = next[key] ?? 2
        while taken("\(base) (\(n))".lowercased()) { n += 1 }
        next[key] = n + 1
        return "\(base) (\(n))"
    }
}
