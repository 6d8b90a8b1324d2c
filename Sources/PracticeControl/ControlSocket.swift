// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import Synchronization
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// A controller on a Unix socket: any number of clients send the JSON-lines commands of
/// `PlayerCommand` and receive the player's state events (NDJSON), as `--control stdin` does on
/// stdin and stdout. A client hears the current state as soon as it connects, then every change
/// the player publishes (`Player.events`); a command that cannot be carried out gets
/// `{"event":"error","message":"…"}` back. A client that stops reading is dropped. With no
/// client and no change the server thread sleeps.
public final class ControlSocket: @unchecked Sendable {  // fds are owned by the server thread after init
    public let path: String
    private let player: Player
    private let onQuit: @Sendable () -> Void
    private let listener: Int32
    private var thread: ControlThread?
    /// Event lines from the player's stream, waiting for the server thread; `wake` wakes it for
    /// them and for `stop()` (which sets `stopping` first).
    private let outbox = Locked<[PlayerEvent]>([])
    private let wake = WakePipe()
    private let stopping = Locked(false)
    private var subscription: Task<Void, Never>?
    private let mprisName = Locked<String?>(nil)
    /// How many clients are connected (the server thread counts them; events wait only for them).
    private let connected = Atomic<Int>(0)

    /// The MPRIS name the player took (`practice.instance1234`), for the `status` answer.
    public func setMPRISName(_ name: String) { mprisName.withLock { $0 = name } }

    /// What answers `{"cmd":"remote"}`: the session's phone remote, started on the first call.
    public func answerRemote(_ invite: @escaping @Sendable () throws(PracticeError) -> RemoteInvitation) { remote.withLock { $0 = invite } }
    private let remote = Locked<(@Sendable () throws(PracticeError) -> RemoteInvitation)?>(nil)

    /// `$XDG_RUNTIME_DIR/practice/control.sock` (`/tmp/practice-UID/control.sock` without it).
    public static func defaultPath(environment: [String: String]? = nil) -> String {
        runtimeFolder(environment: environment) + "/control.sock"
    }

    /// The user's folder for the players' sockets: `$XDG_RUNTIME_DIR/practice` (`/tmp/practice-UID` without it).
    /// `environment` stands for the process's own (read with getenv: ProcessInfo would copy all of it).
    public static func runtimeFolder(environment: [String: String]? = nil) -> String {
        let runtime = environment.map { $0["XDG_RUNTIME_DIR"] } ?? getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        return runtime.flatMap { $0.isEmpty ? nil : $0 + "/practice" } ?? "/tmp/practice-\(getuid())"
    }

