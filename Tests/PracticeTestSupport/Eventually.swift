// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A wait that ran out: what was waited for, and for how long.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String
}

/// Waits until `condition` holds (checked every millisecond), or throws `TimedOut` naming `what`
/// after `seconds`: tests wait for what they expect and fail loudly when it does not come, never
/// sleep and hope.
public func eventually(_ what: @autoclosure () -> String, within seconds: Double = 5, _ condition: () throws -> Bool) throws {
    _ = try eventuallyValue(what(), within: seconds) { try condition() ? true : nil }
}

/// Waits until `value` gives something (checked every millisecond) and returns it, or throws
/// `TimedOut` naming `what` after `seconds`.
public func eventuallyValue<T>(_ what: @autoclosure () -> String, within seconds: Double = 5, _ value: () throws -> T?) throws -> T {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
        if let v = try value() { return v }
        guard ContinuousClock.now < deadline else { throw TimedOut(description: "waited \(seconds) s for \(what()) in vain") }
        usleep(1_000)
    }
}
