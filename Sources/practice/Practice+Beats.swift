// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeTUI

extension Practice {
    struct Beats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find a track's tempo, beats and \"one\", and keep them in its sidecar.",
            discussion: """
                The beats are found with aubio (following a tempo that drifts), each placed on its \
                onset; the "one" is the beat whose count is loudest. Counts are eights (8, for \
                dance) unless --meter says bars of 4 or 3. A steady beat can be counted at half or \
                double its tempo: the beats are doubled where onsets between them are nearly as \
                strong, halved where every other beat has hardly any, and where both readings fit, \
                the one nearer 120 bpm is chosen; the other is shown ("96 bpm (or 48)"). The grid \
                is kept in the sidecar, so the crew shares it; run again to see it. Corrections \
                keep the beats found: --other switches to the other reading, --one moves the "1" \
                to the beat nearest a time, --meter changes the count; --bpm replaces them with a \
                steady grid at that tempo through the one.

                Examples:
                  practice beats song.mp3
                  practice beats song.mp3 --other
                  practice beats song.mp3 --one 12.34 --meter 4
                  practice beats song.mp3 --bpm 96
                  practice beats song.mp3 --json
                """)
        @Argument(help: "The audio file.", completion: .file())
        var file: String
        @Option(help: ArgumentHelp("The \"1\": a time (12.34, 0:12.34) whose nearest beat becomes 1.", valueName: "TIME"))
        var one: String?
        @Option(help: ArgumentHelp("A steady grid at this tempo (beats a minute, 20–400) through the one.", valueName: "BPM"))
        var bpm: Double?
        @Option(help: ArgumentHelp("Beats to a count: 8 (eights, for dance), 4 or 3 (bars).", valueName: "N"))
        var meter: Int?
        @Flag(help: "Count at the other reading of the tempo (its half, double or triple, as shown).")
        var other = false
        @Flag(help: "Find the beats again, even if the sidecar has them.")
        var again = false
        @Flag(help: "JSON for scripts.")
        var json = false
        @Option(help: "A sidecar to use instead of the track's own.", completion: .file())
        var markers: String?

        func run() throws {
            if let meter, !BeatGrid.meters.contains(meter) {
                throw PracticeError(.usage, "--meter \(meter): a count is 8 (eights), 4 or 3 (bars)")
            }
            if let bpm, !BeatGrid.tempoRange.contains(bpm) { throw PracticeError(.usage, "--bpm \(StatusLine.formatNumber(bpm)): a tempo is 20 to 400 beats a minute") }
            let oneTime = try one.map { text throws(PracticeError) -> Double in
                guard let t = Timecode.parse(text), t >= 0 else { throw PracticeError(.usage, "--one '\(text.terminalSafe)': not a time (12.34, 0:12.34)") }
                return t
            }
            let track = try Track.describe(file)
            let saved = try SidecarStore.load(for: track, explicit: markers).sidecar.beats
            let changing = again || saved == nil || oneTime != nil || bpm != nil || meter != nil || other
            var grid: BeatGrid
            if let saved, !again {
                grid = saved
            } else {
                switch Result(catching: { () throws(PracticeError) in try BeatAnalysis.analyse(track, meter: meter ?? saved?.meter ?? 8) }) {
                case .success(let found): grid = found
                case .failure(let error):
                    // A steady grid needs no beats found: through the --one given, else the start.
                    guard let bpm, error.kind == .dataError else { throw error }
                    grid = BeatGrid(times: [], tempo: bpm, one: 0, meter: meter ?? 8, source: "steady")
                }
            }
            if let meter { grid.meter = meter }
            if other {
                guard let switched = grid.switchedOctave(duration: track.duration) else {
                    throw PracticeError(.usage, "--other: \(file.terminalSafe) has no other reading of its tempo (\(cFormat("%.2f", grid.tempo)) bpm)")
                }
                grid = switched
            }
            if let t = oneTime {
                guard t <= track.duration else { throw PracticeError(.usage, "--one \(Timecode.format(t, decimals: 3)) is past the end of \(file) (\(Timecode.format(track.duration, decimals: 3)))") }
                if let k = grid.nearest(t) { grid.one = grid.times[k] } else { grid.one = t }
            }
            if let bpm { grid = BeatGrid.steady(tempo: bpm, one: grid.one, meter: grid.meter, duration: track.duration) }
            var savedIn: String?
            if changing {
                grid.updatedAt = Sidecar.now()
                let final = grid
                let (_, loaded) = try SidecarStore.update(for: track, explicit: markers) { (s: inout Sidecar) throws(PracticeError) in s.beats = final }
                savedIn = loaded.writePath
            }
            if let savedIn { Terminal.write("practice: kept in \(savedIn)\n", to: STDERR_FILENO) }
            if json {
                printJSON(.object(["version": .integer(1), "tempo": .double(grid.tempo), "one": .seconds(grid.one), "meter": .integer(grid.meter),
                                   "source": .string(grid.source), "otherTempo": grid.otherTempo.map { .double($0) } ?? .null, "beats": .array(grid.times.map { .seconds($0) })]))
                return
            }
            for line in Self.describe(grid, title: track.displayTitle) { Terminal.write(line + "\n", to: STDOUT_FILENO) }
        }

        /// `Drill: 120.00 bpm (or 60) in eights, the one at 0:00.500` and where the first counts start.
        static func describe(_ g: BeatGrid, title: String) -> [String] {
            let counting = g.meter == 8 ? "in eights" : "in bars of \(g.meter)"
            let or = g.otherTempo.map { " (or \(StatusLine.formatNumber(($0 * 100).rounded() / 100)))" } ?? ""
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
}
