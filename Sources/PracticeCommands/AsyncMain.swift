// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeSystem

/// How the program's synchronous `main` runs a command that is `async` (`play`, `open`,
/// `library`, `pick`, `preview`): on the main thread, which has just parsed its arguments.
///
/// Not with `static func main() async`. There the command's body, not isolated to the main
/// actor, went to Swift's shared task pool: its first thread was made just then, while a player's
/// device thread was loading ALSA's PulseAudio plugin, and glibc's `pthread_create` waits for the
/// lock every `dlopen` holds: 3.9 ms from the arguments parsed to `PlayCommand.run` (exec to the
/// first write 16.9 ms; `perf probe`, medians of 12). And the main thread was ended by
/// `dispatch_main` with `pthread_exit`, for which glibc unwinds its stack through the program's
/// unwind tables: 544 kB of them faulted in, in every session.
public enum AsyncMain {
    /// Runs `command` as a task that prefers the main thread (it, and the tasks it starts in
    /// structured concurrency, run there; `Task {}` and actors with executors of their own do not),
    /// and runs the main thread's jobs until the process exits. `command` ends the process itself
    /// (`exit`); if it returns, the process exits with 0. The main thread blocks no signal, as
    /// `dispatch_main` left it.
    public static func run(_ command: sending @escaping () async -> Void) -> Never {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        let executor = MainThreadExecutor()
        Task(executorPreference: executor) {
            await command()
            exit(0)
        }
        executor.run()
    }
}

/// Runs the jobs enqueued on it on the thread that calls `run`, one at a time, in order.
final class MainThreadExecutor: TaskExecutor, @unchecked Sendable {  // `jobs` is used under `condition`'s lock
    private let condition = Condition()
    private var jobs: [UnownedJob] = []

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func run() -> Never {
        var taken: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            swap(&taken, &jobs)
            condition.unlock()
            for job in taken { job.runSynchronously(on: asUnownedTaskExecutor()) }
            taken.removeAll(keepingCapacity: true)
        }
    }
}
