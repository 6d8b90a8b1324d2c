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
/// from the heard position by more than a frame; it is shown, hidden, full screen and mirrored as
/// the player's state says (`PlayerState.video`, `isMirrored`), and draws the section, the
/// eight-count and the count-in's words over the picture. mpv closed or killed: the sound goes
/// on, one line says so, and the window is hidden in the player's state (`v` opens it again).
public final class VideoWindow: SessionService, @unchecked Sendable {  // `follower` is written once, in init
    public struct Settings: Sendable {
        /// The mpv program.
        public var mpv = "/usr/bin/mpv"
        /// The section, the eight-count and the count-in drawn over the picture (`--no-overlay`: not).
        public var overlay = true
        /// How long mpv may take to open the file and answer (a loaded machine is slow to).
        public var patience: Duration = .seconds(30)
        public init() {}
    }

    /// Why no window can be shown here (no display), or nil.
    public static func noDisplay(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty { return nil }
        return "no display to show the picture on (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    }

    private let player: Player
    private let file: String
    private let settings: Settings
    private let frame: Double
    private let socketPath: String
    private let stopping = Locked(false)
    private let wake = WakePipe()
    /// What changed since the follower last looked: a jump (the picture must be sought).
    private let jumped = Locked(true)
    private var follower: ControlThread?
    private var subscription: Task<Void, Never>?
    private let say: @Sendable (String) -> Void

    /// Follows `player` with a window on `file` (its video stream at `fps` frames a second),
    /// opened whenever the player's state says it is shown; `say` hears the one line said when
    /// the window goes away or cannot open.
    public init(player: Player, file: String, fps: Double, settings: Settings = Settings(),
                say: @escaping @Sendable (String) -> Void) {
        self.player = player
        self.file = file
        self.settings = settings
        self.frame = 1 / max(fps, 1)
        self.say = say
        // Beside the players' sockets, in the user's own folder (not a shared /tmp).
        let folder = ControlSocket.runtimeFolder()
        FileSystem.makeFolders(folder, mode: 0o700)
        socketPath = "\(folder)/video-\(getpid()).sock"
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

    private var isStopping: Bool { stopping.withLock { $0 } }

    static let setpriv = "/usr/bin/setpriv"

    // MARK: mpv

    /// One mpv and the connection to it (the follower's alone).
    private final class Mpv {
        let pid: pid_t
        let socketPath: String
        var client: ControlClient
        var request = 0
        /// What mpv was last told.
        var paused: Bool?
        var speed: Double?
        var mirror: Bool?
        var fullScreen: Bool?
        var overlay: String?
        /// When the picture's place is read next (`time-pos`), for drift.
        var nextCheck = ContinuousClock.now
        /// The picture against the sound (s of the track, + ahead), averaged over the reads since
        /// the last seek, and how many reads that is.
        var phase: (off: Double, reads: Int)?
        /// That average once it rests on enough reads (four) to steer by; nil before.
        var settledOffset: Double? { phase.flatMap { $0.reads >= 4 ? $0.off : nil } }
        /// The heard position last seen to move, and when.
        var heard: (position: Double, at: ContinuousClock.Instant)?
        /// The pass of a plain loop that the picture was sought into ahead of its wrap.
        var soughtInto: Int?
        /// The speed's nudge (1: the player's speed) while the picture catches up with the sound.
        var nudge = 1.0

        init(pid: pid_t, socketPath: String, client: consuming ControlClient) {
            self.pid = pid; self.socketPath = socketPath; self.client = client
        }

        /// Sends one command; false once mpv has gone.
        func send(_ command: JSONValue) -> Bool {
            request += 1
            return client.send(JSONValue.object(["command": command, "request_id": .integer(request)]).compact())
        }

        func send(_ command: [JSONValue]) -> Bool { send(.array(command)) }

        /// Why mpv could not load the file (its `end-file` event with an error), once it said so.
        var loadError: String?

        /// The answer to the latest request (events in between passed over, but for a failed
        /// load: `loadError`), within `timeout` s.
        func answer(timeout: Double) -> [String: JSONValue]? {
            let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
            while ContinuousClock.now < deadline {
                guard case .line(let line) = client.read(timeout: 0.1), let o = try? JSONValue.parse(line).object else { continue }
                if o["event"]?.string == "end-file", o["reason"]?.string == "error" {
                    loadError = o["file_error"]?.string ?? "it could not load the file"
                    return nil
                }
                guard o["request_id"]?.int == request else { continue }
                return o
            }
            return nil
        }

        /// Passes over what mpv said; false once it has gone.
        func drain() -> Bool {
            while true {
                switch client.read(timeout: 0) {
                case .closed: return false
                case .timeout: return true
                case .line: continue
                }
            }
        }

        /// Asks mpv to quit (its window closes at once), waits up to a second, then ends it.
        func close(asking: Bool) {
            if asking { _ = send([.string("quit")]) }
            VideoWindow.end(pid, socket: socketPath, within: .seconds(1))
        }
    }

    /// Waits up to `within` for mpv (`pid`) to end, ends it (SIGKILL), reaps it and removes its socket.
    static func end(_ pid: pid_t, socket: String, within: Duration) {
        var status: Int32 = 0
        let deadline = ContinuousClock.now + within
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(10_000)
        }
        unlink(socket)
    }

    /// What opening a window came to.
    private enum Opened {
        case window(Mpv)
        case failed(String)
        case stopped
    }

    /// Starts mpv on the file as the state `s` has it and waits until its socket answers with the
    /// file loaded (a seek before that is lost).
    private func open(_ s: PlayerState) -> Opened {
        unlink(socketPath)
        var arguments = [
            "--no-config", "--aid=no", "--input-ipc-server=\(socketPath)", "--idle=yes", "--keep-open=always", "--pause",
            "--osd-level=0", "--force-window=yes", "--hr-seek=yes", "--input-terminal=no", "--terminal=no",
            // Its keys would move the picture away from the sound: the keys are the screen's. So
            // would its on-screen controller's seek bar; it and mpv's other built-in scripts
            // (stats, console, youtube-dl) are not loaded: a Lua thread woken at every frame,
            // about 1 % of a core (bench/video).
            "--input-default-bindings=no", "--osc=no", "--load-stats-overlay=no", "--load-osd-console=no", "--ytdl=no",
            // mpv expands ${…} in a title: a tag's dollar signs are kept as they are ($$).
            "--title=\(s.title.terminalSafe.replacing("$", with: "$$")) — practice", "--vf=\(s.isMirrored ? "hflip" : "")",
        ]
        if s.video?.isFullScreen == true { arguments.append("--fullscreen") }
        guard access(settings.mpv, X_OK) == 0 else { return .failed("\(settings.mpv) is not installed (Debian's mpv package shows it)") }
        // Through util-linux's setpriv, mpv gets SIGKILL when this thread ends, however this
        // process ends (killed, it could close nothing): no window is left behind.
        let started = access(Self.setpriv, X_OK) == 0
            ? Spawning.start(Self.setpriv, ["--pdeathsig", "KILL", "--", settings.mpv] + arguments + ["--", file])
            : Spawning.start(settings.mpv, arguments + ["--", file])
        guard let pid = started else { return .failed("\(settings.mpv): cannot start it") }
        func fail(_ why: String) -> Opened {
            Self.end(pid, socket: socketPath, within: .zero)
            return isStopping ? .stopped : .failed(why)
        }
        let deadline = ContinuousClock.now + settings.patience
        while ContinuousClock.now < deadline {
            if isStopping { return fail("") }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                unlink(socketPath)
                return .failed("mpv ended before it showed the picture (exit status \((status >> 8) & 0xFF))")
            }
            if let client = try? ControlClient(path: socketPath) {
                let mpv = Mpv(pid: pid, socketPath: socketPath, client: client)
                mpv.mirror = s.isMirrored
                mpv.fullScreen = s.video?.isFullScreen ?? false
                /// Whether mpv answers `property` (it has a value).
                func has(_ property: String) -> Bool? {
                    guard mpv.send([.string("get_property"), .string(property)]) else { return nil }
                    return mpv.answer(timeout: 0.5)?["error"]?.string == "success"
                }
                func says(_ property: String) -> Bool {
                    mpv.send([.string("get_property"), .string(property)]) && mpv.answer(timeout: 0.5)?["data"]?.bool == true
                }
                while ContinuousClock.now < deadline, !isStopping {
                    guard let loaded = has("duration") else { break }
                    // Loaded, and a picture decoded (a corrupt stream loads, runs to its end and
                    // shows none).
                    if loaded {
                        guard let shown = has("video-out-params") else { break }
                        if shown { return .window(mpv) }
                        if says("eof-reached") { return fail("mpv could decode none of the file's pictures") }
                    }
                    // A picture that cannot be decoded (a corrupt video stream): said at once. mpv
                    // says so in an event, or (if that came before this connection) is idle: with
                    // a file given and kept open at its end, it is idle only when it could not load it.
                    if mpv.loadError == nil, says("idle-active") { mpv.loadError = "it could not load the file" }
                    if let why = mpv.loadError { return fail("mpv cannot show it (\(why))") }
                    usleep(20_000)
                }
            }
            usleep(20_000)
        }
        return fail("mpv did not open the file within \(settings.patience.components.seconds) s")
    }

