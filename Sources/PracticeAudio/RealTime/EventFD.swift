// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

// The eventfds that wake the audio thread (a command) and a virtual device's two sides: waited on
// and cleared the same way everywhere. Neither allocates: safe on the audio thread.

/// Waits up to `timeoutMs` for the eventfd `fd` to fire and, if it did, clears it. Whether it fired.
@discardableResult
func awaitEvent(_ fd: Int32, timeoutMs: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, timeoutMs) > 0 else { return false }
    clearEvent(fd)
    return true
}

/// Clears the eventfd `fd` (reads its count).
func clearEvent(_ fd: Int32) {
    var value: UInt64 = 0
    _ = Glibc.read(fd, &value, 8)
}

/// Fires the eventfd `fd` (adds one to its count).
func signalEvent(_ fd: Int32) {
    var one: UInt64 = 1
    _ = Glibc.write(fd, &one, 8)
}
