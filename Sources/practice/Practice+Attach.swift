// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeRemote
import PracticeTUI

extension Practice {
    struct Attach: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attach",
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
            try PlayTerminal.attach(to: try Players.pick(player), bindings: try KeyBindings.load(KeyBindings.configPath()), notice: nil,
                                     remotePanel: RemoteService.panel(of:))
        }
    }
}
