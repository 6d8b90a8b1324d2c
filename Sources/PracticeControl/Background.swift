// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// `--background`: the same command again, as a detached player in a session of its own (no
/// terminal, so closing this one does not stop it). This process waits until the player is
/// playing, passes on what it said while starting (warnings, or the error that stopped it, with
/// its exit code) and says how to reach it.
public enum Background {
    /// Starts the detached player and returns when it plays; throws (exits) if it could not start.
    /// `arguments`: its command line (the default: this one, without `--background`).
    @discardableResult
    public static func start(_ given: [String]? = nil) throws -> pid_t {
        var arguments = given ?? Array(CommandLine.arguments.dropFirst()).filter { $0 != "--background" }
        arguments.append("--detached")
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw PracticeError(.software, "cannot start a player in the background: \(String(cString: strerror(errno)))") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        posix_spawn_file_actions_addclose(&actions, ends[1])
        // Nothing else of ours: whoever started us may read a pipe to its end (a script's
        // `$(…)`, a test), and a player that lives on must not hold it open.
        Spawning.closeFrom(3, in: &actions)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // POSIX_SPAWN_SETSID (0x80, glibc 2.26): a session of its own, without this terminal.
        Spawning.freshSignals(&attr, flags: 0x80)
        let argv = (["practice"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawn(&child, "/proc/self/exe", &actions, &attr, argv, environ)
        close(ends[1])
        guard rc == 0 else {
            close(ends[0])
            throw PracticeError(.software, "cannot start a player in the background: \(String(cString: strerror(rc)))")
        }
        // What it says until it closes its stderr (ready) or exits (failed).
        let said = Spawning.readToEnd(ends[0])
        close(ends[0])
        if !said.isEmpty { _ = said.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) } }
        // A player that is ready closed its stderr and answers on its socket; one that failed exits.
        var status: Int32 = 0
        guard let answer = try? Players.ask(Players.socketPath(pid: child), PlayerCommand.status.line, until: .status) else {
            for _ in 0..<300 where waitpid(child, &status, WNOHANG) != child { usleep(10_000) }
            Glibc.exit(Spawning.exitCode(status))
        }
        let title = StateMessage(line: answer)?.state.title ?? "the track"
        Terminal.write("practice: playing '\(title.terminalSafe)' in the background (pid \(child)); 'practice ctl status' shows it, 'practice ctl quit' stops it\n",
                       to: STDOUT_FILENO)
        return child
    }

    /// In the detached player, once it plays: its stderr goes to /dev/null, which tells the
    /// starter that it is ready.
    public static func ready() {
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, STDERR_FILENO)
            close(null)
        }
    }
}

