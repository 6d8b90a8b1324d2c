// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// A player in another process, through its control socket: what `practice attach` shows the
/// practice screen on. It asks for the whole state (`{"cmd":"attach"}`), keeps the newest the
/// player sent, and turns the screen's calls into the protocol's commands. Stopping it lets go
/// of the player; `quit()` ends the player itself.
public final class RemotePlayer: PlayerHandle, @unchecked Sendable {  // mutable state is behind `shared`
    public let track: Track
    public let sidecar: String?
    public let socket: String
    public let pid: Int
    private let fd: Int32
    private struct Shared {
        var state: PlayerState
        var start: Double
        var sequence: UInt64 = 0
        var subscribers: [UUID: AsyncStream<PlayerEvent>.Continuation] = [:]
        var gone = false
    }
    private let shared: Locked<Shared>
    private var reader: ControlThread?

    /// Attaches to the player listening at `socket` (described by its `status` answer).
    public init(_ player: Players.Running) throws(PracticeError) {
        socket = player.socket
        pid = player.pid
        var address = try ControlSocket.address(socket)
        guard let fd = ControlSocket.connect(&address) else {
            throw PracticeError(.unavailable, "\(socket): the player went away")
        }
        self.fd = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        guard sendLine(PlayerCommand.attach.line, to: fd) else { close(fd); throw PracticeError(.unavailable, "\(socket): the player went away") }
        // Its first full state (the plain state event sent on connecting comes before it).
        var lines = LineReader()
        var first: StateMessage?
        let deadline = ContinuousClock.now + .seconds(3)
        while first == nil, ContinuousClock.now < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 200)
            if lines.read(from: fd) == .closed { break }
            while first == nil, let line = lines.nextLine() { first = StateMessage(line: line).flatMap { $0.form == .full ? $0 : nil } }
        }
        guard let first else { close(fd); throw PracticeError(.unavailable, "\(socket): the player did not answer") }
        do {
            track = try Track.describe(first.state.path)
        } catch {
            close(fd)
            throw PracticeError(.noInput, "\(first.state.path): the player's track cannot be read here (\(error))")
        }
        sidecar = player.status.process?.sidecar
        shared = Locked(Shared(state: first.state, start: first.start))
        let rest = lines
        reader = ControlThread(name: "practice-attach") { [self] in read(rest) }
    }

    deinit { close(fd) }

    public var state: PlayerState { shared.withLock { $0.state } }
    /// The player has gone (it quit, or the connection broke).
    public var isGone: Bool { shared.withLock { $0.gone } }
    public var startPosition: Double { shared.withLock { $0.start } }

    public func events(keepingNewest: Int?) -> AsyncStream<PlayerEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: PlayerEvent.self,
                                                            bufferingPolicy: keepingNewest.map { .bufferingNewest(max($0, 1)) } ?? .unbounded)
        continuation.onTermination = { [weak self] _ in _ = self?.shared.withLock { $0.subscribers.removeValue(forKey: id) } }
        let gone = shared.withLock { s in
            continuation.yield(PlayerEvent(kind: s.gone ? .stopped : .snapshot, state: s.state, sequence: s.sequence))
            if !s.gone { s.subscribers[id] = continuation }
            return s.gone
        }
        if gone { continuation.finish() }
        return stream
    }

    // MARK: Commands

    private func send(_ command: PlayerCommand) { _ = sendLine(command.line, to: fd) }

    /// Applies what a command will do to the state kept here at once, so that the next key
    /// builds on it (two quick `]` make two steps) before the player's event confirms it.
    private func expect(_ change: (inout PlayerState) -> Void) { shared.withLock { change(&$0.state) } }

    public func play() { send(.play) }
    public func pause() { send(.pause) }
    public func togglePause() { send(.toggle) }
    public func seek(to seconds: Double) {
        let t = min(max(seconds, 0), track.duration)
        expect { $0.position = t }
        send(.seek(t))
    }
    public func jump(to seconds: Double) {
        let t = min(max(seconds, 0), track.duration)
        expect { $0.position = t }
        send(.jumpTo(t))
    }
    public func setRate(_ rate: Double) {
        guard rate.isFinite else { return }
        let r = min(max(rate, PlaybackSettings.rateRange.lowerBound), PlaybackSettings.rateRange.upperBound)
        expect { $0.rate = r }
        send(.rate(r))
    }
    public func setPitch(_ semitones: Double) {
        guard semitones.isFinite else { return }
        let p = min(max(semitones, PlaybackSettings.pitchRange.lowerBound), PlaybackSettings.pitchRange.upperBound)
        expect { $0.pitch = p }
        send(.pitch(p))
    }
    public func setLoop(_ loop: LoopRange?, keepingCount: Bool, on: Bool) throws(PracticeError) {
        if let loop { try Player.check(loop, in: track) }
        send(.setLoop(loop, keepingCount: keepingCount, on: on))
    }
    public func setLooping(_ on: Bool) { send(.looping(on)) }
    public func rewindLoop() { send(.rewind) }
    public func setMirror(_ on: Bool) { send(.mirror(on)) }
    public func setFormant(_ on: Bool) { send(.formant(on)) }
    @discardableResult
    public func setVideo(shown: Bool?, fullScreen: Bool?) -> Bool {
        guard state.video != nil else { return false }
        if let fullScreen { send(.fullScreen(fullScreen)) }
        if let shown { send(.video(shown)) }
        return true
    }

    /// Lets go of the player (it plays on).
    public func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        reader?.join()
    }

    /// Ends the player itself.
    public func quit() { send(.quit) }

    // MARK: Events

    private func read(_ initial: LineReader) {
        var lines = initial
        defer { finish() }
        while true {
            while let line = lines.nextLine() {
                guard let message = StateMessage(line: line), message.form == .full else { continue }
                let (event, subscribers) = shared.withLock { s in
                    s.state = message.state
                    s.start = message.start
                    s.sequence += 1
                    return (PlayerEvent(kind: message.kind, state: message.state, sequence: s.sequence), Array(s.subscribers.values))
                }
                for c in subscribers { c.yield(event) }
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, -1)
            if lines.read(from: fd) == .closed { return }
        }
    }

    /// The player went away (or we let go): every subscriber hears `stopped`.
    private func finish() {
        let subscribers = shared.withLock { s in
            s.gone = true
            s.sequence += 1
            defer { s.subscribers.removeAll() }
            return (Array(s.subscribers.values), PlayerEvent(kind: .stopped, state: s.state, sequence: s.sequence))
        }
        for c in subscribers.0 { c.yield(subscribers.1); c.finish() }
    }
}
