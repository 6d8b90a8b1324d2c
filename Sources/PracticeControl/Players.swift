// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// The players running for this user: each listens on `<runtime>/practice/players/<pid>.sock`
/// (the control socket's protocol), so that `practice ctl` and `practice attach` find them.
public enum Players {
    /// `$XDG_RUNTIME_DIR/practice/players` (`/tmp/practice-UID/players` without it).
    public static func folder(environment: [String: String]? = nil) -> String {
        ControlSocket.runtimeFolder(environment: environment) + "/players"
    }

    /// This process's socket.
    public static func socketPath(pid: pid_t = getpid(), environment: [String: String]? = nil) -> String {
        folder(environment: environment) + "/\(pid).sock"
    }

    /// A running player, as its `status` answer describes it.
    public struct Running: Sendable {
        public var pid: Int
        public var socket: String
        /// Its `status` answer: the state, the file, its title…
        public var status: StateMessage
        public var path: String { status.process?.path ?? "" }
        public var title: String { status.state.title.isEmpty ? Path.lastComponent(path) : status.state.title }
        /// The MPRIS name (`practice`, `practice.instance1234`), when it has one.
        public var mpris: String? { status.process?.mpris }
    }

    /// The players that answer, oldest first. Sockets of players that are gone are removed. None
    /// in a folder that is not this user's own (nobody else may answer for a player).
    public static func running(environment: [String: String]? = nil) -> [Running] {
        let dir = folder(environment: environment)
        guard ControlSocket.notPrivate(dir) == nil, ControlSocket.notPrivate(Path.directory(dir)) == nil,
              let names = FileSystem.names(in: dir) else { return [] }
        var out: [Running] = []
        for name in names where name.hasSuffix(".sock") {
            guard let pid = Int(name.dropLast(5)) else { continue }
            let path = dir + "/" + name
            if kill(pid_t(pid), 0) != 0 && errno == ESRCH { unlink(path); continue }
            guard let answer = try? ask(path, PlayerCommand.status.line, until: .status), let status = StateMessage(line: answer) else { continue }
            out.append(Running(pid: pid, socket: path, status: status))
        }
        return out.sorted { $0.pid < $1.pid }
    }

    /// The player `name` picks: its pid, its MPRIS name, or a part of its title or file name (any
    /// case). Without a name, the only one running. The error says which there are.
    public static func pick(_ name: String?, environment: [String: String]? = nil) throws(PracticeError) -> Running {
        let all = running(environment: environment)
        guard !all.isEmpty else {
            throw PracticeError(.unavailable, "no player is running (start one with 'practice play FILE --background')")
        }
        func list(_ players: [Running]) -> String {
            players.map { "\($0.pid) '\($0.title.terminalSafe)'" }.joined(separator: ", ")
        }
        guard let name else {
            if all.count == 1 { return all[0] }
            throw PracticeError(.usage, "\(all.count) players are running (\(list(all))); pick one with --player PID or a part of its title")
        }
        let key = name.lowercased()
        let matches = all.filter {
            String($0.pid) == name || $0.mpris?.lowercased() == key || $0.mpris.map { "org.mpris.mediaplayer2." + $0.lowercased() == key } == true
                || $0.title.lowercased().contains(key) || Path.lastComponent($0.path).lowercased().contains(key)
        }
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty { throw PracticeError(.usage, "--player '\(name)': no such player (running: \(list(all)))") }
        throw PracticeError(.usage, "--player '\(name)' matches \(matches.count) players (\(list(matches))); give its pid")
    }

    /// Sends `line` to the player at `socket` and returns the first answer that is a state message
    /// of form `form`; an `error` event is thrown (with its code), as is silence for 3 s.
    public static func ask(_ socket: String, _ line: String, until form: StateMessage.Form) throws(PracticeError) -> String {
        try ask(socket, line) { StateMessage(line: $0)?.form == form }
    }

    /// Sends `line` and returns the first answer `isAnswer` takes; an error event is thrown.
    public static func ask(_ socket: String, _ line: String, within seconds: Double = 3, until isAnswer: (String) -> Bool) throws(PracticeError) -> String {
        var client = try ControlClient(path: socket)
        guard client.send(line) else { throw PracticeError(.unavailable, "\(socket): the player went away") }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            switch client.read(timeout: min(0.5, seconds)) {
            case .line(let reply):
                if isAnswer(reply) { return reply }
                if let error = StateMessage.error(reply) { throw PracticeError(Int32(exactly: error.code).flatMap(PracticeError.Kind.init(rawValue:)) ?? .dataError, error.message) }
            case .timeout: continue
            case .closed: throw PracticeError(.unavailable, "\(socket): the player went away")
            }
        }
        throw PracticeError(.unavailable, "\(socket): the player did not answer")
    }
}
