// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// CLOCK_MONOTONIC in seconds: for control-side timing (the audio thread has its own clock in
/// nanoseconds, `monotonicNanoseconds`, in PracticeAudio).
public func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.seconds
}

extension timespec {
    /// In seconds, as a Double (a clock's reading, a file's time).
    public var seconds: Double { Double(tv_sec) + Double(tv_nsec) / 1e9 }
}

extension Duration {
    /// In seconds, as a Double.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
