// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
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
            let player = try Player(path: file, options: Self.options(spot, device: device))
            let signals = SignalHandlers { _ in player.stop() }
            await player.waitUntilFinished()
            player.stop()
            if let signal = signals.received { Glibc.exit(128 + signal) }
            if let failure = player.state.failure { throw PracticeError(.ioError, failure) }
        }

        /// A player's options for a preview of `spot`: its range, faded in and out.
        static func options(_ spot: PreviewSpot, device: String) -> PlayerOptions {
            var options = PlayerOptions()
            options.device = device
            (options.from, options.to) = (spot.start, spot.end)
            options.edgeFade = PreviewSpot.fade
            return options
        }
    }
}

/// The library screen's previews: one at a time, started beside the screen (finding the heart of
/// a song decodes part of it) and stopped by Space again, by another preview, or by leaving.
final class Previews: Sendable {
    let device: String
    private let playing = Mutex<(path: String, player: Player?)?>(nil)
    private let queue = DispatchQueue(label: "previews")

    init(device: String) { self.device = device }

    /// Starts a preview of `path`, or stops it when it is the one playing; what to say.
    func toggle(_ path: String) -> String {
        if stop() == path { return "preview stopped" }
        playing.withLock { $0 = (path, nil) }
        queue.async { [self] in
            guard let track = try? Track.describe(path) else { return }
            let sidecar = (try? SidecarStore.load(for: track))?.sidecar ?? Sidecar()
            guard let spot = try? PreviewSpot.find(in: track, sidecar: sidecar),
                  let player = try? Player(path: path, options: Practice.Preview.options(spot, device: device)) else { return }
            // Still wanted? (Space again, or another track, while it was being found.)
            let kept = playing.withLock { p -> Bool in
                guard p?.path == path, p?.player == nil else { return false }
                p = (path, player)
                return true
            }
            if !kept { player.stop() }
        }
        return "preview: \(Path.lastComponent(path).terminalSafe), 15 s from its heart (Space again stops it)"
    }

    /// Stops the preview playing, if any; its path.
    @discardableResult
    func stop() -> String? {
        let was = playing.withLock { p -> (String, Player?)? in
            defer { p = nil }
            return p.map { ($0.path, $0.player) }
        }
        was?.1?.stop()
        return was?.0
    }
}
