// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeTUI
import PracticeDocuments
import PracticeEngine
import PracticeAudio
import PracticeControl
import PracticeSongs

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
            if isSidecar {
                var merge = Practice.Markers.Merge()
                merge.target = target
                merge.other = source
                return try merge.run()
            }
            let fmt = format ?? InterchangeFormat(pathExtension: Path.pathExtension(source))!
            let data = try ReadableFile.contents(of: source)
            let read: (entries: [InterchangeEntry], notes: [String])
            do { read = try Interchange.read(data, format: fmt) } catch {
                throw PracticeError(.dataError, "\(source)\(error.line.map { ":\($0)" } ?? ""): \(error.message)")
            }
            let shifted = read.entries.map { e in
                InterchangeEntry(name: e.name, start: e.start + offset, end: e.end.map { $0 + offset })
            }
            let (summary, loaded) = try target.update { (s, track) throws(PracticeError) in
                s.importEntries(shifted, from: fmt, duration: track.duration)
            }
            note(read.notes + summary.notes)
            say("imported \(summary.markers) marker\(summary.markers == 1 ? "" : "s") and \(summary.loops) loop\(summary.loops == 1 ? "" : "s") from \(source) into \(loaded.writePath)")
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
            let fmt = format ?? InterchangeFormat(pathExtension: Path.pathExtension(output!))!
            if let output, FileManager.default.fileExists(atPath: output), !force {
                throw PracticeError(.cannotCreate, "\(output): already exists (use --force to replace it)")
            }
            let (track, loaded) = try target.load()
            let entries = loaded.sidecar.interchangeEntries(for: fmt)
            let written = Interchange.write(entries, format: fmt, audioFileName: Path.lastComponent(track.path),
                                            duration: track.duration, title: track.tags["title"])
            let loops = loaded.sidecar.liveLoops.count
            let kind = fmt == .cue ? "CUE sheets" : "LRC files"
            note((fmt.holdsPointsOnly && loops > 0 ? ["\(kind) hold points only: left out \(loops) loop\(loops == 1 ? "" : "s")"] : []) + written.notes)
            if let output {
                try AtomicFile.write(written.data, to: output)
                let points = entries.filter { $0.end == nil }.count, regions = entries.count - points
                // What the format could not hold (CUE: 99 tracks, one per frame) is not counted as written.
                let what = "\(points) marker\(points == 1 ? "" : "s") and \(regions) loop\(regions == 1 ? "" : "s")"
                let wrote = written.leftOut == 0 ? what : regions == 0 ? "\(points - written.leftOut) of \(what)" : "\(entries.count - written.leftOut) of \(entries.count) (\(what))"
                Terminal.write("practice: wrote \(wrote) to \(output)\n", to: STDERR_FILENO)
            } else {
                // A file's bytes: exact into a pipe or a file, made safe only for a terminal.
                let text = String(decoding: written.data, as: UTF8.self)
                if Terminal.isTTY(STDOUT_FILENO) { Terminal.write(text, to: STDOUT_FILENO) } else { Terminal.writeRaw(text, to: STDOUT_FILENO) }
            }
        }
    }
}
