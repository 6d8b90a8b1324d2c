// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Bytes read from a stream, cut into lines: the one line reader of the control socket, its
/// client and `--control stdin`.
public struct LineReader: Sendable {
    private var pending: [UInt8] = []
    /// A line longer than this is not from a line-based peer.
    public static let longestLine = 65_536

    public init() {}

    public enum Read: Equatable, Sendable {
        /// Bytes arrived (their lines are waiting in `nextLine()`).
        case bytes
        /// Nothing to read now (a non-blocking descriptor), or a signal interrupted the read.
        case nothing
        /// The other end closed the stream, or it failed.
        case closed
    }

    /// Reads what `fd` has (at most 4 KiB).
    public mutating func read(from fd: Int32) -> Read {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 { return errno == EAGAIN || errno == EINTR ? .nothing : .closed }
        if n == 0 { return .closed }
        pending += buffer[0..<n]
        return .bytes
    }

    /// The next whole line, without its line break (`\n` or `\r\n`), or nil until one is complete.
    public mutating func nextLine() -> String? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var end = newline
        if end > 0, pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        defer { pending.removeSubrange(...newline) }
        return String(decoding: pending[..<end], as: UTF8.self)
    }

    /// What is left after the stream closed without a final line break, as a last line (nil if nothing).
    public mutating func rest() -> String? {
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Whether what waits for its line break is already too long for a line.
    public var isOverlong: Bool { pending.count > Self.longestLine }
}

/// Writes `line` and a newline to the socket `fd`; false if the peer has gone or does not read.
func sendLine(_ line: String, to fd: Int32) -> Bool {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
        if n < 0, errno == EINTR { continue }
        if n <= 0 { return false }
        offset += n
    }
    return true
}
