// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Named moments in writing a file that a fault test kills the process at, exactly there: with
/// `PRACTICE_STOP_AT=NAME` in its environment the process stops itself (SIGSTOP) on reaching
/// NAME, and the test, seeing it stopped, sends SIGKILL. Without that variable, a comparison.
///
/// The moments: `sidecar-locked` (the folder's lock held, nothing read yet), `atomic-created`,
/// `atomic-half` and `atomic-written` (the temporary file empty, half written, whole but not
/// flushed), `commit-flushed` and `commit-renamed` (before and after it takes the final name),
/// `render-created` and `render-block` (a render's part made, its first block written).
public enum FaultPoint {
    private static let target: String? = getenv("PRACTICE_STOP_AT").map { String(cString: $0) }

    public static func reach(_ name: String) {
        if let target, target == name { raise(SIGSTOP) }
    }
}
