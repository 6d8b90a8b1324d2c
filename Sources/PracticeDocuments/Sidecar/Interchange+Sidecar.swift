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
        for l in liveLoops where !format.holdsPointsOnly {
            if let a = time(of: l.start), let b = time(of: l.end) {
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
            if isRegion {
                let taken = liveLoops
                if taken.contains(where: { $0.name.lowercased() == base.lowercased() && time(of: $0.start) == start && time(of: $0.end) == end }) {
                    already += 1
                    continue
                }
                let name = Self.freeName(base, taken: Set(taken.map { $0.name.lowercased() }))
                if name != base { renamed.append("'\(base)' → '\(name)'") }
                loops.append(Loop(name: name, start: .time(start), end: .time(end)))
                summary.loops += 1
            } else {
                let taken = liveMarkers
                if taken.contains(where: { $0.name.lowercased() == base.lowercased() && abs($0.time - start) < 0.001 }) {
                    already += 1
                    continue
                }
                let name = Self.freeName(base, taken: Set(taken.map { $0.name.lowercased() }))
                if name != base { renamed.append("'\(base)' → '\(name)'") }
                markers.append(Marker(name: name, time: start))
                summary.markers += 1
            }
        }
        if outside > 0 { summary.notes.append("left out \(outside) outside the track (0:00.000–\(Timecode.format(duration, decimals: 3)))") }
        if already > 0 { summary.notes.append("skipped \(already) already here (same name and time)") }
        if short > 0 { summary.notes.append("\(short) region\(short == 1 ? "" : "s") shorter than \(Int(Sidecar.shortestLoop * 1000)) ms imported as marker\(short == 1 ? "" : "s")") }
        if !renamed.isEmpty { summary.notes.append("renamed (name taken): \(renamed.joined(separator: ", "))") }
        return summary
    }

    static func freeName(_ base: String, taken: Set<String>) -> String {
        guard taken.contains(base.lowercased()) else { return base }
        var n = 2
        while taken.contains("\(base) (\(n))".lowercased()) { n += 1 }
        return "\(base) (\(n))"
    }
}
