// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Dispatch
import Glibc
import Synchronization
import PracticeDocuments
import PracticeEngine
import PracticeJournal
import PracticeSystem

/// Something that runs beside a player for a session and is stopped at its end: the desktop's
/// MPRIS and notification (`PracticeDesktop`), the web remote to come.
public protocol SessionService: AnyObject, Sendable {
    func stop()
    /// What it asked to play in this process's place once the session ends (MPRIS's OpenUri).
    var replacement: String? { get }
    /// Who ended the session from outside this process, if it did, for the screen to say so.
    var quitBy: String? { get }
}

/// One `practice play`, whatever shows it: the player on the file, resumed from the place the
/// person left it and keeping it at the end; the journal recording the session; its controllers
/// (the socket in the players' folder for `ctl` and `attach`, `--control`'s socket or stdin, the
/// services the host adds, signals); and, without a screen, the loop that prints its events or
/// its status line until it ends. The executable only turns arguments into `Settings`; a test
/// runs a session on the virtual device.
public final class PlaySession: Sendable {
    public struct Settings: Sendable {
        /// Resume from the saved place, and keep it at the end: a person's session (at a
        /// terminal, or in the background). Nil: a script's, which starts where told and keeps nothing.
        public var resume: ResumeRules?
        /// Record the session in the journal.
        public var journal = true
        /// Say warnings on stderr (a detached player has nobody to say them to).
        public var say = true
        /// Start paused (a screen detached while paused hands over to a paused player).
        public var paused = false
        /// What a loop restored from the saved place rehearses with (`--bpm`, a spoken count-in).
        public var rehearsal = Rehearsal()
        /// The sidecar the journal's notes and marks go to (`--markers`).
        public var sidecar: String?
        /// Where the saved places are kept (nil: `ResumeStore`'s own).
        public var resumeFile: String?
        public init() {}
    }

    /// What the command line said that wins over the saved place.
    public struct ResumeRules: Sendable {
        /// `--fresh`: start at the beginning at 1.0× (where it stops is still kept).
        public var fresh = false
        /// `--rate`, `--pitch` given: they win over the saved ones.
        public var rate = false
        public var pitch = false
        /// `--from`, `--to` or `--loop` given: they win over the saved position.
        public var place = false
        /// A loop given (`--loop`): it wins over the saved loop.
        public var loop = false
        /// `--mirror` given: it wins over the saved picture's side.
        public var mirror = false
        public init() {}
    }

    public let player: Player
    /// The saved place the session resumed from, if it did.
    public let resumed: ResumePoint?
    public let settings: Settings
    private let store: Locked<ResumeStore?>
    /// The recorder of the session into the journal, made in `start` once the player plays.
    private let recorder = Locked<JournalRecorder?>(nil)

    /// Opens the player (paused) on `file` with `options`, resumed as `settings` says; `start()`
    /// plays and records.
    public init(file: String, options: PlayerOptions, settings: Settings) throws(PracticeError) {
        self.settings = settings
        var options = options
        // Started paused and played in `start`, once the session is set up.
        options.startPlaying = false
        let store: ResumeStore? = settings.resume == nil ? nil : settings.resumeFile.map { ResumeStore(path: $0) } ?? ResumeStore()
        if let problem = store?.problem, settings.say { Terminal.write("practice: warning: \(problem)\n", to: STDERR_FILENO) }
        let resumed = settings.resume?.fresh == false ? store?.point(for: file) : nil
        if let resumed, let rules = settings.resume { Self.resume(from: resumed, into: &options, rules: rules, file: file) }
        self.resumed = resumed
        player = try Player(path: file, options: options)
        if let loop = resumed?.loop, settings.resume?.loop == false {
            try? player.setLoop(LoopRange(start: loop.start, end: loop.end, name: loop.name, rehearsal: settings.rehearsal), on: loop.isOn)
        }
        self.store = Locked(store)
        // A spoken count-in is made before the first note, not on the decoder's thread as it starts.
        if settings.rehearsal.voice || options.loop?.rehearsal.voice == true {
            player.prepareSpokenCount(max(options.loop?.rehearsal.countIn ?? 0, 4))
        }
    }

