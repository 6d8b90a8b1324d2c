// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Glibc
import PracticeDocuments
import PracticeEngine

extension Practice {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show a track's format, duration, sample rate, channels and tags.",
            discussion: """
                Examples:
                  practice info song.flac
                  practice info song.mp3 --json
                  practice info tutorial.mkv --audio-stream 1
                """)

        @Argument(help: "The audio file to describe.", completion: .file(extensions: ["wav", "flac", "ogg", "opus", "mp3", "aiff", "m4a", "mp4", "webm", "mkv", "mov"]))
        var file: String

        @Option(help: ArgumentHelp("Describe this audio stream of a container with several (from 0).", valueName: "n"))
        var audioStream: Int?

        @Flag(help: "Print a JSON document (sorted keys, with a \"version\") instead of a table.")
        var json = false

        func run() throws {
            if let audioStream, audioStream < 0 { throw ValidationError("'--audio-stream' must be 0 or more (got '\(audioStream)')") }
            let info = try TrackInfo(file, audioStream: audioStream)
            if json { Console.printJSON(info.document) } else { Terminal.write(info.text + "\n", to: STDOUT_FILENO) }
        }
    }
}
