// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeJournal

/// `practice play` from a terminal: the practice screen when a person is at one, else one status
/// line (or nothing, for a script or a detached player); a player already open on the track gets
/// its screen attached instead. What a person gets (the place they left, back to the start at the
/// end) and what a script gets (where it said, ending there) is decided here, once.
public struct PlayTerminal {
    public var file: String
    /// The player's options: device, sound, range and loop resolved from the command line.
    public var options: PlayerOptions
    /// `--control`: `stdin` (commands in, events out), or nil.
    public var control: String?
    /// The control socket to listen on (`--control socket` or a path), if any.
    public var socketPath: String?
    public var noTui = false
    public var verbose = false
    /// The player `--background` started: no terminal, nobody watching.
    public var detached = false
    public var paused = false
    /// What the command line set, which the saved place does not override (`fresh`: none of it).
    public var given = PlaySession.ResumeRules()
    public var journal = true
    /// The tempo and count-in voice for count-ins set up on the screen (`--bpm`, `--count-in voice`).
    public var rehearsal = Rehearsal()
    public var lyrics: String?
    /// The phone remote's panel for `R` (its address and pairing code), starting it if needed.
    public var remotePanel: (@Sendable () -> [String])?
    /// Hands the phone remote the screen's message line (what it says: a phone paired, pairing refused).
    public var remoteNotices: ((@escaping @Sendable (String) -> Void) -> Void)?
    /// The host's services for the player (the desktop's: MPRIS, notifications).
    public var services: (Player, ControlSocket?, @escaping @Sendable () -> Void) -> [any SessionService] = { _, _, _ in [] }
    /// The command line of the detached player that takes over from a screen left with `d`, given
    /// the state the screen left (a video's window as it was).
    public var detachedArguments: (PlayerState) -> [String] = { _ in [] }
    /// Called when a player is already open on the track and this process only shows its screen
    /// (the device opened ahead for this one is closed).
    public var beforeAttaching: () -> Void = {}
    /// Called once the player has started (its sound on its way), before the screen or the status
    /// line shows: what the command line put off so as not to hold the sound back (the sidecar's
    /// notes, when no place was asked).
    public var afterStarting: (() -> Void)?

    public init(file: String, options: PlayerOptions) {
        self.file = file
        self.options = options
    }

    /// How the session ended, for the caller to finish: exit 128 + N, or exec the player a
    /// desktop asked for (MPRIS's OpenUri) in this one's place.
    public enum Ending: Equatable { case done, signal(Int32), replaced(String) }

    /// Whether the practice screen shows the session (a terminal, and not `--no-tui`, `--control
    /// stdin` or a detached player).
    public var showsScreen: Bool {
        control != "stdin" && !noTui && !detached && Terminal.isTTY(STDIN_FILENO) && Terminal.isTTY(STDOUT_FILENO)
    }

    public func run() async throws -> Ending {
        var options = options
        let controlled = control == "stdin"
        let screen = showsScreen
        let bindings = screen ? try KeyBindings.load(KeyBindings.configPath()) : .defaults
        // A person at a terminal (or one who sent the player to the background) comes back
        // where they left the track; scripts start where told.
        let interactive = !controlled && (Terminal.isTTY(STDOUT_FILENO) || detached)
        // A player is already open on this track (in the background, or another terminal): its screen.
        if screen, let running = Players.running().first(where: { $0.path == (Path.resolved(file) ?? file) }) {
            beforeAttaching()   // this process only shows that player's screen
            afterStarting?()    // (that player has lined its sidecar up: the notes are quick to say)
            try Self.attach(to: running, bindings: bindings,
                            notice: "already playing in pid \(running.pid): this is its screen (\(bindings.keys(for: .detach).first?.label ?? "d") leaves it playing)")
            return .done
        }
        // Started paused and played by the session, once the journal listens (on `null` a short
        // track would otherwise be over before it does).
        options.startPlaying = false
        // Nobody watches a detached player: 200 ms device periods wake it a fifth as often as
        // the screen's 40 ms. Commands drop the device's buffer, so they are not slower; only
        // at the very end of the range, while the last 0.6 s play out, does one wait for them.
        if detached { options.devicePeriodMicroseconds = 200_000 }
        // A person's player goes back to the start at the end, paused; a script's ends there.
        options.atEnd = screen || detached ? .rewind : .finish
        var settings = PlaySession.Settings()
        if interactive { settings.resume = given }
        settings.journal = journal
        settings.say = !detached
        settings.paused = paused
        settings.rehearsal = rehearsal
        settings.sidecar = options.sidecar
        let session = try PlaySession(file: file, options: options, settings: settings)
        defer { session.finishRecording() }
        let player = session.player
        session.start()
        if let afterStarting {
            afterStarting()
            session.sidecarLinedUp()
        }
        let notice = session.resumed.map { "\($0.summary) (--fresh starts at the beginning)" }
        if verbose { Self.report(player) }
        if screen {
            let env = ProcessInfo.processInfo.environment
            let view = Session(player: player, sidecar: options.sidecar, color: (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb",
                               rehearsal: options.loop?.rehearsal ?? settings.rehearsal, bindings: bindings, lyrics: lyrics, notice: notice)
            view.writeNote = Self.writeNote
            view.remotePanel = remotePanel
            remoteNotices?(view.post)
            let controllers = try session.startControllers(control: socketPath, verbose: verbose, services: services) { view.requestQuit() }
            try view.run()
            let last = player.state   // as it was heard when the screen ended, for a player taking over
            player.stop()
            await controllers.stop()
            session.remember()
            if view.detachRequested && controllers.signal == nil {
                // `d`: a detached player takes over where this one stopped (the saved place:
                // position, speed, pitch, the loop), paused until it has the rest.
                let pid = try Background.start(detachedArguments(last))
                PlaySession.handOver(last, to: pid)
                return .done
            }
            // Quit from elsewhere: this terminal's screen closed without a key of its own.
            if controllers.signal == nil, controllers.replacement == nil, let by = controllers.quitBy {
                Terminal.write("practice: '\(player.state.title.terminalSafe)' was quit from \(by)\n", to: STDERR_FILENO)
            }
            session.finishRecording(say: true)
            if let signal = controllers.signal { return .signal(signal) }
            if let failure = player.state.failure { throw PracticeError(.ioError, failure) }
            return controllers.replacement.map(Ending.replaced) ?? .done
        }
        if let notice, Terminal.isTTY(STDERR_FILENO) { Terminal.write("practice: \(notice)\n", to: STDERR_FILENO) }
        // A signal stops the player, which ends the session; the caller then exits 128 + N.
        // A detached player has no terminal to lose: SIGHUP does not stop it.
        let controllers = try session.startControllers(control: socketPath, signals: detached ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP],
                                                       verbose: verbose, services: services) { player.stop() }
        var plain = PlaySession.Plain()
        plain.stdin = controlled
        plain.detached = detached
        if interactive && !detached { plain.statusLine = { StatusLine.render($0, width: Terminal.width(STDOUT_FILENO) - 1) } }
        let last = await session.runWithoutScreen(plain) { if detached { Background.ready() } }
        await controllers.stop()
        session.remember()
        session.finishRecording()
        if let signal = controllers.signal { return .signal(signal) }
        if let uri = controllers.replacement { return .replaced(uri) }
        if let failure = last?.failure { throw PracticeError(.ioError, failure) }
        if let early = last?.earlyEnd { Terminal.write("practice: warning: \(early); played what was there\n", to: STDERR_FILENO) }
        return .done
    }

