// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeControl
import PracticeEngine
import PracticeTUI

extension Practice {
    struct Preview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hear 15 seconds from the heart of a song, faded in and out.",
            discussion: """
                From the first named loop when the song has one; else from the loudest stretch near
                the middle. The library screen previews the selected track with Space. A preview is
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

        func run() async throws {
            let track = try Track.describe(file)
            let sidecar = (try? SidecarStore.load(for: track))?.sidecar ?? Sidecar()
            let spot = try PreviewSpot.find(in: track, sidecar: sidecar)
            let span = "\(Timecode.format(spot.start, decimals: 1))–\(Timecode.format(spot.end, decimals: 1))"
            if `where` {
                Terminal.write("\(span) \(spot.reason.terminalSafe)\n", to: STDOUT_FILENO)
                return
            }
            Terminal.write("practice: previewing \(track.displayTitle.terminalSafe), \(span) (\(spot.reason.terminalSafe))\n", to: STDERR_FILENO)
            let player = try Player(path: file, options: spot.playerOptions(device: device))
            let signals = SignalHandlers { _ in player.stop() }
            await player.waitUntilFinished()
            player.stop()
            if let signal = signals.received { Glibc.exit(128 + signal) }
            if let failure = player.state.failure { throw PracticeError(.ioError, failure) }
        }
    }
}