    /// Plays, unless the session starts paused, and starts recording it.
    public func start() {
        let played = settings.paused ? nil : player.playFromHere()
        // The journal opens (SQLite, its schema checked) once the player plays, and its recorder
        // counts from the player as it started: the state the play command left, not the one
        // after the journal opened (a short track on a device that takes sound as fast as it is
        // made is over by then, and nothing was recorded). Opened on a thread beside the player's
        // setup, it took a core of two and glibc's loader lock, which each new thread of the player
        // waits for while a dlopen runs: exec to the first write, medians 18.0-21.8 ms then, 17.4-18.8 now.
        guard settings.journal else { return }
        let first = played ?? player.stateAndClock
        let made = Self.record(player: player, sidecar: settings.sidecar, say: settings.say, first: first)
        recorder.withLock { $0 = made }
    }

    /// The sidecar has been read (and lined up with this copy) after the player started: the
    /// journal's recorder reads it again (see `JournalRecorder.sidecarLinedUp`).
    public func sidecarLinedUp() {
        recorder.withLock { $0 }?.sidecarLinedUp()
    }

    /// The saved place, under what the command line says: `--rate` and `--pitch` win over the saved
    /// ones, `--from`, `--to` and `--loop` over the saved position (and `--loop` over the saved loop).
    static func resume(from point: ResumePoint, into options: inout PlayerOptions, rules: ResumeRules, file: String) {
        if !rules.mirror { options.mirror = point.mirror }
        if !rules.rate { options.settings.rate = point.rate }
        if !rules.pitch { options.settings.pitch = point.pitch }
        // Not from the very end (or past it, if the file was replaced by a shorter one).
        let duration = (try? Track.describe(file).duration) ?? 0
        if !rules.place, point.position < duration - 0.5 { options.from = point.position }
    }

    /// Keeps where the person stopped (a track played to its end starts at the beginning next time).
    public func remember() {
        let s = player.state
        let atStart = s.position < 0.5 && s.rate == 1 && s.pitch == 0 && s.loop == nil && !s.isMirrored
        let problem: PracticeError? = store.withLock { store in
            guard store != nil else { return nil }
            do throws(PracticeError) {
                try store?.save(atStart || s.isFinished && s.loop?.isOn != true ? nil : ResumePoint(s), for: player.track.path)
                return nil
            } catch { return error }
        }
        if let problem, settings.say { Terminal.write("practice: warning: \(problem.message)\n", to: STDERR_FILENO) }
    }

    /// Waits (a second at most) for the session's last state to be written; says a problem once.
    public func finishRecording(say: Bool? = nil) {
        guard let recorder = recorder.withLock({ $0 }) else { return }
        recorder.waitUntilWritten(timeout: 1)
        if let problem = recorder.problem, say ?? settings.say, !recorder.problemSaid.exchange(true, ordering: .relaxed) {
            Terminal.write("practice: warning: \(problem)\n", to: STDERR_FILENO)
        }
    }

    /// A recorder of the session into the journal; nil (and a warning said, on a terminal) when
    /// the journal cannot be opened or is from a newer version: playing matters more.
    static func record(player: Player, sidecar: String?, say: Bool, first: (state: PlayerState, clock: Double)) -> JournalRecorder? {
        do throws(PracticeError) {
            let journal = try Journal()
            if let warning = journal.warning, say { Terminal.write("practice: warning: \(warning)\n", to: STDERR_FILENO) }
            return JournalRecorder(journal: journal, player: player, sidecar: sidecar, first: first)
        } catch {
            if say { Terminal.write("practice: warning: \(error.message); this session is not recorded\n", to: STDERR_FILENO) }
            return nil
        }
    }

    // MARK: Controllers

    /// The controllers started for a session and stopped at its end.
    public final class Controllers: Sendable {
        /// The socket in the players' folder (`ctl`, `attach`), when it could be made.
        public let players: ControlSocket?
        /// `--control socket` or a socket's path.
        let control: ControlSocket?
        public let services: [any SessionService]
        let signals: SignalHandlers
        /// Set when a client of the players' socket quit the player.
        let quitFromSocket: Locked<String?>

        init(players: ControlSocket?, control: ControlSocket?, services: [any SessionService], signals: SignalHandlers, quitFromSocket: Locked<String?>) {
            self.players = players; self.control = control; self.services = services; self.signals = signals
            self.quitFromSocket = quitFromSocket
        }

