// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A self-pipe: `ring()` from any thread makes its read end readable until `drain()`.
public final class WakePipe: Sendable {
    public let readEnd: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        for e in ends {
            _ = fcntl(e, F_SETFL, fcntl(e, F_GETFL) | O_NONBLOCK)
            _ = fcntl(e, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    public func ring() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)   // a full pipe is already awake
    }

    public func drain() {
        var sink = [UInt8](repeating: 0, count: 64)
        while sink.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
