// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The SCHED_FIFO priorities a player asks for: above every normal thread, and low among
/// real-time ones (a sound server's own threads run at 5 to 20).
enum RealTimePriority {
    /// The audio thread's.
    static var audio: Int32 { sched_get_priority_min(SCHED_FIFO) + 10 }

    /// The threads a device's plugin starts for the sound server: one below the audio thread.
    static var deviceHelpers: Int32 { audio - 1 }

    /// Runs `body`, a device's open, with the calling thread at `deviceHelpers`, so that the
    /// threads a plugin starts in it inherit that priority; then puts the thread back as it was.
    ///
    /// Why: ALSA's `pulse` plugin hands each period to libpulse, and libpulse's own thread
    /// (`threaded-ml`, started in `snd_pcm_open`) is what sends it to the server. As a normal
    /// thread it waited behind a busy machine's other work (the test suites beside a soak), the
    /// server's buffer ran dry and the sink underran, though the audio thread itself was on time.
    /// PipeWire's plugin starts its thread the same way. A plugin that starts none (`hw`,
    /// `null`, `file`) is not affected. Refused (no CAP_SYS_NICE, no RLIMIT_RTPRIO), the open
    /// runs as it would have.
    static func lent<T>(_ body: () -> T) -> T {
        let me = pthread_self()
        var policy: Int32 = 0
        var before = sched_param()
        guard pthread_getschedparam(me, &policy, &before) == 0 else { return body() }
        var raised = sched_param()
        raised.sched_priority = deviceHelpers
        guard pthread_setschedparam(me, SCHED_FIFO, &raised) == 0 else { return body() }
        defer { pthread_setschedparam(me, policy, &before) }
        return body()
    }
}