        /// The signal that ended the session, if one did (for an exit with 128 + N).
        public var signal: Int32? { signals.received }
        /// What a service asked to play in this process's place.
        public var replacement: String? { services.lazy.compactMap(\.replacement).first }
        /// Who quit the player from outside this process, if anyone did.
        public var quitBy: String? { quitFromSocket.withLock { $0 } ?? services.lazy.compactMap(\.quitBy).first }

        public func stop() {
            for s in services { s.stop() }
            control?.stop()
            players?.stop()
        }

        /// `stop`, from async code: on a thread of its own, since stopping waits (the remote for
        /// its pages' answers, the sockets for their threads) on work that may need the
        /// concurrency pool's threads, of which the caller holds one.
        public func stop() async {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                _ = ControlThread(name: "practice-stop") { [self] in stop(); done.resume() }
            }
        }
    }

    /// Starts the session's controllers: its socket in the players' folder, `control` (a
    /// socket's path) if given, the host's `services`, and handlers for `signals`; each ends the
    /// session through `quit`. `verbose` says why the players' socket could not be made.
    public func startControllers(control: String?, signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], verbose: Bool = false,
                                 services: (Player, _ players: ControlSocket?, _ quit: @escaping @Sendable () -> Void) -> [any SessionService],
                                 quit: @escaping @Sendable () -> Void) throws(PracticeError) -> Controllers {
        let controlSocket = try control.map { p throws(PracticeError) in try ControlSocket(path: p, player: player, onQuit: quit) }
        let quitFromSocket = Locked<String?>(nil)
        var players: ControlSocket?
        do throws(PracticeError) {
            let path = Players.socketPath()
            players = try ControlSocket(path: path, player: player) {
                quitFromSocket.withLock { $0 = "another terminal ('practice attach' there, or 'practice ctl quit')" }
                quit()
            }
            // Only in a folder of this user's own: whoever else could write there could answer
            // `ctl` and `practice remote` for a player.
            for folder in [Path.directory(path), Path.directory(Path.directory(path))] {
                if let problem = ControlSocket.notPrivate(folder) {
                    players?.stop()
                    players = nil
                    Terminal.write("practice: warning: \(folder): \(problem); 'practice ctl' and 'practice remote' will not find this player\n", to: STDERR_FILENO)
                    break
                }
            }
        } catch {
            if verbose { Terminal.write("practice: no socket for 'practice ctl': \(error.message)\n", to: STDERR_FILENO) }
        }
        let handlers = SignalHandlers(signals) { _ in quit() }
        return Controllers(players: players, control: controlSocket, services: services(player, players, quit), signals: handlers, quitFromSocket: quitFromSocket)
    }

    // MARK: Without a screen

    /// How a session without a screen shows itself.
    public struct Plain {
        /// `--control stdin`: commands from stdin, every change as a `state` message on stdout.
        public var stdin = false
        /// One status line on stdout, redrawn as it plays: the line for a state.
        public var statusLine: ((PlayerState) -> String)?
        /// In the background: no terminal; its stderr tells the starter when it is ready.
        public var detached = false
        public init() {}
    }

    /// Runs until the player ends (or, with `EndPolicy.rewind`, until it is stopped): prints
    /// what `plain` asks for, and says on stderr when the device goes away or comes back. Returns
    /// the last state. `ready` runs once the controllers listen (a detached player's signal).
    public func runWithoutScreen(_ plain: Plain, ready: () -> Void = {}) async -> PlayerState? {
        if plain.stdin { StdinControl.start(player) }
        ready()
        var last: PlayerState?
        // Ticks only for a status line or a script reading events: a player in the background
        // (or one printing nothing) is woken by changes, not by time going by.
        let ticks = plain.stdin || plain.statusLine != nil
        for await event in player.events(keepingNewest: 64, ticks: { ticks }) {
            let state = event.state
            if plain.stdin && state != last && event.kind != .stopped { Terminal.write(StateMessage(.state, state).line + "\n", to: STDOUT_FILENO) }
            if let line = Self.deviceNews(event) {
                if plain.statusLine != nil { Terminal.writeRaw("\r\u{1B}[K", to: STDOUT_FILENO) }   // the status line gives way
                Terminal.write("practice: \(line)\n", to: STDERR_FILENO)
            }
            if let line = plain.statusLine { Terminal.writeRaw(Terminal.redraw(line(state)), to: STDOUT_FILENO) }
            last = state
            if state.failure != nil || event.kind == .stopped { break }
            if state.isFinished && !plain.detached { break }   // a detached player rewinds (EndPolicy.rewind) and stays
        }
        player.stop()
        if plain.statusLine != nil { Terminal.write("\n", to: STDOUT_FILENO) }
        return last
    }

    /// The line a player without a screen writes to stderr when its device goes away or comes back (`--reconnect`).
    static func deviceNews(_ event: PlayerEvent) -> String? {
        switch event.kind {
        case .deviceLost: event.state.deviceLost
        case .deviceBack: "the audio device is back: \(event.state.isPlaying ? "playing on" : "paused") at \(Timecode.format(event.state.position, decimals: 1))"
        default: nil
        }
    }

    /// Gives the detached player started for `d` what the saved place does not hold: the loop's
    /// count-in, gaps, pre-roll, tempo and passes still to play, and the trainer going on from
    /// the speed it reached (the pass count starts again at 1, and a trainer's `/EVERY` counts
    /// from the hand-over); then lets it play if this one was playing.
    public static func handOver(_ state: PlayerState, to pid: pid_t) {
        var commands: [PlayerCommand] = []
        if let l = state.loop, !l.rehearsal.isPlain || l.rehearsal.bpm != nil || l.passes != nil {
            var rehearsal = l.rehearsal
            if var t = rehearsal.trainer {
                t.from = min(max(state.rate, min(t.from, t.to)), max(t.from, t.to))
                rehearsal.trainer = t
            }
            let range = LoopRange(start: l.start, end: l.end, passes: l.passes.map { max($0 - l.pass + 1, 1) }, name: l.name, rehearsal: rehearsal)
            commands.append(.setLoop(range, keepingCount: false, on: l.isOn))
        }
        if state.isPlaying { commands.append(.play) }
        guard !commands.isEmpty else { return }
        // The player answers in order: its status comes after the commands before it are done.
        commands.append(.status)
        do { _ = try Players.ask(Players.socketPath(pid: pid), commands.map(\.line).joined(separator: "\n"), until: .status) } catch {
            Terminal.write("practice: warning: the background player did not take the loop's settings: \(error.message)\n", to: STDERR_FILENO)
        }
    }
}