    /// Listens on `path` (its folder is made, private to the user). A socket left by a player
    /// that is gone is replaced; one that answers is refused. `onQuit` runs for `{"cmd":"quit"}`.
    public init(path: String, player: Player, onQuit: @escaping @Sendable () -> Void) throws(PracticeError) {
        self.path = path
        self.player = player
        self.onQuit = onQuit
        let folder = Path.directory(path)
        if !folder.isEmpty, !FileSystem.exists(folder), !FileSystem.makeFolders(folder, mode: 0o700) {
            throw PracticeError(.cannotCreate, "\(path): cannot make the folder (\(systemMessage()))")
        }
        var address = try Self.address(path)
        var info = stat()
        if lstat(path, &info) == 0 {
            // Only a socket may be replaced: never a file that happens to be at PATH.
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw PracticeError(.cannotCreate, "\(path): exists and is not a socket; give another path to '--control'")
            }
            if let fd = Self.connect(&address) {
                close(fd)
                throw PracticeError(.cannotCreate, "\(path): another practice is listening there (give '--control PATH' for a second one)")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PracticeError(.cannotCreate, "\(path): cannot make a socket (\(systemMessage()))") }
        let old = umask(0o077)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        umask(old)
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = systemMessage()
            close(fd)
            throw PracticeError(.cannotCreate, "\(path): cannot listen (\(reason))")
        }
        listener = fd
        // Ticks only while a client is connected: with none, time going by wakes nobody here.
        let stream = player.events(keepingNewest: 256, ticks: { [weak self] in (self?.connected.load(ordering: .relaxed) ?? 0) > 0 })
        subscription = Task.detached { [weak self] in
            for await event in stream where event.kind != .snapshot {
                guard let self else { return }
                // Nobody connected: nothing to send, and the server thread sleeps on.
                guard self.connected.load(ordering: .acquiring) > 0 else { continue }
                self.outbox.withLock { $0.append(event) }
                self.wake.ring()
            }
        }
        thread = ControlThread(name: "practice-control") { [self] in serve() }
    }

    /// Stops serving, closes the clients and removes the socket file.
    public func stop() {
        subscription?.cancel()
        stopping.withLock { $0 = true }
        wake.ring()
        thread?.join()
    }

    /// Why `folder` is not one only this user can write in (another user's, or writable by
    /// others: whoever could put a socket there could answer for a player), or nil.
    public static func notPrivate(_ folder: String) -> String? {
        var info = stat()
        guard lstat(folder.isEmpty ? "." : folder, &info) == 0 else { return "cannot be read (\(systemMessage()))" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "is not a folder" }
        guard info.st_uid == getuid() else { return "belongs to another user (uid \(info.st_uid))" }
        guard info.st_mode & 0o022 == 0 else { return "others can write in it (mode \(String(info.st_mode & 0o777, radix: 8)))" }
        return nil
    }

    /// The address of the Unix socket at `path`; an error if the path is too long for one.
    static func address(_ path: String) throws(PracticeError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PracticeError(.usage, "\(path): too long for a Unix socket (\(bytes.count) bytes; at most 107)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// A connected stream socket, or nil (with `errno` set) when nothing answers at `address`.
    static func connect(_ address: inout sockaddr_un) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard rc == 0 else {
            let saved = errno
            close(fd)
            errno = saved
            return nil
        }
        return fd
    }

    private struct Client {
        var fd: Int32
        var lines = LineReader()
        /// Attached (`{"cmd":"attach"}`): gets the whole state with every event.
        var full = false
    }

    private func serve() {
        var clients: [Client] = []
        var last: String?
        defer {
            for c in clients { close(c.fd) }
            close(listener)
            unlink(path)
        }
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            fds += clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), -1)
            // Drain the wake pipe before looking at `stopping`: a stop that rings after the look
            // leaves its byte for the next poll. (Drained after the look, a stop could be lost,
            // and the player waited in `stop()` until a client happened to connect.)
            let woken = fds[1].revents != 0
            if woken { wake.drain() }
            if stopping.withLock({ $0 }) { return }
            var dropped = Set<Int32>()
            for (k, p) in fds.dropFirst(2).enumerated() where p.revents != 0 {
                if !receive(&clients[k]) { dropped.insert(clients[k].fd) }
            }
            if woken {
                for event in outbox.withLock({ o in defer { o.removeAll() }; return o }) {
                    let line = StateMessage(.state, event.state).line
                    if line != last {
                        for c in clients where !c.full && !send(line, to: c.fd) { dropped.insert(c.fd) }
                        last = line
                    }
                    guard clients.contains(where: \.full) else { continue }
                    let full = player.fullMessage(event.state, kind: event.kind).line
                    for c in clients where c.full && !send(full, to: c.fd) { dropped.insert(c.fd) }
                }
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let fd = accept(listener, nil, nil)
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    clients.append(Client(fd: fd))
                    // Counted before its first state is read: no change after that is skipped.
                    connected.store(clients.count, ordering: .releasing)
                    player.ticksMayHaveChanged()
                    if !send(StateMessage(.state, player.state).line, to: fd) { dropped.insert(fd) }
                }
            }
            for fd in dropped { close(fd) }
            clients.removeAll { dropped.contains($0.fd) }
            connected.store(clients.count, ordering: .releasing)
        }
    }

    /// Reads what a client sent and carries out its complete lines; false when it has gone.
    private func receive(_ client: inout Client) -> Bool {
        switch client.lines.read(from: client.fd) {
        case .closed: return false
        case .nothing: return true
        case .bytes: break
        }
        while let line = client.lines.nextLine() {
            if line.trimmingWhitespace().isEmpty { continue }
            do throws(PracticeError) {
                let command = try PlayerCommand.parse(line)
                if command == .quit { onQuit(); continue }
                if command == .attach {
                    client.full = true
                    if !send(player.fullMessage(player.state, kind: .snapshot).line, to: client.fd) { return false }
                    continue
                }
                if command == .status {
                    var status = player.statusMessage
                    status.process?.mpris = mprisName.withLock { $0 }
                    if !send(status.line, to: client.fd) { return false }
                    continue
                }
                if command == .remote, let invite = remote.withLock({ $0 }) {
                    if !send(try invite().line, to: client.fd) { return false }
                    continue
                }
                guard let reply = try player.perform(command) else { continue }
                if !send(reply, to: client.fd) { return false }
            } catch {
                if !send(StateMessage.errorLine(error), to: client.fd) { return false }
            }
        }
        return !client.lines.isOverlong   // not a line-based client
    }

    /// Writes one line; false if the client has gone or does not read.
    private func send(_ line: String, to fd: Int32) -> Bool { sendLine(line, to: fd) }
}
