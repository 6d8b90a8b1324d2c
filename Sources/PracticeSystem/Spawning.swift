// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// What starting another program needs from glibc beyond Swift's Glibc module.
public enum Spawning {
    /// Adds "close every descriptor from `lowest` up" to `actions`
    /// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34, which Swift's Glibc module does
    /// not show: looked up once). False where the C library has no such call.
    @discardableResult
    public static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let call = addCloseFrom else { return false }
        return call(&actions, lowest) == 0
    }

    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    /// Whether process `pid` is there and has not ended: `kill(pid, 0)` finds it (one of another
    /// user's, which it may not signal, counts) and /proc/PID/stat does not show it dead, a
    /// zombie (ended, its parent not having reaped it yet, which `kill` still finds), or exiting.
    /// A process killed while it held a lock lets go of the lock as its files close, part-way
    /// through its exit and before it is a zombie: the next holder, looking then, sees it
    /// running still (state R) but with the kernel's PF_EXITING flag.
    public static func isRunning(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return errno != ESRCH }
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let n = read(fd, &bytes, bytes.count)
        return n > 0 ? isRunning(stat: bytes[..<n]) : true
    }

    /// What a /proc/PID/stat line says of a process `kill` found: not when it is dead, a zombie
    /// or exiting; when the line cannot be read, running (a writer's file is left, not lost).
    static func isRunning(stat bytes: ArraySlice<UInt8>) -> Bool {
        // "PID (NAME) S PPID PGRP SESSION TTY TPGID FLAGS ...": the fields after the name's last
        // closing parenthesis (a name may hold one).
        guard let end = bytes.lastIndex(of: UInt8(ascii: ")")), end + 2 < bytes.endIndex else { return true }
        let fields = bytes[(end + 2)...].split(separator: UInt8(ascii: " "), maxSplits: 7)
        guard let state = fields.first?.first else { return true }
        if state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") { return false }
        guard fields.count > 6, let flags = UInt(String(decoding: fields[6], as: UTF8.self)) else { return true }
        let exiting: UInt = 0x4   // PF_EXITING (include/linux/sched.h)
        return flags & exiting == 0
    }

    /// Runs `path` with `arguments` (stdin from /dev/null) and waits: its exit status and what it
    /// wrote on stdout and stderr together. Nil when it could not be started.
    public static func run(_ path: String, _ arguments: [String]) -> (status: Int32, output: String)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        closeFrom(3, in: &actions)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawn(&child, path, &actions, nil, argv, environ)
        close(ends[1])
        defer { close(ends[0]) }
        guard rc == 0 else { return nil }
        let output = readToEnd(ends[0])
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return (exitCode(status), String(decoding: output, as: UTF8.self))
    }

    /// A `waitpid` status as a shell says it: the exit code, or 128 + the signal that ended it.
    public static func exitCode(_ status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Starts `path` with `arguments` beside this process (stdin, stdout and stderr on /dev/null,
    /// nothing else of ours open, signals as new) and returns its pid, or nil.
    public static func start(_ path: String, _ arguments: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        closeFrom(3, in: &actions)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        freshSignals(&attr)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        return posix_spawn(&child, path, &actions, &attr, argv, environ) == 0 ? child : nil
    }

    /// Sets `attr` so that the child starts with no signal blocked and every one at its default
    /// (a thread of ours may block some: dispatch's do, and SIGTERM would then stay pending in the
    /// child for ever), with `flags` besides.
    public static func freshSignals(_ attr: inout posix_spawnattr_t, flags: Int32 = 0) {
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | flags))
    }

    /// Everything `fd` gives until its end (or an error), reads interrupted by a signal retried.
    public static func readToEnd(_ fd: Int32) -> [UInt8] {
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return output }
            output += chunk[0..<n]
        }
    }
}
