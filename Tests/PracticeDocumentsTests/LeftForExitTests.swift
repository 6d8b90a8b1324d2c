// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeSystem
import Testing

/// What a one-shot command leaves for its process's exit: nothing until it says the process ends
/// with it, then everything it hands over.
@Suite struct LeftForExitTests {
    final class Witness {
        let gone: @Sendable () -> Void
        init(_ gone: @escaping @Sendable () -> Void) { self.gone = gone }
        deinit { gone() }
    }

    @Test func nothingIsKeptUntilTheCommandSaysItsProcessEndsWithIt() {
        let leftovers = LeftForExit()
        let freed = Locked(0)
        #expect(!leftovers.isOn)
        do {
            let w = Witness { freed.withLock { $0 += 1 } }
            leftovers.keep(w)
            leftovers.keep([w, w])
        }
        #expect(freed.withLock { $0 } == 1)   // let go with its last owner: the player's case

        leftovers.untilExit()
        leftovers.untilExit()   // again: what it keeps stays
        #expect(leftovers.isOn)
        do {
            let w = Witness { freed.withLock { $0 += 1 } }
            leftovers.keep(w)
            leftovers.keep(Witness { freed.withLock { $0 += 1 } })
        }
        #expect(freed.withLock { $0 } == 1)   // both kept for the exit
    }
}
