// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands
import PracticeDocuments
import PracticeRemote

extension Practice {
    struct Remote: ParsableCommand {
        static let configuration = CommandConfiguration(
            group: "remote",
            abstract: "The phone remote: start it on a running player, list and revoke the phones paired with it.",
            discussion: """
                'practice play FILE --remote' serves a page on the local network and shows a QR code \
                to pair a phone with; 'practice remote' does the same for a player already running \
                (in the background, or in another terminal) and prints the code here. A paired \
                phone keeps its pairing (a cookie of its own) until it is revoked here. A revoked \
                phone is refused at once, by a running player too.

                Examples:
                  practice remote
                  practice remote pair --player bolero
                  practice remote devices
                  practice remote revoke "iPhone 1"
                  practice remote revoke all
                """,
            subcommands: [Pair.self, Devices.self, Revoke.self])

        struct Pair: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "pair",
                abstract: "Start a running player's phone remote (if it is not yet) and print its address and a QR code to pair a phone with.",
                discussion: """
                    The code holds a one-time address: it pairs one phone, for 10 minutes; run \
                    this again for the next phone. The player serves the remote on the address \
                    it was started with ('--remote-bind', or [remote] bind in config.toml).
                    """)
            @Option(help: "The player: its pid, its MPRIS name, or a part of its title or file name (needed when several run).")
            var player: String?
            @Flag(help: "Print one JSON object: {\"event\":\"remote\",\"origin\":…,\"pairing\":…}.") var json = false

            func run() throws { try TrackCommands.pairRemote(of: player, json: json) }
        }

        struct Devices: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the paired phones: name, when paired, when last seen.")
            @Flag(help: "Print JSON instead of lines.") var json = false

            func run() throws {
                try RemoteDevices().list(json: json)
            }
        }

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke",
                abstract: "Unpair a phone (by its name, as 'remote devices' lists it), or all of them.",
                discussion: """
                    Examples:
                      practice remote revoke "Android phone 1"
                      practice remote revoke all
                    """)
            @Argument(help: "The phone's name, or 'all'.") var name: String

            func run() throws {
                var devices = try RemoteDevices()
                for gone in try devices.revoke(name) { Console.say("revoked \(gone.terminalSafe)") }
            }
        }
    }
}
