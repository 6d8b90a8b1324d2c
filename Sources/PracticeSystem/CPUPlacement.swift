// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Where a new thread starts. Linux puts a new thread on its creator's CPU, and when the creator
/// keeps that CPU busy the new thread waits there while the other CPUs idle: at a launch, the
/// sound device's thread waited 2.4 ms (median of 10) for the argument parser on the main
/// thread, then took turns with it on one core of two (`perf record -e sched:sched_wakeup_new`:
/// `target_cpu` the parser's, the other CPU idle). A thread that is to work beside its creator
/// starts on another CPU this process may use, then may run on any of them again.
///
/// `sched_getcpu`, `sched_getaffinity` and the `pthread_*affinity_np` calls are GNU extensions
/// that Swift's Glibc module does not show: looked up once, and without them a thread starts
/// where Linux puts it.
enum CPUPlacement {
    /// The CPUs this process may use, and those of them the calling thread is not on; nil when
    /// there is no other (one CPU, or the calls are missing).
    static func besideCaller() -> (all: cpu_set_t, others: cpu_set_t)? {
        guard let calls else { return nil }
        let current = calls.currentCPU()
        guard current >= 0 else { return nil }
        var all = cpu_set_t()
        guard calls.getAffinity(0, MemoryLayout<cpu_set_t>.size, &all) == 0 else { return nil }
        var others = all
        let bitsPerWord = UInt.bitWidth
        let (word, bit) = (Int(current) / bitsPerWord, Int(current) % bitsPerWord)
        let any = withUnsafeMutableBytes(of: &others) { raw -> Bool in
            let words = raw.bindMemory(to: UInt.self)
            guard word < words.count else { return false }
            words[word] &= ~(1 << UInt(bit))
            return words.contains { $0 != 0 }
        }
        return any ? (all, others) : nil
    }

    /// Asks that a thread made with `attributes` start on one of `cpus`.
    static func start(_ attributes: inout pthread_attr_t, on cpus: inout cpu_set_t) -> Bool {
        calls?.setStartAffinity(&attributes, MemoryLayout<cpu_set_t>.size, &cpus) == 0
    }

    /// Lets the calling thread run on any of `cpus` again.
    static func allowCurrentThread(on cpus: inout cpu_set_t) {
        _ = calls?.setAffinity(pthread_self(), MemoryLayout<cpu_set_t>.size, &cpus)
    }

    private struct Calls {
        let currentCPU: @convention(c) () -> Int32
        let getAffinity: @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32
        let setStartAffinity: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?) -> Int32
        let setAffinity: @convention(c) (pthread_t, Int, UnsafeRawPointer?) -> Int32
    }

    private static let calls: Calls? = {
        func look<T>(_ name: String, as: T.Type) -> T? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let currentCPU = look("sched_getcpu", as: (@convention(c) () -> Int32).self),
              let getAffinity = look("sched_getaffinity", as: (@convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32).self),
              let setStartAffinity = look("pthread_attr_setaffinity_np", as: (@convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?) -> Int32).self),
              let setAffinity = look("pthread_setaffinity_np", as: (@convention(c) (pthread_t, Int, UnsafeRawPointer?) -> Int32).self)
        else { return nil }
        return Calls(currentCPU: currentCPU, getAffinity: getAffinity, setStartAffinity: setStartAffinity, setAffinity: setAffinity)
    }()
}
