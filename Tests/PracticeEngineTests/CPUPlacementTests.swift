// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
@testable import PracticeSystem
import Testing

/// A new control thread starts on another CPU than its creator's (Linux would put it on the
/// creator's, where it waits while the creator works), then may run on every CPU again.
@Suite struct CPUPlacementTests {
    /// The calls `CPUPlacement` looks up, for the test's own look.
    static let currentCPU = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_getcpu")!, to: (@convention(c) () -> Int32).self)
    static let getAffinity = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getaffinity_np")!,
                                           to: (@convention(c) (pthread_t, Int, UnsafeMutableRawPointer?) -> Int32).self)
    static func cpus(_ set: cpu_set_t) -> Set<Int> {
        withUnsafeBytes(of: set) { (raw: UnsafeRawBufferPointer) -> Set<Int> in
            var found = Set<Int>()
            for (w, word) in raw.bindMemory(to: UInt.self).enumerated() {
                for bit in 0..<UInt.bitWidth where word & (UInt(1) << UInt(bit)) != 0 { found.insert(w * UInt.bitWidth + bit) }
            }
            return found
        }
    }
    static var ownCPUs: Set<Int> {
        var set = cpu_set_t()
        _ = getAffinity(pthread_self(), MemoryLayout<cpu_set_t>.size, &set)
        return cpus(set)
    }

    @Test func theOthersAreEveryAllowedCPUButTheCallers() throws {
        let allowed = Self.ownCPUs
        guard allowed.count > 1 else {
            #expect(CPUPlacement.besideCaller() == nil)   // one CPU: nowhere else to start
            return
        }
        let (all, others) = try #require(CPUPlacement.besideCaller())
        #expect(Self.cpus(all) == allowed)
        // One left out: the caller's as it asked (it may have moved since).
        #expect(Self.cpus(others).isSubset(of: allowed))
        #expect(Self.cpus(others).count == allowed.count - 1)
    }

    @Test func aNewThreadStartsElsewhereThenMayRunAnywhere() {
        let allowed = Self.ownCPUs
        guard allowed.count > 1 else { return }
        for _ in 0..<50 {   // without the placement, 1 to 6 of 10 started on the creator's CPU here
            // A fresh creator, kept busy on its CPU until the thread it made has looked.
            let seen = Locked<(creator: Int32, started: Int32, mask: Set<Int>)?>(nil)
            let creator = ControlThread(name: "test-creator") {
                let here = Self.currentCPU()
                let made = ControlThread(name: "test-made") {
                    let started = Self.currentCPU()
                    seen.withLock { $0 = (here, started, Self.ownCPUs) }
                }
                // Busy where it is, as the parser is at a launch (a yield lets nothing move it).
                while seen.withLock({ $0 == nil }) {}
                made.join()
            }
            creator.join()
            let s = seen.withLock { $0 }!
            #expect(s.started != s.creator, "the new thread started on its creator's CPU \(s.creator)")
            #expect(s.mask == allowed)   // then free to move anywhere
        }
    }
}
