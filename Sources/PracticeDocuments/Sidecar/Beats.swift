// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials

/// A track's beat grid, as a sidecar keeps it (`beats`): where the beats are (allowing drift),
/// the tempo, which beat is "1", and how many beats make a count: 8 for a dancer's eight-count,
/// 4 or 3 for a musician's bar.
public struct BeatGrid: Sendable, Equatable {
    /// The beats, in seconds on the decoded timeline, rising, to the millisecond.
    public var times: [Double]
    /// Beats a minute (the median spacing of `times`, or as given).
    public var tempo: Double
    /// A beat that is "1" (one of `times`).
    public var one: Double
    /// Beats to a count: 8 (eights), 4 or 3 (bars).
    public var meter: Int
    /// How it was made: `aubio` (found), `steady` (a tempo from the one, as given with --bpm).
    public var source: String
    /// The other likely reading of the tempo (its half, double or triple: "96 bpm (or 48)"),
    /// which `practice beats --other` or the screen's `T` switches to.
    public var otherTempo: Double?
    /// The last change, for merges (RFC 3339 UTC, as a marker's).
    public var updatedAt: String
    public var extra: [String: JSONValue] = [:]

    public static let meters = [3, 4, 8]
    public static let tempoRange = 20.0...400.0

    public init(times: [Double], tempo: Double, one: Double, meter: Int, source: String, updatedAt: String = Sidecar.now()) {
        self.times = times; self.tempo = tempo; self.one = one; self.meter = meter; self.source = source; self.updatedAt = updatedAt
    }

    /// The index of the beat nearest `t`.
    public func nearest(_ t: Double) -> Int? {
        guard !times.isEmpty else { return nil }
        var lo = 0, hi = times.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if times[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        if lo > 0, abs(times[lo - 1] - t) <= abs(times[lo] - t) { return lo - 1 }
        return lo
    }

    /// The index of the "1".
    public var oneIndex: Int { nearest(one) ?? 0 }

    /// Beat `k`'s place: its count (1…meter) and which count-group it is in (1 from the one; 0 and
    /// below before it).
    public func count(ofBeat k: Int) -> (beat: Int, group: Int) {
        let d = k - oneIndex
        let group = d >= 0 ? d / meter + 1 : -((-d - 1) / meter)
        return (((d % meter) + meter) % meter + 1, group)
    }

    /// The beat being heard at `t` (the last one at or before it), and its count; nil before the first.
    public func beat(at t: Double) -> (index: Int, beat: Int, group: Int)? {
        guard let k = times.lastIndex(where: { $0 <= t + 0.0005 }) else { return nil }
        let c = count(ofBeat: k)
        return (k, c.beat, c.group)
    }

    /// Where count-group `n` (an eight, or a bar) starts: the time of its "1"; nil off the grid.
    public func start(ofGroup n: Int) -> Double? {
        // Any n (a count typed on the command line can be huge): off the grid rather than overflow.
        guard n > Int.min / 2, n < Int.max / 16 else { return nil }
        let k = oneIndex + (n - 1) * meter
        return times.indices.contains(k) ? times[k] : nil
    }

    /// A steady grid at `tempo` through `one`, over 0…`duration`.
    public static func steady(tempo: Double, one: Double, meter: Int, duration: Double, source: String = "steady") -> BeatGrid {
        let period = 60 / tempo
        var first = one
        while first - period >= 0 { first -= period }
        var times: [Double] = []
        var t = first
        while t < duration { times.append(Sidecar.milliseconds(t)); t += period }
        return BeatGrid(times: times, tempo: tempo, one: Sidecar.milliseconds(one), meter: meter, source: source)
    }

    /// Beats a minute from the median spacing of `times`, each spacing measured over `span`
    /// beats (up to as many as there are). A span of 8 gives the tempo of beats kept to the
    /// millisecond to a few hundredths (0.499 and 0.500 s alternating are 120.1 bpm, not 120.24
    /// or 120); a span of 1 is not misled by a beat missing or doubled.
    public static func tempo(of times: [Double], span: Int = 1) -> Double? {
        guard times.count >= 2 else { return nil }
        let span = max(1, min(span, times.count - 1))
        let gaps = (0..<(times.count - span)).map { (times[$0 + span] - times[$0]) / Double(span) }.sorted()
        let median = gaps.count % 2 == 1 ? gaps[gaps.count / 2] : (gaps[gaps.count / 2 - 1] + gaps[gaps.count / 2]) / 2
        return median > 0 ? 60 / median : nil
    }

    /// The grid read at its other tempo (`otherTempo`): beats added between the beats (double,
    /// triple: evenly), or every other one dropped (half: keeping the one); the tempos swap.
    /// Nil when there is no other reading, or the beats are too few.
    /// Beats added after the last one go on to `duration`.
    public func switchedOctave(duration: Double) -> BeatGrid? {
        guard let other = otherTempo, times.count >= 2, tempo > 0 else { return nil }
        let ratio = other / tempo
        var g = self
        if ratio < 1 {
            let keep = oneIndex % 2
            g.times = stride(from: keep, to: times.count, by: 2).map { times[$0] }
        } else {
            let parts = max(2, Int(ratio.rounded()))
            var out: [Double] = []
            out.reserveCapacity(times.count * parts)
            for k in times.indices {
                out.append(times[k])
                let gap = k + 1 < times.count ? times[k + 1] - times[k] : times[k] - times[k - 1]
                for j in 1..<parts {
                    let t = Sidecar.milliseconds(times[k] + gap * Double(j) / Double(parts))
                    if k + 1 < times.count || t < duration { out.append(t) }
                }
            }
            g.times = out
        }
        guard g.times.count >= 2 else { return nil }
        g.tempo = other
        g.otherTempo = tempo
        return g
    }

    /// What a meter is called: `eights`, `bars of 4`, `bars of 3`.
    public var countName: String { meter == 8 ? "eight" : "bar" }
}

extension BeatGrid {
    /// `practice beats --json`, version 1.
    public var document: JSONValue {
        .object(["version": .integer(1), "tempo": .double(tempo), "one": .seconds(one), "meter": .integer(meter),
                 "source": .string(source), "otherTempo": otherTempo.map { .double($0) } ?? .null, "beats": .array(times.map { .seconds($0) })])
    }

    /// `Drill: 120.00 bpm (or 60) in eights, the one at 0:00.500` and where the first counts start.
    public func describe(title: String) -> [String] {
        let g = self
        let counting = g.meter == 8 ? "in eights" : "in bars of \(g.meter)"
        let or = g.otherTempo.map { " (or \(shortNumber(($0 * 100).rounded() / 100)))" } ?? ""
        var lines = ["\(title.terminalSafe): \(cFormat("%.2f", g.tempo)) bpm\(or) \(counting), the one at \(Timecode.format(g.one, decimals: 3))"]
        if let first = g.times.first, let last = g.times.last {
            let how = g.source == "aubio" ? "found" : g.source == "steady" ? "steady" : g.source.terminalSafe
            lines.append("\(g.times.count) beats (\(how)) from \(Timecode.format(first, decimals: 3)) to \(Timecode.format(last, decimals: 3))")
        }
        let starts = (1...4).compactMap { n in g.start(ofGroup: n).map { "\(g.countName) \(n) at \(Timecode.format($0, decimals: 3))" } }
        if !starts.isEmpty { lines.append(starts.joined(separator: ", ") + (g.start(ofGroup: 5) != nil ? ", …" : "")) }
        return lines
    }
}
