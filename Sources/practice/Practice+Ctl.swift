// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeControl
import PracticeDocuments
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
                    if json { Terminal.write(JSONValue.object(p.status).compact() + "\n", to: STDOUT_FILENO); continue }
                    Terminal.write("\(p.pid)\t\(Self.summary(p.status))\n", to: STDOUT_FILENO)
                }
                return
            }
            let line = try Self.line(for: name, args)
            let target = try Players.pick(player)
            if name == "status" {
                let answer = try Players.ask(target.socket, line, until: "status")
                guard let object = try? JSONValue.parse(answer).object else { throw PracticeError(.software, "\(target.socket): the player's answer is not JSON") }
                Terminal.write((json ? JSONValue.object(object).compact() : Self.summary(object)) + "\n", to: STDOUT_FILENO)
                return
            }
            if name == "quit" { return try quit(target, line) }
            // The command, then status: the status answer says that everything before it was
            // carried out; an error event before it says what was not.
            var client = try ControlClient(path: target.socket)
            guard client.send(line), client.send(#"{"cmd":"status"}"#) else { throw PracticeError(.unavailable, "\(target.socket): the player went away") }
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                switch client.read(timeout: 0.5) {
                case .line(let reply):
                    guard let object = try? JSONValue.parse(reply).object else { continue }
                    if object["event"]?.string == "error" {
                        throw PracticeError(object["code"]?.int == 64 ? .usage : .dataError, object["message"]?.string ?? reply)
                    }
                    if object["event"]?.string == "status" { return }
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

        /// The control protocol's line for a command as typed.
        static func line(for name: String, _ args: [String]) throws -> String {
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
            var object: [String: JSONValue] = ["cmd": .string(name)]
            switch name {
            case "play", "pause", "toggle", "next", "previous", "status", "quit": try none()
            case "seek": object["to"] = .string(try one("a time, a marker's name or 'line N'"))
            case "jump": object["marker"] = .string(try one("a marker's name"))
            case "mark": object["name"] = .string(try one("the new marker's name"))
            case "rate": object["value"] = .double(try number("a speed from 0.25 to 3.0"))
            case "pitch": object["value"] = .double(try number("semitones from -12 to 12"))
            case "loop":
                switch args.count {
                case 1 where args[0] == "off": break
                case 1: object["name"] = .string(args[0])
                case 2: object["start"] = .string(args[0]); object["end"] = .string(args[1])
                default: throw ValidationError("'loop' takes a saved loop's name, a start and an end, or 'off'")
                }
            default:
                throw ValidationError("unknown command '\(name)' (play, pause, toggle, next, previous, seek, jump, rate, pitch, loop, mark, status, players, quit)")
            }
            return JSONValue.object(object).compact()
        }

        /// `'Title' — artist: playing 0:39.6 / 0:53.3 at 0.8×, loop 0:29.300–0:38.900 (pass 2), pid 123`
        static func summary(_ s: [String: JSONValue]) -> String {
            var out = "'\((s["title"]?.string ?? "?").terminalSafe)'"
            if let artist = s["artist"]?.string { out += " — \(artist.terminalSafe)" }
            let state = s["finished"]?.bool == true ? "finished" : s["playing"]?.bool == true ? "playing" : "paused"
            out += ": \(state) \(Timecode.format(s["position"]?.double ?? 0, decimals: 1)) / \(Timecode.format(s["duration"]?.double ?? 0, decimals: 1))"
            out += " at \(StatusLine.formatNumber(s["rate"]?.double ?? 1))×"
            if let p = s["pitch"]?.double, p != 0 { out += ", pitch \(p > 0 ? "+" : "")\(StatusLine.formatNumber(p))" }
            if let l = s["loop"]?.object, let a = l["start"]?.double, let b = l["end"]?.double {
                let name = l["name"]?.string.map { "'\($0.terminalSafe)' " } ?? ""
                out += ", loop \(name)\(Timecode.format(a, decimals: 3))–\(Timecode.format(b, decimals: 3)) (pass \(l["pass"]?.int ?? 1)\(l["times"]?.int.map { " of \($0)" } ?? ""))"
            }
            if let pid = s["pid"]?.int { out += ", pid \(pid)" }
            return out
        }
    }
}
