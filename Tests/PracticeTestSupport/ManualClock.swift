// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeEngine
import PracticeSystem

/// A ticker's clock that moves only when the test says (`advance`): with the virtual device's
/// clock, every stretch of time a player's ticker sees is the test's, and `advance` returns once
/// each ticker whose wait was over has looked and is waiting again, so what it published is out.
public final class ManualClock: TickerClock, @unchecked Sendable {  // the fields below only under `condition`'s lock
    private let condition = Condition()
    private var now = 0.0
    /// Tickers waiting: when each is due, what wakes it, and how many of its wakes it had taken
    /// when it began to wait (one it takes after is a ticker on its way out of the wait).
    private var waiting: [pthread_t: (due: Double, wake: TickerWake, taken: UInt64)] = [:]
    /// Tickers that have waited here and have not ended.
    private var tickers = Set<pthread_t>()

    public init() {}

    public func wait(_ seconds: Double, or wake: TickerWake) {
        let me = pthread_self()
        condition.lock()
        tickers.insert(me)
        waiting[me] = (now + seconds, wake, wake.takenCount)
        condition.broadcast()
        condition.unlock()
        wake.take()   // a command, or `advance`
        condition.lock()
        waiting[me] = nil
        condition.unlock()
    }

    public func tickerEnded() {
        condition.lock()
        tickers.remove(pthread_self())
        condition.broadcast()
        condition.unlock()
    }

    /// Waits (up to `within` seconds) until `count` tickers wait on this clock: a player's ticker
    /// makes its first look as the player starts.
    public func waitForTickers(_ count: Int = 1, within: Double = 5) throws {
        condition.lock()
        defer { condition.unlock() }
        let deadline = ContinuousClock.now + .seconds(within)
        while waiting.count < count {
            guard ContinuousClock.now < deadline else { throw TimedOut(description: "\(count) ticker(s) waiting on the clock (\(waiting.count) are)") }
            condition.wait(seconds: 0.05)
        }
    }

    /// Moves the clock on by `seconds` once every ticker is waiting (none is in the middle of a
    /// look); every ticker whose wait is then over looks, and this returns once each is waiting
    /// again (or has ended). Throws if a ticker does not come back within 5 s.
    public func advance(_ seconds: Double) throws {
        condition.lock()
        defer { condition.unlock() }
        try settle()
        now += seconds
        for (_, w) in waiting where w.due <= now + 1e-9 { w.wake.signal() }
        // Those signalled leave their wait (and come back once they have looked).
        let due = Set(waiting.filter { $0.value.due <= now + 1e-9 }.keys)
        let deadline = ContinuousClock.now + .seconds(5)
        while due.contains(where: { tickers.contains($0) && waiting[$0].map { $0.due <= now + 1e-9 } ?? true }) {
            guard ContinuousClock.now < deadline else { throw TimedOut(description: "the ticker to look at \(now) s on the manual clock") }
            condition.wait(seconds: 0.05)
        }
    }

    /// Returns once every ticker that waited here is waiting again: a look a command asked for
    /// (the ticker is woken at once by a change) is over.
    public func settled() throws {
        condition.lock()
        defer { condition.unlock() }
        try settle()
    }

    /// Waits until every ticker that waited here is waiting again (lock held). One that a command
    /// woke and that has not run yet is not waiting: what it will publish is not out.
    private func settle() throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while tickers.contains(where: { waiting[$0].map { $0.wake.isPending || $0.wake.takenCount != $0.taken } ?? true }) {
            guard ContinuousClock.now < deadline else { throw TimedOut(description: "the ticker to wait on the manual clock") }
            condition.wait(seconds: 0.05)
        }
    }
}
