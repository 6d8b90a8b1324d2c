// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// How the program's synchronous `main` runs a command that is `async` (`play`, `open`,
/// `library`, `pick`, `preview`).
///
/// Not with `static func main() async`: there, once the command's first `await` leaves the main
/// thread, the runtime calls `dispatch_main`, which ends the main thread with `pthread_exit`, and
/// glibc unwinds its stack to do so. The unwinder looks each frame up in the program's unwind
/// tables (a binary search over 70,000 entries, 3 MB of them), which faulted 544 kB of them in
/// (9 faults of 64 kB each, on a core beside the player's start) in every session.
public enum AsyncMain {
    /// Runs `command` on the concurrency pool, where an `async` command's body ran before too
    /// (nothing here runs on the main actor), and leaves the main thread as `dispatch_main` leaves
    /// it: waiting in `sigsuspend` with no signal blocked, so that signals go where they went.
    /// `command` ends the process itself (`exit`); if it returns, the process exits with 0.
    public static func run(_ command: sending @escaping () async -> Void) -> Never {
        Task.detached {
            await command()
            exit(0)
        }
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        while true { sigsuspend(&none) }
    }
}