    /// Runs the practice screen on `running` until `d` (it plays on), `q` (it quits) or the
    /// player goes away. A signal (the terminal closed) leaves it playing.
    /// `remotePanel` makes the `R` panel for the running player (its phone remote's code).
    public static func attach(to running: Players.Running, bindings: KeyBindings, notice: String?,
                              remotePanel: ((String) -> @Sendable () -> [String])? = nil) throws {
        let remote = try RemotePlayer(running)
        let env = ProcessInfo.processInfo.environment
        let color = (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb"
        var places = Places(track: remote.track, explicit: remote.sidecar)
        let bpm = try? places.tempo()
        // What loops get: the running loop's count-in, gaps and trainer, else nothing but the tempo.
        var rehearsal = remote.state.loop?.rehearsal ?? Rehearsal()
        if rehearsal.bpm == nil { rehearsal.bpm = bpm ?? nil }
        let session = Session(player: remote, sidecar: remote.sidecar, color: color, rehearsal: rehearsal, bindings: bindings,
                              notice: notice ?? "attached to the player of pid \(remote.pid): \(bindings.keys(for: .detach).first?.label ?? "d") leaves it playing, \(bindings.keys(for: .quit).first?.label ?? "q") quits it")
        session.writeNote = writeNote
        session.remotePanel = remotePanel?(running.socket)
        let signals = SignalHandlers { _ in session.requestQuit() }
        defer { withExtendedLifetime(signals) {} }
        try session.run()
        let ended = remote.isGone || remote.state.failure != nil
        if !session.detachRequested && signals.received == nil && !ended {
            remote.quit()
            let deadline = ContinuousClock.now + .seconds(10)
            Players.waitForExit(remote.pid, until: deadline)
        }
        remote.stop()
        if ended { Terminal.write("practice: the player has quit\n", to: STDOUT_FILENO) }
        else if session.detachRequested || signals.received != nil {
            Terminal.write("practice: '\(remote.state.title.terminalSafe)' plays on in the background (pid \(remote.pid)); 'practice attach' comes back, 'practice ctl quit' stops it\n", to: STDOUT_FILENO)
        }
    }

    /// `--verbose`: the device and format, and once, a missing real-time priority (as cmus says it).
    static func report(_ player: Player) {
        Terminal.write("practice: playing through '\(player.deviceName)' at \(player.outputFormat)\n", to: STDERR_FILENO)
        if !player.isRealTime {
            Terminal.write("practice: warning: no real-time priority for the audio thread (SCHED_FIFO was refused: raise 'ulimit -r' or use rtkit); playback may skip when the machine is busy\n", to: STDERR_FILENO)
        }
    }

    /// `n` on the practice screen: today's note, in the journal; nil, or what went wrong.
    static let writeNote: @Sendable (String) -> String? = { text in
        do throws(PracticeError) { try Journal().addNote(text, on: .today); return nil } catch { return error.message }
    }
}
