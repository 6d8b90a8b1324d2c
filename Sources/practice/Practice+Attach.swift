// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeTUI
import PracticeDesktop

extension Practice {
    struct Attach: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open the practice screen on a running player (one in the background, or another terminal's).",
            discussion: """
                The screen works as on a player of its own, and every edit lands in the same sidecar. \
                d leaves the player playing (closing the terminal does too); q quits it.

                Examples:
                  practice play song.mp3 --background
                  practice attach
                  practice attach --player bolero
                """)

        @Option(help: "The player: its pid, its MPRIS name, or a part of its title or file name (needed when several run).")
        var player: String?

        func run() throws {
            guard Terminal.isTTY(STDIN_FILENO), Terminal.isTTY(STDOUT_FILENO) else {
                throw PracticeError(.usage, "attach opens the practice screen, which needs a terminal ('practice ctl' sends commands without one)")
            }
            try Self.attach(to: try Players.pick(player), bindings: try KeyBindings.load(KeyBindings.configPath()), notice: nil)
        }

        /// Runs the practice screen on `running` until `d` (it plays on), `q` (it quits) or the
        /// player goes away. A signal (the terminal closed) leaves it playing.
        static func attach(to running: Players.Running, bindings: KeyBindings, notice: String?) throws {
            let remote = try RemotePlayer(running)
            let env = ProcessInfo.processInfo.environment
            let color = (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb"
            var places = Places(track: remote.track, explicit: remote.sidecar)
            let bpm = try? places.tempo()
            // What loops get: the running loop's count-in, gaps and trainer, else nothing but the tempo.
            var rehearsal = remote.state.loop?.rehearsal ?? Rehearsal()
            if rehearsal.bpm == nil { rehearsal.bpm = bpm ?? nil }
            let session = Session(player: remote, sidecar: remote.sidecar, color: color, rehearsal: rehearsal, bindings: bindings,
                                  notice: notice ?? "attached to the player of pid \(remote.pid): \(bindings.keys(for: .detach).first?.label ?? "d") leaves it playing, \(bindings.keys(for: .quit).first?.label ?? "q") quits it")
            session.writeNote = Practice.PlayOptions.writeNote
            let signals = SignalHandlers { _ in session.requestQuit() }
            defer { withExtendedLifetime(signals) {} }
            try session.run()
            let ended = remote.isGone || remote.state.failure != nil
            if !session.detachRequested && signals.received == nil && !ended {
                remote.quit()
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline, Ctl.isRunning(remote.pid) { usleep(10_000) }
            }
            remote.stop()
            if ended { Terminal.write("practice: the player has quit\n", to: STDOUT_FILENO) }
            else if session.detachRequested || signals.received != nil {
                Terminal.write("practice: '\(remote.state.title.terminalSafe)' plays on in the background (pid \(remote.pid)); 'practice attach' comes back, 'practice ctl quit' stops it\n", to: STDOUT_FILENO)
            }
        }
    }
}
