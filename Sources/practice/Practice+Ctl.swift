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
    struct Ctl: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ctl",
            abstract: "Send one command to a running player (one in the background, or another terminal's).",
            discussion: """
                Commands: play, pause, toggle, next, previous (markers), seek WHERE, jump MARKER, \
                rate SPEED, pitch SEMITONES, loop NAME | loop A B | loop off, mark NAME (a marker at \
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
            if name == "players" {
                try expect(args, count: 0)
                for p in Players.running() {
                    if json { Terminal.write(p.status.line + "\n", to: STDOUT_FILENO); continue }
                    Terminal.write("\(p.pid)\t\(Self.summary(p.status))\n", to: STDOUT_FILENO)
                }
                return
            }
            let command = try Self.command(name, args)
            let target = try Players.pick(player)
            if command == .status {
                let answer = try Players.ask(target.socket, command.line, until: .status)
                guard let status = StateMessage(line: answer) else { throw PracticeError(.software, "\(target.socket): the player's answer is not a status") }
                Terminal.write((json ? status.line : Self.summary(status)) + "\n", to: STDOUT_FILENO)
                return
            }
            if command == .quit { return try quit(target, command.line) }
            // The command, then status: the status answer says that everything before it was
            // carried out; an error event before it says what was not.
            var client = try ControlClient(path: target.socket)
            guard client.send(command.line), client.send(PlayerCommand.status.line) else { throw PracticeError(.unavailable, "\(target.socket): the player went away") }
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                switch client.read(timeout: 0.5) {
                case .line(let reply):
                    if let error = StateMessage.error(reply) { throw PracticeError(error.code == 64 ? .usage : .dataError, error.message) }
                    if StateMessage(line: reply)?.form == .status { return }
                case .timeout: continue
                case .closed: throw PracticeError(.unavailable, "\(target.socket): the player went away")
                }
            }
            throw PracticeError(.unavailable, "\(target.socket): the player did not answer")
        }

        /// Sends quit and waits until the player has exited (its sidecar and resume point written).
        private func quit(_ target: Players.Running, _ line: String) throws {
            var client = try ControlClient(path: target.socket)
            guard client.send(line) else { return }
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, client.read(timeout: 0.5) != .closed {}
            while ContinuousClock.now < deadline, Self.isRunning(target.pid) { usleep(10_000) }
        }

        /// Whether the process runs (not gone, nor a zombie waiting for its parent).
        static func isRunning(_ pid: Int) -> Bool {
            guard kill(pid_t(pid), 0) == 0 else { return false }
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return true }
            return !stat[stat.index(after: close)...].hasPrefix(" Z")
        }

        private func expect(_ args: [String], count: Int, usage: String = "") throws {
            guard args.count == count else {
                throw ValidationError("'\(command[0])' takes \(count == 0 ? "nothing" : usage) (got \(args.count == 0 ? "nothing" : args.map { "'\($0)'" }.joined(separator: " ")))")
            }
        }

        /// The command as typed, as the protocol's command.
        static func command(_ name: String, _ args: [String]) throws -> PlayerCommand {
            func one(_ what: String) throws -> String {
                guard args.count == 1 else { throw ValidationError("'\(name)' takes \(what)") }
                return args[0]
            }
            func none() throws {
                guard args.isEmpty else { throw ValidationError("'\(name)' takes nothing (got \(args.map { "'\($0)'" }.joined(separator: " ")))") }
            }
            func number(_ what: String) throws -> Double {
                let text = try one(what)
                guard let v = Double(text), v.isFinite else { throw ValidationError("'\(name)' takes \(what) (got '\(text)')") }
                return v
            }
            let bare: [String: PlayerCommand] = ["play": .play, "pause": .pause, "toggle": .toggle, "next": .next, "previous": .previous,
                                                 "status": .status, "quit": .quit]
            if let command = bare[name] {
                try none()
                return command
            }
            switch name {
            case "seek": return .seekTo(try one("a time, a marker's name or 'line N'"))
            case "jump": return .jump(try one("a marker's name"))
            case "mark": return .mark(try one("the new marker's name"))
            case "rate": return .rate(try number("a speed from 0.25 to 3.0"))
            case "pitch": return .pitch(try number("semitones from -12 to 12"))
            case "loop":
                switch args.count {
                case 1 where args[0] == "off": return .loop(nil)
                case 1: return .loopAt([args[0]], times: nil)
                case 2: return .loopAt(args, times: nil)
                default: throw ValidationError("'loop' takes a saved loop's name, a start and an end, or 'off'")
                }
            default:
                throw ValidationError("unknown command '\(name)' (play, pause, toggle, next, previous, seek, jump, rate, pitch, loop, mark, status, players, quit)")
            }
        }

        /// `'Title' — artist: playing 0:39.6 / 0:53.3 at 0.8×, loop 0:29.300–0:38.900 (pass 2), pid 123`
        static func summary(_ status: StateMessage) -> String {
            let s = status.state
            var out = "'\((s.title.isEmpty ? "?" : s.title).terminalSafe)'"
            if let artist = s.tags["artist"] { out += " — \(artist.terminalSafe)" }
            let state = s.isFinished ? "finished" : s.isPlaying ? "playing" : "paused"
            out += ": \(state) \(Timecode.format(s.position, decimals: 1)) / \(Timecode.format(s.duration, decimals: 1))"
            out += " at \(StatusLine.formatNumber(s.rate))×"
            if s.pitch != 0 { out += ", pitch \(s.pitch > 0 ? "+" : "")\(StatusLine.formatNumber(s.pitch))" }
            if let l = s.loop, l.isOn {
                let name = l.name.map { "'\($0.terminalSafe)' " } ?? ""
                out += ", loop \(name)\(Timecode.format(l.start, decimals: 3))–\(Timecode.format(l.end, decimals: 3)) (pass \(l.pass)\(l.passes.map { " of \($0)" } ?? ""))"
            }
            if let pid = status.process?.pid { out += ", pid \(pid)" }
            return out
        }
    }
}
