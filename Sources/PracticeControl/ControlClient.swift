// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// A client of a player's control socket (`ControlSocket`): reads its NDJSON events line by line.
public struct ControlClient: ~Copyable {
    public let path: String
    private let fd: Int32
    private var lines = LineReader()

    /// What `read(timeout:)` got.
    public enum Read: Equatable, Sendable {
        case line(String)
        case timeout
        /// The player has gone (it closed the connection).
        case closed
    }

    /// Connects to the socket at `path`; an error (exit 69) when no player is listening there.
    public init(path: String) throws(PracticeError) {
        self.path = path
        var address = try ControlSocket.address(path)
        guard let fd = ControlSocket.connect(&address) else {
            let reason = errno == ENOENT ? "no such socket" : systemMessage()
            throw PracticeError(.unavailable, "\(path): no player is listening there (\(reason)); start one with 'practice FILE --control socket'")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends one command line; false if the player has gone.
    public func send(_ line: String) -> Bool { sendLine(line, to: fd) }

    /// The next line the player sent, waiting at most `timeout` seconds for it.
    public mutating func read(timeout: Double) -> Read {
        if let line = lines.nextLine() { return .line(line) }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32((min(max(timeout, 0), 3600) * 1000).rounded(.up))
        let ready = poll(&p, 1, ms)
        if ready < 0 { return errno == EINTR ? .timeout : .closed }
        if ready == 0 { return .timeout }
        if lines.read(from: fd) == .closed { return .closed }
        return lines.nextLine().map(Read.line) ?? .timeout
    }
}

/// A player's state as a follower of its `state` messages needs it (`StateMessage`).
public struct StateEvent: Sendable, Equatable {
    /// The loop being played: its ends, and whether the pass heard is its last.
    public struct Loop: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var isLastPass: Bool
        public init(start: Double, end: Double, isLastPass: Bool = false) { self.start = start; self.end = end; self.isLastPass = isLastPass }
    }

    /// The heard position, seconds on the source timeline.
    public var position: Double
    public var duration: Double
    public var rate: Double
    public var isPlaying: Bool
    public var isFinished: Bool
    public var loop: Loop?

    public init(position: Double, duration: Double, rate: Double = 1, isPlaying: Bool, isFinished: Bool = false, loop: Loop? = nil) {
        self.position = position; self.duration = duration; self.rate = rate; self.isPlaying = isPlaying
        self.isFinished = isFinished; self.loop = loop
    }

    /// The state a `state` message carries: nil for other lines (errors, other forms, not JSON).
    public init?(line: String) {
        guard let message = StateMessage(line: line), message.form == .state else { return nil }
        self.init(message.state)
    }

    public init(_ s: PlayerState) {
        self.init(position: s.position, duration: s.duration, rate: s.rate, isPlaying: s.isPlaying, isFinished: s.isFinished)
        if let l = s.loop, l.isOn {
            loop = Loop(start: l.start, end: l.end, isLastPass: l.passes.map { l.pass >= $0 } ?? false)
        }
    }
}
