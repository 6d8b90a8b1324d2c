// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands
import PracticeEngine

extension Practice {
    struct Beats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "beats",
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
            var request = BeatRequest()
            (request.bpm, request.meter, request.other, request.again) = (bpm, meter, other, again)
            try TrackCommands.beats(file, sidecar: markers, one: one, request, json: json)
        }
    }
}
