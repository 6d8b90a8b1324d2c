// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands
import PracticeControl
import PracticeDocuments

extension Practice {
    struct Ctl: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ctl",
            abstract: "Send one command to a running player (one in the background, or another terminal's).",
            discussion: """
                Commands: play, pause, toggle, next, previous (markers), seek WHERE, jump MARKER, \
                rate SPEED, pitch SEMITONES, quality fast|high (the stretcher), formant [on|off] (a voice's formants kept through a pitch shift), loop NAME | loop A B | loop off, mirror [on|off], video [on|off] \
                and fullscreen [on|off] (a video's picture: mirrored, its window shown, on the whole screen), mark NAME (a marker at \
                the heard position, saved at once), status, players, quit.

                WHERE and A, B are times (1:12.5), markers' names or lyric lines ('line 5'). \
                Nothing is printed when a command is carried out; status prints the player's state \
                (--json: one JSON object), players lists the players running.

                Examples:
                  practice ctl jump Chorus
                  practice ctl rate 0.8
                  practice ctl loop "shine turn"
                  practice ctl status --json
                  practice ctl quit --player bolero
                """)

        @Argument(help: "The command, and its arguments.")
        var command: [String]

        @Option(help: "The player to send it to: its pid, its MPRIS name, or a part of its title or file name (needed when several run).")
        var player: String?

        @Flag(help: "status and players: print JSON (one object a line).")
        var json = false

        func run() throws {
            guard let name = command.first else { throw ValidationError("give a command (play, pause, next, jump MARKER, rate 0.8, status, quit…)") }
            let args = Array(command.dropFirst())
            if name == "players" { try expect(args, count: 0); return TrackCommands.players(json: json) }
            let command: PlayerCommand
            do { command = try PlayerCommand.typed(name, args) } catch { throw ValidationError(error.message) }
            try TrackCommands.send(command, to: player, json: json)
        }

        private func expect(_ args: [String], count: Int, usage: String = "") throws {
            guard args.count == count else {
                throw ValidationError("'\(command[0])' takes \(count == 0 ? "nothing" : usage) (got \(args.count == 0 ? "nothing" : args.map { "'\($0)'" }.joined(separator: " ")))")
            }
        }
    }
}
