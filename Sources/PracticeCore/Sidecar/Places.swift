import Foundation

/// What people type for `--from`, `--to` and `--loop`: times, or the names of markers and loops
/// in the track's sidecar. The sidecar is read only when a name is used.
public struct Places {
    public let track: Track
    /// A sidecar to use instead of the track's own (`--markers`).
    public let explicit: String?
    private var loaded: LoadedSidecar?
    /// Warnings from reading the sidecar (identity, version), for the caller to show once.
    public private(set) var warnings: [String] = []

    public init(track: Track, explicit: String? = nil) { self.track = track; self.explicit = explicit }

    private mutating func sidecar() throws(PracticeError) -> Sidecar {
        if let loaded { return loaded.sidecar }
        let l = try SidecarStore.load(for: track, explicit: explicit)
        loaded = l
        warnings += l.warnings
        return l.sidecar
    }

    /// A time, or the time of the marker named `text`.
    public mutating func time(_ text: String, option: String) throws(PracticeError) -> Double {
        if let t = Timecode.parse(text) { return t }
        if !text.isEmpty, text.allSatisfy({ "0123456789:.".contains($0) }) {
            throw PracticeError(.usage, "\(option) '\(text)' is not a time (83.5, 1:23.5 or 1:02:03.25)")
        }
        let s = try sidecar()
        do {
            return s.markers[try s.markerIndex(named: text)].time
        } catch {
            throw PracticeError(.usage, "\(option): \(error.message)")
        }
    }

    /// The song's tempo kept in the sidecar's settings (tapped on the practice screen), if any.
    public mutating func tempo() throws(PracticeError) -> Double? {
        try sidecar().settings?.bpm
    }

    /// `--loop NAME` (a loop in the sidecar) or `--loop A B` (markers or times).
    public mutating func loop(_ args: [String], passes: Int?) throws(PracticeError) -> LoopRange {
        switch args.count {
        case 1:
            if Timecode.parse(args[0]) != nil {
                throw PracticeError(.usage, "--loop takes a loop's name, or a start and an end (got only '\(args[0])')")
            }
            let s = try sidecar()
            let loop: Loop
            do { loop = s.loops[try s.loopIndex(named: args[0])] } catch { throw PracticeError(.usage, "--loop: \(error.message)") }
            guard let a = s.time(of: loop.start), let b = s.time(of: loop.end) else {
                throw PracticeError(.usage, "--loop: the loop '\(loop.name)' uses a marker that was removed; fix it with 'practice loops'")
            }
            return LoopRange(start: a, end: b, passes: passes, name: loop.name)
        case 2:
            let a = try time(args[0], option: "--loop"), b = try time(args[1], option: "--loop")
            guard b > a else {
                throw PracticeError(.usage, "--loop: the end (\(Timecode.format(b, decimals: 3))) must be after the start (\(Timecode.format(a, decimals: 3)))")
            }
            return LoopRange(start: a, end: b, passes: passes)
        default:
            throw PracticeError(.usage, "--loop takes a loop's name, or a start and an end")
        }
    }
}
