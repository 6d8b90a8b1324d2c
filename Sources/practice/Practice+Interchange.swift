// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeDocuments
import PracticeEngine

extension InterchangeFormat: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// `--format` help text shared by import and export.
private let formatHelp = "audacity (.txt labels), cue (.cue sheet), ffmetadata (ffmpeg chapters), webvtt (.vtt chapters), lrc (.lrc lyrics)"

extension Practice.Markers {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Add markers and loops from another program's file.",
            discussion: """
                Reads Audacity labels (.txt), CUE sheets (.cue), ffmpeg FFMETADATA chapters, \
                WebVTT chapters (.vtt), LRC lyrics (.lrc: a marker per line, named by its text), \
                and the cue points, labels and loops of a WAV file. \
                Points become markers and regions become loops; WebVTT and FFMETADATA chapters \
                become markers at their starts, except chapters named 'Loop: NAME', which become \
                loops. A name already taken gets a number; an entry that is already there (same \
                name, same time) is skipped. Times are this copy's. A practice sidecar \
                (NAME.practice.json, made on another copy of the song, say) is merged as \
                'practice markers merge' does, lined up with this copy first.

                Examples:
                  practice markers import song.mp3 labels.txt
                  practice markers import song.mp3 song.cue --offset -0.05
                  practice markers import song.mp3 song.lrc
                  practice markers import song.wav song.wav          (its own cue points)
                  practice markers import song.mp3 friend.flac.practice.json
                """)
        @OptionGroup var target: SidecarOptions
        @Argument(help: "The file to read markers from.", completion: .file()) var source: String
        @Option(help: "Its format, when the extension does not say: \(formatHelp), wav.") var format: InterchangeFormat?
        @Option(parsing: .unconditional, help: "Seconds to add to every time (negative to subtract), for files made against another copy.")
        var offset: Double = 0

        /// A practice sidecar: merged, lined up with this copy.
        var isSidecar: Bool { format == nil && source.hasSuffix(SidecarStore.suffix) }

        func validate() throws {
            if isSidecar {
                guard offset == 0 else { throw ValidationError("'--offset' is for other programs' files: a practice sidecar is lined up with this copy by its fingerprint") }
                return
            }
            if format == nil, InterchangeFormat(pathExtension: Path.pathExtension(source)) == nil {
                throw ValidationError("cannot tell the format of '\(source)' from its name; say --format (\(InterchangeFormat.allValueStrings.joined(separator: ", ")))")
            }
            guard offset.isFinite, abs(offset) < 86_400 else { throw ValidationError("'--offset' must be a number of seconds") }
        }

        func run() throws {
            if isSidecar { return try target.sidecarTarget.merge(source) }
            try target.sidecarTarget.importMarkers(from: source, format: format ?? InterchangeFormat(pathExtension: Path.pathExtension(source))!, offset: offset)
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a track's markers and loops for another program.",
            discussion: """
                Markers become points and loops become regions where the format has them: CUE \
                sheets and LRC lyrics hold points only, and in WebVTT and FFMETADATA chapters, where everything \
                is a region, markers tile the track and loops are chapters named 'Loop: NAME'. Written to standard output unless -o is given; the \
                format comes from OUT's extension or --format. To put cue points in a WAV file, \
                render it: 'practice render song.mp3 -o song.wav' writes the markers in.

                Examples:
                  practice markers export song.mp3 -o labels.txt
                  practice markers export song.mp3 --format cue > song.cue
                  practice markers export song.mp3 -o chapters.vtt
                  practice markers export song.mp3 -o markers.lrc
                """)
        @OptionGroup var target: SidecarOptions
        @Option(help: "Format: \(formatHelp).") var format: InterchangeFormat?
        @Option(name: [.customShort("o"), .long], help: "The file to write (default: standard output).") var output: String?
        @Flag(help: "Replace OUT if it exists.") var force = false

        func validate() throws {
            let fmt = format ?? output.flatMap { InterchangeFormat(pathExtension: Path.pathExtension($0)) }
            guard let fmt else {
                throw ValidationError(output == nil ? "say which format with --format (\(InterchangeFormat.exportable.map(\.rawValue).joined(separator: ", ")))"
                                                    : "cannot tell the format of '\(output!)' from its name; say --format")
            }
            guard InterchangeFormat.exportable.contains(fmt) else {
                throw ValidationError("markers go into a WAV file when rendering it: practice render FILE -o OUT.wav")
            }
        }

        func run() throws {
            try target.sidecarTarget.exportMarkers(format: format ?? InterchangeFormat(pathExtension: Path.pathExtension(output!))!, to: output, force: force)
        }
    }
}
