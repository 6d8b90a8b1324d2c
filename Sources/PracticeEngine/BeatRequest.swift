// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeDocuments

/// What `practice beats` is asked: corrections to the grid found (or kept), or a steady one.
public struct BeatRequest: Sendable {
    /// The "1": the beat nearest this time (seconds) becomes it.
    public var one: Double?
    /// A steady grid at this tempo through the one.
    public var bpm: Double?
    /// Beats to a count (8, 4 or 3).
    public var meter: Int?
    /// The other reading of the tempo (half, double or triple).
    public var other = false
    /// Find the beats again even when the sidecar has them.
    public var again = false

    public init() {}
}

extension BeatAnalysis {
    /// The track's beat grid as asked: the sidecar's (or `sidecar`'s) when it has one, else found;
    /// corrected by `request`, and kept in the sidecar when anything changed (where: `savedIn`).
    public static func settle(_ track: Track, sidecar: String?, _ request: BeatRequest) throws(PracticeError) -> (grid: BeatGrid, savedIn: String?) {
        let saved = try SidecarStore.load(for: track, explicit: sidecar).sidecar.beats
        let changing = request.again || saved == nil || request.one != nil || request.bpm != nil || request.meter != nil || request.other
        var grid: BeatGrid
        if let saved, !request.again {
            grid = saved
        } else {
            switch Result(catching: { () throws(PracticeError) in try BeatAnalysis.analyse(track, meter: request.meter ?? saved?.meter ?? 8) }) {
            case .success(let found): grid = found
            case .failure(let error):
                // A steady grid needs no beats found: through the --one given, else the start.
                guard let bpm = request.bpm, error.kind == .dataError else { throw error }
                grid = BeatGrid(times: [], tempo: bpm, one: 0, meter: request.meter ?? 8, source: "steady")
            }
        }
        if let meter = request.meter { grid.meter = meter }
        if request.other {
            guard let switched = grid.switchedOctave(duration: track.duration) else {
                throw PracticeError(.usage, "--other: \(track.path.terminalSafe) has no other reading of its tempo (\(cFormat("%.2f", grid.tempo)) bpm)")
            }
            grid = switched
        }
        if let t = request.one {
            guard t <= track.duration else { throw PracticeError(.usage, "--one \(Timecode.format(t, decimals: 3)) is past the end of \(track.path) (\(Timecode.format(track.duration, decimals: 3)))") }
            if let k = grid.nearest(t) { grid.one = grid.times[k] } else { grid.one = t }
        }
        if let bpm = request.bpm { grid = BeatGrid.steady(tempo: bpm, one: grid.one, meter: grid.meter, duration: track.duration) }
        var savedIn: String?
        if changing {
            grid.updatedAt = Sidecar.now()
            let final = grid
            let (_, loaded) = try SidecarStore.update(for: track, explicit: sidecar) { (s: inout Sidecar) throws(PracticeError) in s.beats = final }
            savedIn = loaded.writePath
        }
        return (grid, savedIn)
    }
}
