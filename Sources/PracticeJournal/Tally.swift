// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments
import PracticeEngine

/// What one play session heard, worked out from the player's states and the output's clock
/// alone (no wall clock, no ticks needed): seconds at each speed, passes and seconds of each
/// loop and each section (the span from one marker to the next), count-ins, the top speed.
///
/// It is fed samples: every event the player publishes (each carries the clock), and the state
/// read once a second while playing. Between two samples the time heard is the clock's
/// difference at the earlier sample's speed (speed changes are events, so they are samples).
/// Where the position went in that time is a straight run, a loop's wrap (end → start), or a
/// jump (a seek, a count-in, a gap): runs are split over the sections they cross; a jump is
/// heard but given to no section.
public struct PracticeTally: Sendable, Equatable {
    /// Seconds heard at each speed (rounded to 0.01×).
    public private(set) var speeds: [Double: Double] = [:]
    public private(set) var parts: [PartKey: JournalPart] = [:]
    public private(set) var countIns = 0
    public private(set) var topSpeed: Double?
    public var heard: Double { speeds.values.reduce(0, +) }

    public struct PartKey: Sendable, Hashable, Comparable {
        public var kind: JournalPart.Kind
        public var name: String
        public static func < (a: PartKey, b: PartKey) -> Bool { (a.kind.rawValue, a.name) < (b.kind.rawValue, b.name) }
    }

    /// The marker spans: each marker's time and name, by time; a section runs to the next marker
    /// (the last one to the end of the track).
    private var sections: [(start: Double, name: String)] = []
    private var duration: Double

    private struct Sample: Equatable {
        var position: Double, clock: Double, rate: Double, playing: Bool
        var loop: LoopState?
    }
    private var last: Sample?
    /// The section the last run ended in: entering another one is a pass of it.
    private var inSection: Int?
    /// The loop pass each section was last counted in (a loop's pass enters a section once).
    private var sectionPass: [Int: Int] = [:]
    /// The loop being played (its ends and name) and the highest pass of it already counted.
    private var loopKey: String?
    private var loopPassCounted = 0

    public init(duration: Double) { self.duration = duration }

    public static func == (a: PracticeTally, b: PracticeTally) -> Bool {
        a.speeds == b.speeds && a.parts == b.parts && a.countIns == b.countIns && a.topSpeed == b.topSpeed
    }

    /// The track's markers (live ones), which make its sections.
    public mutating func setMarkers(_ markers: [(time: Double, name: String)]) {
        sections = markers.sorted { $0.time < $1.time }.map { (start: $0.time, name: $0.name) }
        inSection = nil
        sectionPass = [:]
    }

    /// The loop's name in the journal: its own, else its ends (`0:12–0:20`).
    static func name(of loop: LoopState) -> String {
        loop.name ?? "\(Timecode.format(loop.start))–\(Timecode.format(loop.end))"
    }

    static func rounded(_ rate: Double) -> Double { (rate * 100).rounded() / 100 }

    /// One sample: the player's state and the output's clock (seconds) at that moment.
    public mutating func observe(_ state: PlayerState, clock: Double) {
        // A sample read a moment before an event still on its way: as if at the same time.
        let clock = max(clock, last?.clock ?? clock)
        let now = Sample(position: state.position, clock: clock, rate: state.rate, playing: state.isPlaying, loop: state.loop)
        defer { last = now }
        if let before = last {
            let dt = clock - before.clock
            if before.playing, dt > 0 { hear(from: before, to: now, seconds: dt) }
            // Moved in no time: a seek (even within the same section, that is another pass).
            else if abs(now.position - before.position) > 0.01 { inSection = nil }
        }
        if now.playing {
            topSpeed = max(topSpeed ?? 0, Self.rounded(now.rate))
            countPasses(now)
        }
    }

