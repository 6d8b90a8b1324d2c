// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeSystem

extension PlayerCommand {
    /// A command as `practice ctl` takes it (`rate 0.8`, `loop A B`, `loop off`): the words a
    /// person types, turned into the protocol's command; what does not read is a usage error.
    public static func typed(_ name: String, _ args: [String]) throws(PracticeError) -> PlayerCommand {
        func one(_ what: String) throws(PracticeError) -> String {
            guard args.count == 1 else { throw PracticeError(.usage, "'\(name)' takes \(what)") }
            return args[0]
        }
        func none() throws(PracticeError) {
            guard args.isEmpty else { throw PracticeError(.usage, "'\(name)' takes nothing (got \(args.map { "'\($0)'" }.joined(separator: " ")))") }
        }
        func number(_ what: String) throws(PracticeError) -> Double {
            let text = try one(what)
            guard let v = Double(text), v.isFinite else { throw PracticeError(.usage, "'\(name)' takes \(what) (got '\(text)')") }
            return v
        }
        let bare: [String: PlayerCommand] = ["play": .play, "pause": .pause, "toggle": .toggle, "next": .next, "previous": .previous,
                                             "status": .status, "quit": .quit]
        if let command = bare[name] {
            try none()
            return command
        }
        switch name {
        case "mirror", "video", "fullscreen", "formant":
            var on: Bool?
            if !args.isEmpty {
                switch try one("'on', 'off' or nothing (the other way)") {
                case "on": on = true
                case "off": on = false
                case let other: throw PracticeError(.usage, "'\(name)' takes 'on', 'off' or nothing (got '\(other)')")
                }
            }
            return name == "mirror" ? .mirror(on) : name == "video" ? .video(on) : name == "formant" ? .formant(on) : .fullScreen(on)
        case "seek": return .seekTo(try one("a time, a marker's name or 'line N'"))
        case "jump": return .jump(try one("a marker's name"))
        case "mark": return .mark(try one("the new marker's name"))
        case "rate": return .rate(try number("a speed from 0.25 to 3.0"))
        case "pitch": return .pitch(try number("semitones from -12 to 12"))
        case "quality":
            let q = try one("'fast' or 'high'")
            guard let quality = StretchQuality(rawValue: q) else { throw PracticeError(.usage, "'quality' takes 'fast' or 'high' (got '\(q.terminalSafe)')") }
            return .quality(quality)
        case "loop":
            switch args.count {
            case 1 where args[0] == "off": return .loop(nil)
            case 1: return .loopAt([args[0]], times: nil)
            case 2: return .loopAt(args, times: nil)
            default: throw PracticeError(.usage, "'loop' takes a saved loop's name, a start and an end, or 'off'")
            }
        default:
            throw PracticeError(.usage, "unknown command '\(name)' (play, pause, toggle, next, previous, seek, jump, rate, pitch, quality, formant, loop, mark, mirror, video, fullscreen, status, players, quit)")
        }
    }
}

extension Players {
    /// Sends `command` to a running player and returns once it was carried out: the command, then
    /// `status`, whose answer says that everything before it was done; an error event before it
    /// says what was not (thrown: 64 for a command the player refuses as malformed, else 65).
    /// `quit` returns once the player has exited (its sidecar and resume point written).
    public static func send(_ command: PlayerCommand, to target: Running) throws(PracticeError) {
        var client = try ControlClient(path: target.socket)
        if command == .quit {
            guard client.send(command.line) else { return }
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, client.read(timeout: 0.5) != .closed {}
            waitForExit(target.pid, until: deadline)
            return
        }
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

    /// Waits (polling every 10 ms) until process `pid` has exited (gone, or a zombie waiting for
    /// its parent), or `deadline`. A process we may not signal is not ours: its number was taken
    /// by another user's after ours ended.
    public static func waitForExit(_ pid: Int, until deadline: ContinuousClock.Instant) {
        while ContinuousClock.now < deadline, kill(pid_t(pid), 0) == 0, Spawning.isRunning(pid_t(pid)) { usleep(10_000) }
    }
}
