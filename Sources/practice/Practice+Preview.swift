// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands

extension Practice {
    struct Preview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "preview",
            abstract: "Hear 15 seconds from the heart of a song, faded in and out.",
            discussion: """
                From the first named loop when the song has one; else from the loudest stretch near \
                the middle. The library screen previews the selected track with Space. A preview is \
                not recorded in the journal.

                Examples:
                  practice preview song.mp3
                  practice preview song.mp3 --where     # only say where
                """)
        @Argument(help: "The audio file.", completion: .file())
        var file: String
        @Option(help: "The ALSA device to play through (see 'aplay -L').")
        var device = "default"
        @Flag(help: "Only say where the preview starts and ends, and why, without playing it.")
        var `where` = false

        func run() async throws { try await TrackCommands.preview(file, device: device, where: `where`) }
    }
}