    /// `dt` seconds heard between two samples. Within a run the speed is the first sample's (a
    /// change of speed is an event, so a sample); across a loop's wraps each pass is heard at its
    /// own speed (a trainer's), worked out from where the passes turn, and whatever is left over
    /// (count-ins, gaps) at the speed of the pass it leads into.
    private mutating func hear(from a: Sample, to b: Sample, seconds dt: Double) {
        var pieces: [(seconds: Double, rate: Double, from: Double, to: Double, pass: Int?)] = []
        let pass = a.loop.flatMap { $0.isOn ? $0.pass : nil }
        let expected = a.position + a.rate * dt
        let tolerance = 0.3 + 0.05 * a.rate * dt
        var jumped = false
        if let loop = a.loop, loop.isOn, let after = b.loop, after.isOn, after.start == loop.start, after.end == loop.end,
           after.pass > loop.pass, b.rate > 0, a.rate > 0 {
            // Wrapped: the rest of this pass, whole passes between, the start of the last one.
            pieces.append(((loop.end - a.position) / a.rate, a.rate, a.position, loop.end, loop.pass))
            for pass in (loop.pass + 1)..<after.pass {
                let rate = loop.rehearsal.trainer?.rate(forPass: pass - 1) ?? a.rate
                pieces.append(((loop.end - loop.start) / rate, rate, loop.start, loop.end, pass))
            }
            let lead = max(b.position - loop.start, 0)
            pieces.append((lead / b.rate, b.rate, b.position - lead, b.position, after.pass))
            let music = pieces.reduce(0) { $0 + $1.seconds }
            if dt > music { pieces.append((dt - music, b.rate, b.position, b.position, after.pass)) }
            else if music > 0 { pieces = pieces.map { ($0.seconds * dt / music, $0.rate, $0.from, $0.to, $0.pass) } }
        } else if abs(b.position - expected) <= tolerance {
            pieces.append((dt, a.rate, a.position, b.position, pass))
        } else if b.position >= a.position - 0.01, b.position < expected, a.rate > 0 {
            // Held, then on from where it was (a count-in or a gap before the music goes on): the
            // same pass of the same section, not a jump into it again.
            let run = max(b.position - a.position, 0) / a.rate
            pieces.append((dt - run, a.rate, a.position, a.position, pass))
            if run > 0 { pieces.append((run, a.rate, a.position, b.position, pass)) }
        } else {
            // A seek, a count-in or a gap: heard, but in no section.
            pieces.append((dt, a.rate, b.position, b.position, pass))
            jumped = true
        }
        for (k, piece) in pieces.enumerated() {
            let rate = Self.rounded(piece.rate)
            speeds[rate, default: 0] += piece.seconds
            if let loop = a.loop, loop.isOn {
                let key = PartKey(kind: .loop, name: Self.name(of: loop))
                parts[key, default: JournalPart(kind: .loop, name: key.name, passes: 0, seconds: 0, topSpeed: rate)].seconds += piece.seconds
                parts[key]!.topSpeed = max(parts[key]!.topSpeed, rate)
                parts[key]!.hear(piece.seconds, at: rate)
            }
            // Each pass of a loop enters its sections again.
            if k > 0, piece.from < pieces[k - 1].to { inSection = nil }
            if piece.rate > 0 { run(piece.from, piece.to, rate: piece.rate, pass: piece.pass) }
        }
        if jumped { inSection = nil }
    }

    /// The position ran from `from` to `to` at `rate`: each section crossed gets its part of the
    /// time heard, and a pass when the run enters it.
    /// While a loop plays (`pass`: its pass), a section gets at most one pass per pass of the
    /// loop, whatever count-ins, gaps and jumps happen within it.
    private mutating func run(_ from: Double, _ to: Double, rate: Double, pass: Int? = nil) {
        guard to > from, !sections.isEmpty else { return }
        // The first section that ends after `from`.
        var k = (sections.lastIndex { $0.start <= from }) ?? 0
        while k < sections.count {
            let start = sections[k].start
            let end = k + 1 < sections.count ? sections[k + 1].start : max(duration, to)
            if start >= to { break }
            let overlap = min(end, to) - max(start, from)
            if overlap > 0 {
                let key = PartKey(kind: .section, name: sections[k].name)
                let speed = Self.rounded(rate)
                var part = parts[key] ?? JournalPart(kind: .section, name: key.name, passes: 0, seconds: 0, topSpeed: speed)
                if inSection != k {
                    if let pass {
                        if sectionPass[k] != pass { part.passes += 1; sectionPass[k] = pass }
                    } else {
                        part.passes += 1
                    }
                    inSection = k
                }
                part.seconds += overlap / rate
                part.topSpeed = max(part.topSpeed, speed)
                part.hear(overlap / rate, at: speed)
                parts[key] = part
            }
            k += 1
        }
    }

    /// A loop's passes as they begin (and its count-ins), counted once each.
    private mutating func countPasses(_ s: Sample) {
        guard let loop = s.loop, loop.isOn else { loopKey = nil; return }
        let key = "\(loop.start)\u{0}\(loop.end)\u{0}\(loop.name ?? "")"
        if key != loopKey { loopKey = key; loopPassCounted = 0; sectionPass = [:] }
        guard loop.pass > loopPassCounted else { return }
        let name = Self.name(of: loop)
        let partKey = PartKey(kind: .loop, name: name)
        let speed = Self.rounded(s.rate)
        var part = parts[partKey] ?? JournalPart(kind: .loop, name: name, passes: 0, seconds: 0, topSpeed: speed)
        for pass in (loopPassCounted + 1)...loop.pass {
            part.passes += 1
            if loop.rehearsal.countIn > 0, loop.rehearsal.countInEvery || pass == 1 { countIns += 1 }
        }
        part.topSpeed = max(part.topSpeed, speed)
        parts[partKey] = part
        loopPassCounted = loop.pass
    }

    /// The parts, by kind and name.
    public var sortedParts: [JournalPart] { parts.sorted { $0.key < $1.key }.map(\.value) }
}
