// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeAudio
import Foundation
import PracticeSystem

/// A child process started with `posix_spawn`, for long-lived helpers (a sound server, a recorder).
/// Foundation's `Process` on Linux reaps each child with a blocking `wait4` on its pid, so a
/// daemon started that way stalls every later `Process` until it exits.
public final class Spawned: @unchecked Sendable {  // pid and fd are immutable after init
    public let pid: pid_t
    /// The read end of the child's stdout, if captured.
    public let stdout: Int32?

    public init(_ path: String, _ arguments: [String], environment: [String: String], captureStdout: Bool = false) throws {
        var environment = environment
        if environment["XDG_DATA_HOME"] == nil { environment["XDG_DATA_HOME"] = testDataHome }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var fds: [Int32] = [-1, -1]
        if captureStdout {
            guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // Nothing else of ours: a pipe another test's `run` has open (Foundation's are not
        // close-on-exec) would stay open in a long-lived child, and that `run` would never see
        // its end.
        Spawning.closeFrom(3, in: &actions)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        // The child must not inherit this thread's blocked signals (dispatch threads block some),
        // or SIGTERM would stay pending in it for ever.
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        Spawning.freshSignals(&attr)
        var child = pid_t()
        let rc = posix_spawn(&child, path, &actions, &attr, argv, envp)
        if captureStdout { close(fds[1]) }
        guard rc == 0 else {
            if captureStdout { close(fds[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL)
        }
        pid = child
        stdout = captureStdout ? fds[0] : nil
    }

    /// Waits for the child to exit; returns its exit status (or 128 + signal).
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Waits until the child stops (SIGSTOP: it reached the `PRACTICE_STOP_AT` moment) and returns
    /// nil, or until it exits, and returns its exit status (reaped: do not `wait()` then).
    public func waitUntilStopped() -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, WUNTRACED) < 0 && errno == EINTR {}
        if status & 0xff == 0x7f { return nil }   // WIFSTOPPED
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Sends SIGTERM (SIGKILL after 2 s) and reaps the child.
    public func terminate() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    deinit {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == 0 { terminate() }
        if let stdout { close(stdout) }
    }
}

/// tmux on a server of the tests' own (`-L`), started from the test process's environment: never
/// a server the person running the tests has open, whose terminal type and environment would
/// change what the practice screen draws.
public enum Tmux {
    public static let socket = "practice-tests-\(getpid())"

    /// Runs a tmux command; its stdout.
    @discardableResult
    public static func run(_ args: [String]) throws -> String {
        try PracticeTestSupport.run("/usr/bin/tmux", ["-L", socket] + args).stdout
    }

    /// The server, started once for the test process and kept when it has no session
    /// (`exit-empty off`): tests that open terminals at the same moment would otherwise each
    /// start one on the same socket (the one before ended with its last session), and a session
    /// could land on a server nobody reaches. Killed when the test process exits.
    private static let server: Int32 = {
        // Spawned, not Process: the tmux server keeps its client's output open, so reading it never ends.
        let status = (try? Spawned("/usr/bin/tmux", ["-L", socket, "-f", "/dev/null", "start-server", ";", "set-option", "-g", "exit-empty", "off"],
                                   environment: ProcessInfo.processInfo.environment).wait()) ?? -1
        atexit { _ = try? Tmux.run(["kill-server"]) }
        return status
    }()

    /// The pane of `session` once it shows `text` (looked at every 50 ms); throws `TimedOut`
    /// with the last screen after `seconds`.
    @discardableResult
    public static func waitFor(_ text: String, in session: String, seconds: Double = 10) throws -> String {
        var screen = ""
        do {
            return try eventuallyValue("'\(text)' on the screen", within: seconds) { () -> String? in
                screen = try run(["capture-pane", "-p", "-t", session])
                if screen.contains(text) { return screen }
                usleep(49_000)
                return nil
            }
        } catch is TimedOut {
            throw TimedOut(description: "waited \(seconds) s for '\(text)' on the screen in vain; it shows:\n\(screen)")
        }
    }

    /// A detached session of `width` × `height` running a plain bash.
    public static func newSession(_ name: String, width: Int, height: Int) throws -> Int32 {
        guard server == 0 else { return server }
        let start = try Spawned("/usr/bin/tmux", ["-L", socket, "new-session", "-d", "-s", name, "-x", String(width), "-y", String(height),
                                                  "bash --norc --noprofile"], environment: ProcessInfo.processInfo.environment)
        let status = start.wait()
        guard status == 0 else { return status }
        // Until bash shows its prompt: keys sent before it has set up its line editor are lost.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, (try? run(["capture-pane", "-p", "-t", name]))?.contains(where: { !$0.isWhitespace }) != true { usleep(20_000) }
        return 0
    }
}


/// The lines read from a file descriptor as they come (a child's stdout), until its end.
public struct FileDescriptorLines: Sequence, IteratorProtocol {
    private let fd: Int32
    private var pending: [UInt8] = []
    private var ended = false
    public init(_ fd: Int32) { self.fd = fd }

    public mutating func next() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...newline) }
                return String(decoding: pending[..<newline], as: UTF8.self)
            }
            if ended {
                guard !pending.isEmpty else { return nil }
                defer { pending.removeAll() }
                return String(decoding: pending, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n > 0 { pending += chunk[..<n] } else if n == 0 || errno != EINTR { ended = true }
        }
    }
}