    // MARK: The follower (its own thread)

    private func follow() {
        var mpv: Mpv?
        defer { mpv?.close(asking: true) }
        var view = TrackView(player: player)
        _ = view.refresh(force: true)
        var lastLook = ContinuousClock.now
        var wait: Int32 = 50
        while !isStopping {
            var poller = pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, wait)
            wait = 50
            wake.drain()
            if isStopping { break }
            let s = player.state
            let wanted = s.video?.isShown ?? false
            if !wanted {
                mpv?.close(asking: true)
                mpv = nil
                continue
            }
            if mpv == nil {
                switch open(s) {
                case .window(let opened):
                    // Followed from the state now (opening takes a while): to the frame heard.
                    mpv = opened
                    jumped.withLock { $0 = true }
                    wake.ring()
                    continue
                case .failed(let why):
                    player.setVideo(shown: false)
                    say("no picture: \(why); the sound plays on")
                    continue
                case .stopped:
                    return
                }
            }
            guard let window = mpv else { continue }
            if ContinuousClock.now - lastLook > .milliseconds(500) {
                lastLook = ContinuousClock.now
                _ = view.refresh(force: false)
            }
            if window.drain(), let next = follow(window, s, view) {
                wait = next
            } else {
                window.close(asking: false)
                mpv = nil
                player.setVideo(shown: false)
                say("the video window closed; the sound plays on (v opens it again)")
            }
        }
    }

    /// How long mpv takes from a seek to showing its frame while playing (bench/video: a jump's
    /// new frame shows 24 ms after the command, median): a seek for drift while playing aims
    /// that far ahead.
    static let seekLead = 0.025

    /// Tells mpv what changed in `s`; the milliseconds until it should be looked at again (less
    /// than the usual 50 when a loop's wrap comes sooner), or nil once mpv has gone.
    private func follow(_ mpv: Mpv, _ s: PlayerState, _ view: TrackView) -> Int32? {
        let now = ContinuousClock.now
        // The sound is heard moving (not yet started, waiting for the device, or in a gap between
        // passes: the position holds, and so does the picture).
        if mpv.heard?.position != s.position { mpv.heard = (s.position, now) }
        let moving = mpv.heard.map { now - $0.at < .milliseconds(120) } ?? true
        // During a count-in the picture holds on the loop's start.
        let holding = s.isPlaying ? s.loop?.countIn.flatMap { _ in s.loop?.start } : nil
        let paused = !s.isPlaying || holding != nil || !moving
        let lead = paused ? 0 : Self.seekLead * s.rate
        var ok = true
        func seek(_ to: Double) {
            ok = ok && mpv.send([.string("seek"), .double(to), .string("absolute+exact")])
            (mpv.nextCheck, mpv.phase) = (now + .milliseconds(100), nil)
        }
        if mpv.mirror != s.isMirrored {
            ok = ok && mpv.send([.string("set_property"), .string("vf"), .string(s.isMirrored ? "hflip" : "")])
            mpv.mirror = s.isMirrored
        }
        let fullScreen = s.video?.isFullScreen ?? false
        if mpv.fullScreen != fullScreen {
            ok = ok && mpv.send([.string("set_property"), .string("fullscreen"), .bool(fullScreen)])
            mpv.fullScreen = fullScreen
        }
        // The player's speed, nudged by up to 10 % while the picture catches up with the sound.
        let speed = (s.rate * mpv.nudge * 10_000).rounded() / 10_000
        if mpv.speed != speed {
            ok = ok && mpv.send([.string("set_property"), .string("speed"), .double(speed)])
            mpv.speed = speed
        }
        if mpv.paused != paused {
            ok = ok && mpv.send([.string("set_property"), .string("pause"), .bool(paused)])
            mpv.paused = paused
            jumped.withLock { $0 = true }   // paused: to the exact frame heard; playing: from it
        }
        if settings.overlay {
            let text = Self.overlay(s, view.here(at: s.position))
            if mpv.overlay != text {
                ok = ok && mpv.send(.object(["name": .string("osd-overlay"), "id": .integer(1), "format": .string("ass-events"),
                                             "data": .string(text), "res_x": .integer(0), "res_y": .integer(720)]))
                mpv.overlay = text
            }
        }
        var wait: Int32 = 50
        if jumped.withLock({ j in defer { j = false }; return j }) {
            if let pass = mpv.soughtInto, s.loop?.pass == pass, !paused {
                // The wrap the picture was sought ahead of: looked at soon, not sought again.
                mpv.nextCheck = now + .milliseconds(50)
            } else {
                // A jump: the sound restarts there after the device's latency, about when
                // mpv shows the frame, so no lead.
                seek(holding ?? s.position)
            }
            mpv.soughtInto = nil
        } else if !paused, let l = s.loop, l.isOn, l.rehearsal.isPlain, l.passes.map({ l.pass < $0 }) ?? true, mpv.soughtInto != l.pass + 1,
                  s.position < l.end, s.rate > 0 {
            // A plain loop: its wrap sought ahead, on mpv's frame clock. mpv without its sound
            // acts on a seek at its next frame (its time-pos moving on, which happens where the
            // heard position is k·frame − frame/2 − the averaged offset), and carries on from
            // there at its speed: so the seek is sent just after the tick before the first one
            // due from a quarter of a frame before B, for where the sound will be at that tick.
            // Until then, looked at again in time for it.
            let f = frame, r = s.rate
            let offset = mpv.settledOffset ?? 0
            func tick(atOrAfter v: Double) -> Double { ((v + f / 2 + offset) / f).rounded(.up) * f - f / 2 - offset }
            var due = tick(atOrAfter: l.end - f / 4)
            // Too late for that one (the follower woke late): the next.
            if s.position > due - 0.006 * r { due = tick(atOrAfter: s.position + 0.006 * r) }
            let sendFrom = due - f + 0.004 * r
            if s.position >= sendFrom {
                // Three quarters of a frame back (bench/video: from −1 to −½ frame, the same).
                seek(l.start + (due - l.end) - 0.75 * f)
                mpv.soughtInto = l.pass + 1
            } else {
                wait = Int32(min(50, max(1, (sendFrom - s.position) / r * 1000)))
            }
        }
        if paused || mpv.soughtInto != nil { (mpv.nudge, mpv.phase) = (1, nil) }
        if mpv.soughtInto == nil, !paused, now >= mpv.nextCheck {
            // Drift: the picture's place against the heard one. mpv's `time-pos` moves a frame at a
            // time and runs a frame ahead of the one on the screen (bench/video: read as that
            // frame's start, the picture settled 47 ms late), so one read places the picture
            // within a frame: the shown frame's middle (`time-pos` − half a frame) against the
            // heard position, averaged over reads at irregular
            // moments (reads in step with the frames, as every 150 ms is at 0.8×, see the same
            // part of each and measured a steady picture up to a frame off). Far off, sought
            // again; off on average by more than a quarter of a frame, its speed nudged (up to
            // 10 %) to catch up (a seek decodes from the last keyframe: a real video's may be
            // seconds back, and each would cost that and a stutter); back within a tenth, at the
            // player's speed again.
            mpv.nextCheck = now + .milliseconds(Int.random(in: 35...75))
            guard mpv.send([.string("get_property"), .string("time-pos")]) else { return nil }
            if let shown = mpv.answer(timeout: 0.5)?["data"]?.double {
                let off = shown - frame / 2 - player.state.position
                if abs(off) > 0.3 {
                    seek(player.state.position + lead)
                    mpv.nudge = 1
                } else {
                    let phase = mpv.phase.map { (off: $0.off + (off - $0.off) * 0.25, reads: $0.reads + 1) } ?? (off: off, reads: 1)
                    mpv.phase = phase
                    if let settled = mpv.settledOffset, abs(settled) > frame * 0.25 {
                        mpv.nudge = min(max(1 - settled / 0.25, 0.9), 1.1)
                    } else if abs(phase.off) < frame * 0.1 {
                        mpv.nudge = 1
                    }
                }
            }
        }
        return ok ? wait : nil
    }

    // MARK: The overlay

    /// What is drawn over the picture, as ASS events on a 720-line canvas, readable across a
    /// room: the section top left, the eight-count at the bottom ("Eight 3 · 5"), and during a
    /// count-in its words large in the middle ("Five", "Six", …). Empty: nothing.
    static func overlay(_ s: PlayerState, _ here: TrackView.Here) -> String {
        let style = #"{\bord4\shad0\b1\1c&HFFFFFF&\3c&H000000&}"#
        var events: [String] = []
        if let section = here.section { events.append(#"{\an7\fs44}"# + style + assText(section)) }
        if s.isPlaying, let c = s.loop?.countIn {
            let words = Rehearsal.countWords(c.of)
            if c.beat >= 1, c.beat <= words.count { events.append(#"{\an5\fs200}"# + style + words[c.beat - 1].capitalized) }
        } else if let e = here.eight {
            events.append(#"{\an2\fs84}"# + style + assText("\(e.name) \(e.group) · \(e.beat)"))
        }
        return events.joined(separator: "\n")
    }

    /// Text from a sidecar, drawn as it is: no control characters, and none of ASS's override
    /// blocks (`{…}`) or escapes (`\N`) obeyed.
    static func assText(_ text: String) -> String {
        var out = ""
        for u in text.unicodeScalars {
            switch u.value {
            case 0..<0x20, 0x7F..<0xA0: out.unicodeScalars.append(" ")
            case 0x5C: out += "\\\u{2060}"   // a backslash that escapes nothing (mpv's own way)
            case 0x7B: out += "\\{"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
