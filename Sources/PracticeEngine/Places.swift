// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments

/// What people type for `--from`, `--to` and `--loop`: times, the names of markers and loops in
/// the track's sidecar, lyric lines (`line 5`, 1-based, of the synced lines in time order), or
/// counts of the beat grid (`eight 3`, `bar 12`: from its one).
/// The sidecar is read only when a name is used, the lyrics only when a line is.
public struct Places {
    public let track: Track
    /// A sidecar to use instead of the track's own (`--markers`).
    public let explicit: String?
    /// An LRC file to use instead of the track's own (`--lyrics`).
    public let lyricsPath: String?
    private var loaded: LoadedSidecar?
    private var lyrics: (lyrics: Lyrics, path: String)?
    /// Warnings from reading the sidecar (identity, version) and the lyrics (skipped lines), for
    /// the caller to show once.
    public private(set) var warnings: [String] = []
    /// What was done to the sidecar's times (moved to match this copy of the song), to show once.
    public private(set) var notices: [String] = []

    public init(track: Track, explicit: String? = nil, lyrics: String? = nil) {
        self.track = track; self.explicit = explicit; self.lyricsPath = lyrics
    }

    /// Reads the sidecar now (not at the first name looked up), so that its warnings and notices
    /// can be shown before playing.
    public mutating func readSidecar() throws(PracticeError) { _ = try sidecar() }

    private mutating func sidecar() throws(PracticeError) -> Sidecar {
        if let loaded { return loaded.sidecar }
        let l = try SidecarStore.load(for: track, explicit: explicit)
        loaded = l
        warnings += l.warnings
        notices += l.notices
        return l.sidecar
    }

    /// A time, the time of the marker named `text`, or of the lyric line `line N` (a marker of that
    /// name wins). As an `end` (`--to`, a loop's end), `line N` is where the line ends: the next
    /// line's time, or the track's end after the last line, so that the line is heard whole.
    public mutating func time(_ text: String, option: String, end: Bool = false) throws(PracticeError) -> Double {
        if let t = Timecode.parse(text) { return t }
        if !text.isEmpty, text.allSatisfy({ "0123456789:.".contains($0) }) {
            throw PracticeError(.usage, "\(option) '\(text)' is not a time (83.5, 1:23.5 or 1:02:03.25)")
        }
        let s = try sidecar()
        let isMarker = s.liveMarkers.contains(where: { $0.name.lowercased() == text.trimmingWhitespace().lowercased() })
        if let n = Self.lineNumber(text), !isMarker {
            return try lineTime(n, option: option, end: end)
        }
        if let (word, n) = Self.countNumber(text), !isMarker {
            return try countTime(word, n, option: option, end: end, grid: s.beats)
        }
        do {
            return s.markers[try s.markerIndex(named: text)].time
        } catch {
            // Not a marker: a number a time cannot be (1e308, nan, inf, 0x10), or nothing at all, says so.
            let trimmed = text.trimmingWhitespace()
            if trimmed.isEmpty { throw PracticeError(.usage, "\(option) is empty: give a time (83.5, 1:23.5) or a marker's name") }
            if Double(trimmed) != nil {
                throw PracticeError(.usage, "\(option) '\(text.terminalSafe)' is not a time (83.5, 1:23.5 or 1:02:03.25)")
            }
            // Meant as a time, by the look of it (`1:3O`, `45s`): say what a time looks like too.
            if trimmed.first?.isNumber == true {
                throw PracticeError(.usage, "\(option) '\(text.terminalSafe)' is not a time (83.5, 1:23.5 or 1:02:03.25), nor \(s.liveMarkers.isEmpty ? "a marker (there are none yet)" : "a marker's name")")
            }
            throw PracticeError(.usage, "\(option): \(error.message)")
        }
    }

    /// N for `line N` (any case, any spaces between); nil for anything else.
    static func lineNumber(_ text: String) -> Int? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 2, words[0].lowercased() == "line", words[1].allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { return nil }
        return Int(words[1]) ?? Int.max
    }

    /// N as an error shows it: a number too large for an Int (read as Int.max) as "9223372036854775807 or more".
    static func shown(_ n: Int) -> String { n == .max ? "\(n) or more" : "\(n)" }

