// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A value behind a `pthread_mutex_t`, for the control side (never the audio thread).
///
/// The standard library's `Mutex` waits on futexes directly, which ThreadSanitizer cannot see on
/// Linux: every access under it is reported as a race, so `make check-threads` could find nothing.
/// A pthread mutex is intercepted by the sanitizer, so accesses under this lock are checked for real.
///
/// `@unchecked Sendable`: `value` is read and written only between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` on `mutex`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

/// A lock guarding no value of its own: code that must not run on two threads at once.
///
/// Not a `Locked<Void>`: ThreadSanitizer places a value of no size at its object's start, and
/// reports the unlocked read of the object's header by the next caller as a race with it.
public final class Lock: Sendable {
    private let locked = Locked<UInt8>(0)

    public init() {}

    /// Runs `body` holding the lock.
    public func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        try locked.withLock { (_: inout UInt8) throws(E) -> Result in try body() }
    }
}

/// A value worked out the first time it is asked for, then kept (the control side: the first
/// asker works it out holding the lock, and any other waits for it).
public final class Once<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let kept = Locked<Value?>(nil)

    public init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    public var value: Value {
        kept.withLock { kept in
            if let value = kept { return value }
            let value = make()
            kept = value
            return value
        }
    }
}