/// Runs `handler` on a global queue for SIGINT, SIGTERM and SIGHUP (instead of dying mid-write).
public final class SignalHandlers: @unchecked Sendable {  // `sources` is immutable after init
    private var sources: [any DispatchSourceSignal] = []
    private let signalNumber = Atomic<Int32>(0)
    /// The signal that arrived, if one did (recorded before the handler runs).
    public var received: Int32? { let s = signalNumber.load(ordering: .acquiring); return s == 0 ? nil : s }

    /// Without SIGHUP among `signals`, it is ignored (a detached player has no terminal to lose).
    public init(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], _ handler: @escaping @Sendable (Int32) -> Void) {
        if !signals.contains(SIGHUP) { signal(SIGHUP, SIG_IGN) }
        sources = signals.map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [unowned self] in
                signalNumber.store(sig, ordering: .releasing)
                handler(sig)
            }
            source.resume()
            return source
        }
    }
}

/// The stdin controller: reads one JSON command per line and hands it to the player.
enum StdinControl {
    static func start(_ player: Player) {
        _ = ControlThread(name: "practice-stdin") {
            var lines = LineReader()
            var open = true
            while open {
                open = lines.read(from: STDIN_FILENO) != .closed
                while let line = lines.nextLine() ?? (open ? nil : lines.rest()) {
                    if !perform(line, on: player) { return }
                }
            }
        }
    }

    /// Carries out one command line; false after `quit`.
    private static func perform(_ line: String, on player: Player) -> Bool {
        if line.trimmingWhitespace().isEmpty { return true }
        do throws(PracticeError) {
            let command = try PlayerCommand.parse(line)
            if command == .quit {
                player.stop()
                return false
            }
            if let reply = try player.perform(command) { Terminal.write(reply + "\n", to: STDOUT_FILENO) }
        } catch {
            // For the script, an error event among the state events; for a person, stderr.
            Terminal.write(StateMessage.errorLine(error) + "\n", to: STDOUT_FILENO)
            Terminal.write("practice: \(error.message)\n", to: STDERR_FILENO)
        }
        return true
    }
}
