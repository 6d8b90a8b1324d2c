// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A named pthread for control-side work (the decoder, the ticker, the control socket, stdin):
/// never real-time. `join()` waits for it to end; a thread nobody joins is detached on deinit.
public final class ControlThread: @unchecked Sendable {  // `thread` is written once, before the thread can run
    private var thread = pthread_t()
    private let joined = Locked(false)

    /// Starts `body` on a new thread named `name` (at most 15 bytes show). The thread works while
    /// its creator goes on working, so it starts on another CPU than the creator's where there is
    /// one (`CPUPlacement`), and may move anywhere after.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        var entry = ThreadEntry(name: name, body: body)
        if var (all, others) = CPUPlacement.besideCaller(), CPUPlacement.start(&attributes, on: &others) {
            entry = ThreadEntry(name: name) {
                CPUPlacement.allowCurrentThread(on: &all)
                body()
            }
        }
        let context = Unmanaged.passRetained(entry).toOpaque()
        let rc = pthread_create(&thread, &attributes, ThreadEntry.cEntry, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")   // only with the process out of threads or memory
    }

    /// Waits until the thread's body returned. Safe to call twice; never from the thread itself.
    public func join() {
        joined.withLock { joined in
            guard !joined else { return }
            pthread_join(thread, nil)
            joined = true
        }
    }

    deinit {
        if !joined.withLock({ $0 }) { pthread_detach(thread) }
    }
}

/// A pthread mutex with a condition variable, for threads that sleep until told or until a
/// deadline (the decoder). Waits use the monotonic clock. Visible to ThreadSanitizer.
public final class Condition: @unchecked Sendable {  // the pthread objects are only used through their calls
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Wakes one waiter. Call with the lock held.
    public func signal() { pthread_cond_signal(cond) }
    /// Wakes every waiter. Call with the lock held.
    public func broadcast() { pthread_cond_broadcast(cond) }
    /// Sleeps until signalled (or woken spuriously). Call with the lock held.
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Sleeps until signalled or `seconds` have passed. Call with the lock held.
    public func wait(seconds: Double) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int((max(0, seconds) * 1e9).rounded())
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_cond_timedwait(cond, mutex, &deadline)
    }
}

/// Names the calling thread for `top -H`, `perf` and debuggers (at most 15 bytes show).
public func nameCurrentThread(_ name: String) {
    _ = setThreadName?(pthread_self(), name)
}

/// `pthread_setname_np`, which Swift's Glibc module does not show (it is a GNU extension):
/// looked up once.
private let setThreadName: (@convention(c) (pthread_t, UnsafePointer<CChar>?) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>?) -> Int32).self)
}()

/// What a new pthread runs: a name and a body. Generic code cannot build a C function pointer, so
/// every thread (the audio thread's too) starts through `cEntry`, which takes the retained entry
/// back, names the thread and runs the body.
package final class ThreadEntry: @unchecked Sendable {  // immutable after init
    let name: String
    let body: () -> Void
    package init(name: String, body: @escaping () -> Void) { self.name = name; self.body = body }

    package static let cEntry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
        let entry = Unmanaged<ThreadEntry>.fromOpaque(raw!).takeRetainedValue()
        nameCurrentThread(entry.name)
        entry.body()
        return nil
    }
}
