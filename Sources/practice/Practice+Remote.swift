// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeDocuments
import PracticeRemote

extension Practice {
    struct Remote: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The phones paired with the web remote ('practice play FILE --remote').",
            discussion: """
                'practice play FILE --remote' serves a page on the local network and shows a QR code
                to pair a phone with; a paired phone keeps its pairing (a cookie of its own) until
                it is revoked here. A revoked phone is refused at once, by a running player too.

                Examples:
                  practice remote devices
                  practice remote revoke "iPhone 1"
                  practice remote revoke all
                """,
            subcommands: [Devices.self, Revoke.self],
            defaultSubcommand: Devices.self)

        struct Devices: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the paired phones: name, when paired, when last seen.")
            @Flag(help: "Print JSON instead of lines.") var json = false

            func run() throws {
                try RemoteDevices().list(json: json)
            }
        }

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(
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
