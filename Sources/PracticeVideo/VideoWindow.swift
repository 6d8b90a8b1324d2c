// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// The picture of a file with a video stream, in a window of its own beside the practice screen:
/// the `mpv` program (its sound off) driven over its JSON IPC socket, following the player, which
/// stays the clock. It pauses, plays, seeks (exactly, to the frame) and takes the speed as the
/// player does, holds on the loop's start during a count-in, and is sought again when it drifts
/// from the heard position by more than a frame, and mirrored as the player's state says
/// (`PlayerState.isMirrored`). mpv closed or killed: the sound goes on, and one line says so.
public final class VideoWindow: SessionService, @unchecked Sendable {  // `process` and `follower` are written once, in init
    public struct Settings: Sendable {
        /// The mpv program.
        public var mpv = "/usr/bin/mpv"
        public init() {}
    }

    /// Why no window can be shown here (no display), or nil.
    public static func noDisplay(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty { return nil }
        return "no display to show the picture on (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    }

    private let player: Player
    private let frame: Double
    private let socketPath: String
    private let process: pid_t
    private let stopping = Locked(false)
    private let wake = WakePipe()
    /// What changed since the follower last looked: a jump (the picture must be sought).
    private let jumped = Locked(true)
    private var follower: ControlThread?
    private var subscription: Task<Void, Never>?
    private let say: @Sendable (String) -> Void

    /// Opens the window on `file` (its video stream at `fps` frames a second) and follows
    /// `player`; `say` hears the one line said when the window goes away. Throws when mpv cannot
    /// start or does not answer within 5 s.
    public init(player: Player, file: String, fps: Double, settings: Settings = Settings(),
                say: @escaping @Sendable (String) -> Void) throws(PracticeError) {
        self.player = player
        self.frame = 1 / max(fps, 1)
        self.say = say
        let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        socketPath = "\(base)/practice-video-\(getpid()).sock"
        unlink(socketPath)
        let title = player.state.title
        guard let pid = Spawning.start(settings.mpv, [
            "--no-config", "--aid=no", "--input-ipc-server=\(socketPath)", "--idle=yes", "--keep-open=always", "--pause",
            "--osd-level=0", "--force-window=yes", "--hr-seek=yes", "--input-terminal=no", "--terminal=no",
            "--title=\(title) — practice", "--vf=\(player.state.isMirrored ? "hflip" : "")", file,
        ]) else { throw PracticeError(.unavailable, "\(settings.mpv): cannot start it to show the picture") }
        process = pid
        // Until its socket answers and the file is loaded (a seek before that is lost).
        let deadline = ContinuousClock.now + .seconds(5)
        var ready = false
        while !ready, ContinuousClock.now < deadline {
            if var client = try? ControlClient(path: socketPath) {
                while !ready, ContinuousClock.now < deadline, client.send(#"{"command":["get_property","duration"],"request_id":1}"#) {
                    while case .line(let line) = client.read(timeout: 0.2) {
                        guard let o = try? JSONValue.parse(line).object, o["request_id"]?.int == 1 else { continue }
                        ready = o["error"]?.string == "success"
                        break
                    }
                    if !ready { usleep(20_000) }
                }
            }
            if !ready { usleep(20_000) }
        }
        guard ready else {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            throw PracticeError(.unavailable, "mpv did not open its window within 5 s")
        }
        let stream = player.events(keepingNewest: 64, ticks: { false })
        subscription = Task.detached { [jumped, wake] in
            for await event in stream {
                if [.seeked, .passStarted, .loopChanged, .snapshot].contains(event.kind) { jumped.withLock { $0 = true } }
                wake.ring()
            }
        }
        follower = ControlThread(name: "practice-video") { [self] in follow() }
    }

    /// Closes the window.
    public func stop() {
        subscription?.cancel()
        stopping.withLock { $0 = true }
        wake.ring()
        follower?.join()
    }

    public var replacement: String? { nil }
    public var quitBy: String? { nil }

    /// Waits up to a second for mpv to end, then ends it; its socket removed.
    private func close() {
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(1)
        while waitpid(process, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(process, SIGKILL)
                while waitpid(process, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(10_000)
        }
        unlink(socketPath)
    }

    // MARK: The follower (its own thread)

    /// What mpv was last told.
    private struct Told {
        var paused: Bool?
        var speed: Double?
        var mirror: Bool?
    }

    private func follow() {
        guard var client = try? ControlClient(path: socketPath) else { close(); return }
        defer {
            // Asked to quit (its window closes at once), then made to.
            _ = client.send(#"{"command":["quit"]}"#)
            close()
        }
        var told = Told(mirror: player.state.isMirrored)
        var lastCheck = ContinuousClock.now
        var request = 0
        /// Sends one command; false once mpv has gone.
        func send(_ command: [JSONValue]) -> Bool {
            request += 1
            return client.send(JSONValue.object(["command": .array(command), "request_id": .integer(request)]).compact())
        }
        /// The picture's position, as mpv says (events in between passed over).
        func timePos() -> Double? {
            guard send([.string("get_property"), .string("time-pos")]) else { return nil }
            let deadline = ContinuousClock.now + .milliseconds(500)
            while ContinuousClock.now < deadline {
                guard case .line(let line) = client.read(timeout: 0.1) else { continue }
                guard let o = try? JSONValue.parse(line).object, o["request_id"]?.int == request else { continue }
                return o["data"]?.double
            }
            return nil
        }
        while !stopping.withLock({ $0 }) {
            var poller = pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, 50)
            wake.drain()
            if stopping.withLock({ $0 }) { break }
            // What mpv said meanwhile is passed over; its end means the window is gone.
            while true {
                let read = client.read(timeout: 0)
                if read == .closed {
                    say("the video window closed; the sound plays on")
                    return
                }
                if read == .timeout { break }
            }
            let s = player.state
            // During a count-in the picture holds on the loop's start.
            let holding = s.isPlaying ? s.loop?.countIn.flatMap { _ in s.loop?.start } : nil
            let paused = !s.isPlaying || holding != nil
            var ok = true
            let mirrored = s.isMirrored
            if told.mirror != mirrored {
                ok = ok && send([.string("set_property"), .string("vf"), .string(mirrored ? "hflip" : "")])
                told.mirror = mirrored
            }
            if told.speed != s.rate {
                ok = ok && send([.string("set_property"), .string("speed"), .double(s.rate)])
                told.speed = s.rate
            }
            if told.paused != paused {
                ok = ok && send([.string("set_property"), .string("pause"), .bool(paused)])
                told.paused = paused
                jumped.withLock { $0 = true }   // paused: to the exact frame heard; playing: from it
            }
            if jumped.withLock({ j in defer { j = false }; return j }) {
                ok = ok && send([.string("seek"), .double(holding ?? s.position), .string("absolute+exact")])
                lastCheck = ContinuousClock.now
            } else if !paused, ContinuousClock.now - lastCheck > .milliseconds(500) {
                // Drifted by more than a frame: sought again to the heard position.
                lastCheck = ContinuousClock.now
                if let shown = timePos() {
                    let heard = player.state.position
                    if abs(shown - heard) > frame { ok = ok && send([.string("seek"), .double(heard), .string("absolute+exact")]) }
                }
            }
            if !ok {
                say("the video window closed; the sound plays on")
                return
            }
        }
    }
}
