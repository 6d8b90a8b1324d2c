// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
@testable import PracticeSystem
import Testing

/// Whether a process runs, as a writer judges the temporary files another writer left: a file
/// whose writer is gone goes, one whose writer runs stays.
@Suite struct SpawningTests {
    /// A process stopped runs; one that ended and is not reaped yet (a zombie) does not; nor
    /// one gone altogether.
    @Test func aStoppedProcessRunsAZombieDoesNot() throws {
        #expect(Spawning.isRunning(getpid()))
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { for a in argv { free(a) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0)
        var reaped = false
        defer { if !reaped { kill(pid, SIGKILL); waitpid(pid, nil, 0) } }   // a check that stopped the test early
        kill(pid, SIGSTOP)
        var status: Int32 = 0
        try #require(waitpid(pid, &status, WUNTRACED) == pid)   // stopped, and seen so
        #expect(Spawning.isRunning(pid), "stopped")
        kill(pid, SIGKILL)
        var info = siginfo_t()
        try #require(waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0)   // ended; not reaped
        #expect(!Spawning.isRunning(pid), "a zombie")
        waitpid(pid, &status, 0)
        reaped = true
        #expect(Spawning.exitCode(status) == 128 + SIGKILL)
        #expect(!Spawning.isRunning(pid), "reaped")
    }

    /// The stat line's fields are found after the name's last parenthesis; a process exiting
    /// (PF_EXITING in its flags: killed, its files closing, so a lock it held is free) is gone,
    /// though its state still says R.
    @Test func anExitingProcessIsGoneThoughItsStateSaysRunning() {
        func line(_ s: String) -> ArraySlice<UInt8> { ArraySlice(s.utf8) }
        #expect(Spawning.isRunning(stat: line("812 (practice) S 1 812 812 34817 812 4194560 380 0 0 0")))
        #expect(!Spawning.isRunning(stat: line("812 (practice) R 1 812 812 34817 812 4194564 380 0 0 0")), "PF_EXITING")
        #expect(!Spawning.isRunning(stat: line("812 (practice) Z 1 812 812 0 -1 4227084 380 0 0 0")))
        #expect(!Spawning.isRunning(stat: line("812 (practice) X 1 812 812 0 -1 4194560 380 0 0 0")))
        #expect(Spawning.isRunning(stat: line("812 (a) R (b) S 1 812 812 34817 812 4194560 380")), "a name holding ') R '")
        #expect(!Spawning.isRunning(stat: line("812 (a) S (b) R 1 812 812 34817 812 4194564 380")), "the name's last parenthesis")
        #expect(Spawning.isRunning(stat: line("812 (practice")), "unreadable: kept")
        #expect(Spawning.isRunning(stat: line("812 (practice) S 1 812")), "no flags: by the state")
    }
}
