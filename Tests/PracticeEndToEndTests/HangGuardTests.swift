// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Testing

/// A test that never ends, for `Tests/run.sh guard` (in `make test`'s busy part), which checks
/// the runner's own guard on it: the run stopped after its limit, the test named, every thread's
/// backtrace in the log, one more run, the failure; and a Ctrl-C passed on to it. It runs only
/// where that sets PRACTICE_TEST_HANG (the busy part leaves this suite out).
@Suite struct HangGuardTests {
    @Test(.enabled(if: getenv("PRACTICE_TEST_HANG") != nil, "run by Tests/run.sh guard only"))
    func aTestThatNeverEnds() {
        while true { pause() }
    }
}
