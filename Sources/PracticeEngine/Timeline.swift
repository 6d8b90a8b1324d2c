// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeDocuments
/// Where each stretch of a stream's output comes from in the source: the one map for plain,
/// looped and rehearsal streams. The player reads the heard position from it, `render` places a
/// WAV's cue points with it, and views get both from the player.
///
/// A stream is a list of pieces, each from output frame `outStart` on: either the source's audio
/// from `source` (advancing `sourcePerOutput` source frames per output frame, plus the stretcher's
/// lead, up to `sourceEnd`), or silence and clicks that stand still at `source`. A plain loop is
/// one piece that wraps: past `wrap.end` its line continues from `wrap.start`, each later pass
/// exactly `wrap.length` source frames (the 10 ms seam included).
struct Timeline: Sendable, Equatable {
    struct Piece: Sendable, Equatable {
        var outStart: Int
        var source: Int
        var sourceEnd: Int
        var sourcePerOutput: Double
        /// How far the stretched content runs ahead of the straight line (`Pipeline.stretchLead`).
        var lead: Double
        /// The loop pass this piece belongs to, from 0 at the stream's start.
        var pass: Int
        /// The rate it plays at (the trainer's for a rehearsal's pass).
        var rate: Double
        var isAudio: Bool
        /// A plain loop: the region it repeats (`passes` of them in all, the first from `source`).
        var wrap: LoopRegion?
        /// A count-in (an insert that is not audio): frames between clicks, the clicks, and the
        /// silent gap before them.
        var clickSpacing = 0
        var clicks = 0
        var gap = 0
    }

    var pieces: [Piece] = []

    /// The piece playing at output frame `out`, and how far into it.
    func piece(atOutput out: Double) -> (piece: Piece, into: Double)? {
        guard let p = pieces.last(where: { Double($0.outStart) <= out }) ?? pieces.first else { return nil }
        return (p, max(out - Double(p.outStart), 0))
    }

    /// Source frames a stretched stream has travelled after `out` output frames: the straight
    /// line plus the stretcher's lead, which builds up over the first sequence while that
    /// sequence plays at its own speed.
    static func travelled(_ out: Double, sourcePerOutput: Double, lead: Double) -> Double {
        let cap = out * (1 - sourcePerOutput).magnitude
        return out * sourcePerOutput + max(-cap, min(cap, lead))
    }

    /// The source frame heard at output frame `out`, and the loop pass (from 0).
    func place(atOutput out: Double) -> (frame: Int, pass: Int)? {
        guard let (p, into) = piece(atOutput: out) else { return nil }
        guard p.isAudio else { return (p.source, p.pass) }
        let linear = Double(p.source) + Self.travelled(into, sourcePerOutput: p.sourcePerOutput, lead: p.lead)
        guard let loop = p.wrap, loop.length > 0 else { return (min(Int(linear.rounded()), p.sourceEnd), p.pass) }
        let offset = linear - Double(loop.start)
        if let passes = loop.passes, offset >= Double(passes * loop.length) { return (loop.end, p.pass + passes - 1) }
        if offset < 0 { return (Int(linear.rounded()), p.pass) }   // the lead-in before the loop
        let pass = Int((offset / Double(loop.length)).rounded(.down))
        return (loop.start + Int(offset.truncatingRemainder(dividingBy: Double(loop.length)).rounded(.down)), p.pass + pass)
    }

    /// The rate heard at output frame `out`.
    func rate(atOutput out: Double) -> Double? { piece(atOutput: out)?.piece.rate }

    /// During a count-in: the click being heard (from 1) and how many there are; nil elsewhere,
    /// and in the silent gap before the clicks.
    func countIn(atOutput out: Double) -> (beat: Int, of: Int)? {
        guard let (p, into) = piece(atOutput: out), !p.isAudio, p.clicks > 0, p.clickSpacing > 0 else { return nil }
        let t = Int(into) - p.gap
        guard t >= 0 else { return nil }
        return (min(t / p.clickSpacing + 1, p.clicks), p.clicks)
    }

    /// Every output frame (before `outputEnd`) at which source frame `frame` is heard: once per
    /// pass that plays it. `atEnd` also counts a piece's (or a pass's) exclusive end, for the end
    /// of a region.
    func outputFrames(of frame: Int, before outputEnd: Int, atEnd: Bool = false) -> [Int] {
        var found: [Int] = []
        for (k, p) in pieces.enumerated() where p.isAudio {
            let pieceEnd = k + 1 < pieces.count ? pieces[k + 1].outStart : outputEnd
            func covers(_ a: Int, _ b: Int) -> Bool { frame >= a && (frame < b || atEnd && frame == b) }
            // Linear source positions (before any wrapping) at which `frame` is heard in this piece.
            var targets: [Int] = []
            if let loop = p.wrap, loop.length > 0 {
                if covers(p.source, loop.end) { targets.append(frame) }
                var pass = 1
                while loop.passes.map({ pass < $0 }) ?? true, covers(loop.start, loop.end) {
                    let t = loop.end + (pass - 1) * loop.length + (frame - loop.start)
                    let out = outputFrame(ofLinear: t, in: p) + p.outStart
                    if out > pieceEnd || out == pieceEnd && !atEnd { break }
                    targets.append(t)
                    pass += 1
                }
            } else if covers(p.source, p.sourceEnd) {
                targets.append(frame)
            }
            for t in targets {
                let out = p.outStart + outputFrame(ofLinear: t, in: p)
                if out < pieceEnd || atEnd && out == pieceEnd { found.append(out) }
            }
        }
        return found
    }

    /// The first output frame (from the piece's start) whose linear source position reaches `t`:
    /// `travelled` only grows, so a binary search finds it.
    private func outputFrame(ofLinear t: Int, in p: Piece) -> Int {
        let distance = Double(t - p.source)
        guard distance > 0, p.sourcePerOutput > 0 else { return 0 }
        var lo = 0, hi = Int((distance / p.sourcePerOutput).rounded(.up)) + Int(p.lead.magnitude / p.sourcePerOutput) + 2
        while lo < hi {
            let mid = (lo + hi) / 2
            if Self.travelled(Double(mid), sourcePerOutput: p.sourcePerOutput, lead: p.lead) >= distance - 0.5 { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