    /// `eight 3` or `bar 12` (any case): the kind of count and N; nil for anything else.
    static func countNumber(_ text: String) -> (String, Int)? {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 2, ["eight", "bar"].contains(words[0].lowercased()), words[1].allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { return nil }
        return (words[0].lowercased(), Int(words[1]) ?? Int.max)
    }

    /// Where eight (or bar) N starts, from the beat grid (`practice beats`): as an end, where it
    /// ends (the next one's start, or the track's end after the last), so that it is heard whole.
    /// An eight is always eight beats, a bar the grid's meter (4 when it counts in eights).
    private func countTime(_ word: String, _ n: Int, option: String, end: Bool, grid: BeatGrid?) throws(PracticeError) -> Double {
        guard let grid else {
            throw PracticeError(.usage, "\(option) '\(word) \(n)': no beats known for \(Path.lastComponent(track.path)); find them with 'practice beats \(track.path)'")
        }
        var g = grid
        g.meter = word == "eight" ? 8 : (grid.meter == 8 ? 4 : grid.meter)
        let groups = (g.times.count - g.oneIndex + g.meter - 1) / g.meter
        guard n >= 1, let start = g.start(ofGroup: n) else {
            throw PracticeError(.usage, "\(option): no \(word) \(Self.shown(n)) (the beats make \(max(groups, 0)) \(word)s from the one)")
        }
        return end ? (g.start(ofGroup: n + 1) ?? track.duration) : start
    }

    private mutating func lineTime(_ n: Int, option: String, end: Bool) throws(PracticeError) -> Double {
        if lyrics == nil {
            guard let path = lyricsPath ?? LyricsFile.find(forAudio: track.path) else {
                throw PracticeError(.noInput, "\(option): \(LyricsFile.notFound(forAudio: track.path))")
            }
            let (l, w) = try LyricsFile.load(path)
            lyrics = (l.shifted(bySettings: try sidecar().settings), path)
            warnings += w
        }
        let (l, path) = lyrics!
        guard l.isSynced else { throw PracticeError(.usage, "\(option): \(path) has no time stamps (unsynced lyrics)") }
        guard n >= 1, n <= l.lines.count else {
            throw PracticeError(.usage, "\(option): no line \(Self.shown(n)) (\(path) has \(l.lines.count) line\(l.lines.count == 1 ? "" : "s"))")
        }
        return end ? l.endOfLine(n - 1, duration: track.duration) : l.lines[n - 1].time
    }

    /// The song's tempo kept in the sidecar: tapped on the practice screen, else its beat grid's.
    public mutating func tempo() throws(PracticeError) -> Double? {
        let s = try sidecar()
        return s.settings?.bpm ?? s.beats?.tempo
    }

    /// `--loop NAME` (a loop in the sidecar) or `--loop A B` (markers or times).
    public mutating func loop(_ args: [String], passes: Int?, option: String = "--loop") throws(PracticeError) -> LoopRange {
        switch args.count {
        case 1:
            if Timecode.parse(args[0]) != nil {
                throw PracticeError(.usage, "\(option) takes a loop's name, or a start and an end (got only '\(args[0])')")
            }
            let s = try sidecar()
            // `--loop "eight 3"`: that eight, whole (unless a loop has that name).
            if Self.countNumber(args[0]) != nil, (try? s.loopIndex(named: args[0])) == nil {
                return LoopRange(start: try time(args[0], option: option), end: try time(args[0], option: option, end: true), passes: passes, name: args[0].lowercased())
            }
            let loop: Loop
            do { loop = s.loops[try s.loopIndex(named: args[0])] } catch { throw PracticeError(.usage, "\(option): \(error.message)") }
            guard let a = s.time(of: loop.start), let b = s.time(of: loop.end) else {
                throw PracticeError(.usage, "\(option): the loop '\(loop.name)' uses a marker that was removed; fix it with 'practice loops'")
            }
            return LoopRange(start: a, end: b, passes: passes, name: loop.name)
        case 2:
            let a = try time(args[0], option: option), b = try time(args[1], option: option, end: true)
            guard b > a else {
                throw PracticeError(.usage, "\(option): the end (\(Timecode.format(b, decimals: 3))) must be after the start (\(Timecode.format(a, decimals: 3)))")
            }
            return LoopRange(start: a, end: b, passes: passes)
        default:
            throw PracticeError(.usage, "\(option) takes a loop's name, or a start and an end")
        }
    }
}
