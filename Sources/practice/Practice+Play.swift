// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Dispatch
import Glibc
import PracticeTUI
import Synchronization
import PracticeDocuments
import PracticeEngine
import PracticeJournal
import PracticeControl
import PracticeSongs
import PracticeAudio
import PracticeLibrary
import PracticeSystem
import PracticeDesktop

extension Practice {
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a track through ALSA, slowed down or sped up without changing its pitch.",
            discussion: """
                On a terminal this opens the practice screen: a seek bar with the markers, the loop, \
                speed and pitch, all driven from the keyboard ('?' lists the keys; markers you drop \
                are saved at once). With --no-tui, or when not on a terminal, one status line shows \
                the position and speed instead; Ctrl-C quits. \
                'practice FILE …' is the same as 'practice play FILE …'.

                Keys are rebound in $XDG_CONFIG_HOME/practice/keys.conf (~/.config/practice/keys.conf), \
                one 'KEY ACTION' a line ('x loop-toggle'; 'q ignore' unbinds; 'mouse off' leaves clicks \
                to the terminal; # starts a comment). \
                Keys: a character, or \(KeyBindings.keyNames.joined(separator: ", ")). \
                Actions: \(Action.allCases.map(\.rawValue).joined(separator: ", ")).

                Examples:
                  practice play song.mp3 --rate 0.8
                  practice song.flac --from 1:12 --to 1:30 --rate 0.7 --pitch -2
                  practice song.mp3 --rate 0.8 --loop Chorus "Verse 3" --times 4
                  practice song.mp3 --loop "shine turn" --from 1:04
                  practice song.wav --device pulse
                  practice song.mp3 --control socket   # the keyboard, and scripts on the socket
                  printf '{"cmd":"seek","to":30}\\n{"cmd":"quit"}\\n' | practice song.mp3 --control stdin
                """)

        @Argument(help: "The audio file to play (WAV, FLAC, Ogg Vorbis, Opus, MP3, AIFF).",
                  completion: .file(extensions: ["wav", "flac", "ogg", "opus", "mp3", "aiff"]))
        var file: String

        @OptionGroup var options: PlayOptions

        func run() async throws { try await options.play(file) }
    }

    /// Everything `play` takes besides the file; `open` takes it too.
    struct PlayOptions: ParsableArguments {
        @OptionGroup var sound: SoundOptions
        @OptionGroup var place: PlaceOptions

        @Option(help: "The ALSA device to play through (see 'aplay -L').")
        var device = "default"

        @Option(help: ArgumentHelp(
            "Take JSON-lines commands and send state events (NDJSON): 'stdin' (events on stdout), 'socket' ($XDG_RUNTIME_DIR/practice/control.sock, beside the practice screen) or a socket's path.",
            discussion: #"Commands: {"cmd":"seek","to":72.5} {"cmd":"rate","value":0.8} {"cmd":"pitch","value":-2} {"cmd":"play"} {"cmd":"pause"} {"cmd":"toggle"} {"cmd":"loop","start":30,"end":45,"times":4} {"cmd":"loop"} {"cmd":"jump","marker":"Verse 2"} {"cmd":"quit"}"#,
            valueName: "stdin|socket|path"))
        var control: String?

        @Flag(help: "Show one status line instead of the practice screen.")
        var noTui = false

        @Flag(help: "When the sound server stops (or the device goes away), wait for it and play on from where you were when it is back, instead of ending.")
        var reconnect = false

        @Flag(name: .shortAndLong, help: "Say how playback runs: the device, and whether the audio thread got real-time priority.")
        var verbose = false

        @Flag(help: "Start at the beginning at 1.0×, not where you left the track (it is still remembered where you stop).")
        var fresh = false

        @Flag(help: "Keep playing without a terminal: closing it does not stop the player. 'practice ctl' drives it, media keys and desktop controls too (MPRIS).")
        var background = false

        @Flag(help: "No now-playing notification on the desktop (always: 'notifications = false' under [desktop] in $XDG_CONFIG_HOME/practice/config.toml).")
        var quiet = false

        @Flag(help: "Do not offer the player on the session bus (MPRIS: media keys, desktop controls, playerctl; always: 'mpris = false' under [desktop] in config.toml).")
        var noMpris = false

        @Flag(help: "Do not record this session in the practice journal (always: 'record = false' under [journal] in config.toml).")
        var noJournal = false

        /// Set on the player that `--background` starts: no terminal, its stderr tells the starter when it is ready.
        @Flag(help: .hidden)
        var detached = false

        /// Start paused (a screen detached while paused hands over to a paused player).
        @Flag(help: .hidden)
        var paused = false

        func validate() throws {
            if let control, control != "stdin", control != "socket", !control.contains("/") {
                throw ValidationError("'--control' takes 'stdin', 'socket' or a socket's path such as ./practice.sock (got '\(control)')")
            }
            try place.checkRate(against: sound)
        }

        /// The socket to listen on, if `--control` asks for one.
        var socketPath: String? {
            guard let control, control != "stdin" else { return nil }
            return control == "socket" ? ControlSocket.defaultPath() : control
        }

        /// Plays `file` as `play` does; `tags` (title, artist, album) are shown instead of the file's own.
        func play(_ file: String, tags: [String: String] = [:], cover: String? = nil) async throws {
            // Read (and refused if wrong) here; its warnings are the detached player's to say.
            let config = try Config.load(warn: !background || detached)
            if background && !detached { try Background.start(); return }
            // An MP4's decoder (FFmpeg's libraries) loads while the rest is set up.
            SoundFile.prepare(file)
            var options = PlayerOptions()
            options.tags = tags
            options.device = device
            options.reconnect = reconnect
            options.settings = sound.settings
            (options.from, options.to, options.loop) = try place.resolve(for: file)
            options.sidecar = place.sidecar
            options.audioStream = place.audioStream
            // Started paused and played below, once the journal listens (on `null` a short
            // track would otherwise be over before it does).
            options.startPlaying = false
            // Nobody watches a detached player: 200 ms device periods wake it a fifth as often as
            // the screen's 40 ms. Commands drop the device's buffer, so they are not slower; only
            // at the very end of the range, while the last 0.6 s play out, does one wait for them.
            if detached { options.devicePeriodMicroseconds = 200_000 }
            let controlled = control == "stdin"
            let screen = !controlled && !noTui && !detached && Terminal.isTTY(STDIN_FILENO) && Terminal.isTTY(STDOUT_FILENO)
            let bindings = screen ? try KeyBindings.load(KeyBindings.configPath()) : .defaults
            // A person at a terminal (or one who sent the player to the background) comes back
            // where they left the track; scripts start where told.
            let interactive = !controlled && (Terminal.isTTY(STDOUT_FILENO) || detached)
            var store = interactive ? ResumeStore() : nil
            if let problem = store?.problem { Terminal.write("practice: warning: \(problem)\n", to: STDERR_FILENO) }
            // A player is already open on this track (in the background, or another terminal): its screen.
            if screen, let running = Players.running().first(where: { $0.path == Self.realPath(file) }) {
                return try Practice.Attach.attach(to: running, bindings: bindings,
                                                  notice: "already playing in pid \(running.pid): this is its screen (\(bindings.keys(for: .detach).first?.label ?? "d") leaves it playing)")
            }
            let resumed = fresh ? nil : store?.point(for: file)
            if let resumed { resume(from: resumed, into: &options, file: file) }
            let player = try Player(path: file, options: options)
            if let loop = resumed?.loop, options.loop == nil, place.loop.isEmpty {
                try? player.setLoop(LoopRange(start: loop.start, end: loop.end, name: loop.name, rehearsal: Rehearsal(bpm: place.bpm, voice: place.countInSound == "voice")), on: loop.isOn)
            }
            // The journal records the session as it goes (a view of the player, on its own queue).
            let recorder = noJournal || !config.journal ? nil : Self.record(player, sidecar: place.sidecar, say: !detached)
            defer { Self.finishRecording(recorder, say: !detached) }
            // A spoken count-in is made before the first note, not on the decoder's thread as it starts.
            if place.countInSound == "voice" {
                _ = try? Rehearsal.spokenCount(max(options.loop?.rehearsal.countIn ?? 0, 4), sampleRate: player.outputFormat.sampleRate)
            }
            if !paused { player.play() }
            let notice = resumed.map { "\($0.summary) (--fresh starts at the beginning)" }
            if verbose { report(player) }
            let settings = PlayerServices.Settings(mpris: !noMpris && config.mpris, notify: !quiet && config.notifications, verbose: verbose, cover: cover ?? Artwork.cover(forAudio: file))
            if screen {
                // Without a loop, --bpm is still the tempo that count-ins set up on the screen use.
                let (signal, services, detach, last) = try runSession(player, rehearsal: options.loop?.rehearsal ?? Rehearsal(bpm: place.bpm, voice: place.countInSound == "voice"), bindings: bindings,
                                                                notice: notice, services: settings)
                remember(player, in: &store)
                if detach {
                    // `d`: a detached player takes over where this one stopped (the saved place:
                    // position, speed, pitch, the loop), paused until it has the rest.
                    services.stop()
                    let pid = try Background.start(detachedArguments(file, paused: true))
                    Self.handOver(last, to: pid)
                    return
                }
                // Quit from elsewhere: this terminal's screen closed without a key of its own.
                if signal == nil, services.replacement.withLock({ $0 }) == nil, let by = services.quitBy.withLock({ $0 }) {
                    Terminal.write("practice: '\(player.state.title.terminalSafe)' was quit from \(by)\n", to: STDERR_FILENO)
                }
                Self.finishRecording(recorder, say: true)
                if let signal { Glibc.exit(128 + signal) }
                if let failure = player.state.failure { throw PracticeError(.ioError, failure) }
                if let uri = services.replacement.withLock({ $0 }) { PlayerServices.exec(PlayerServices.replacementArguments(uri, device: device, detached: false, quiet: quiet)) }
                return
            }
            if let notice, Terminal.isTTY(STDERR_FILENO) { Terminal.write("practice: \(notice)\n", to: STDERR_FILENO) }
            let showStatus = interactive && !detached
            if controlled { StdinControl.start(player) }
            let socket = try socketPath.map { p throws(PracticeError) in try ControlSocket(path: p, player: player) { player.stop() } }
            defer { socket?.stop() }
            let services = PlayerServices(player, settings: settings) { player.stop() }
            defer { services.stop() }
            // A signal stops the player, which ends the loop below; the main path then exits 128 + N.
            // A detached player has no terminal to lose: SIGHUP does not stop it.
            let signals = SignalHandlers(detached ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP]) { _ in player.stop() }
            defer { withExtendedLifetime(signals) {} }
            if detached { Background.ready() }

            var last: PlayerState?
            // Ticks only for a status line or a script reading events: a player in the background
            // (or one printing nothing) is woken by changes, not by time going by.
            let ticks = controlled || showStatus
            for await event in player.events(keepingNewest: 64, ticks: { ticks }) {
                let state = event.state
                if controlled && state != last && event.kind != .stopped { Terminal.write(StateMessage(.state, state).line + "\n", to: STDOUT_FILENO) }
                if let line = Self.deviceNews(event) {
                    if showStatus { Terminal.writeRaw("\r\u{1B}[K", to: STDOUT_FILENO) }   // the status line gives way
                    Terminal.write("practice: \(line)\n", to: STDERR_FILENO)
                }
                if showStatus { Terminal.writeRaw(Terminal.redraw(StatusLine.render(state, width: Terminal.width(STDOUT_FILENO) - 1)), to: STDOUT_FILENO) }
                last = state
                if state.isFinished && detached && state.failure == nil {
                    // A background player stays for its controllers: at the end, back to the start
                    // (or the loop's), paused, as the practice screen does.
                    if let l = state.loop, l.isOn, l.passes != nil { player.rewindLoop() } else {
                        player.pause()
                        player.seek(to: player.startPosition)
                    }
                    continue
                }
                if state.isFinished || state.failure != nil || event.kind == .stopped { break }
            }
            player.stop()
            if showStatus { Terminal.write("\n", to: STDOUT_FILENO) }
            remember(player, in: &store)
            Self.finishRecording(recorder, say: !detached)
            if let signal = signals.received { Glibc.exit(128 + signal) }
            if let uri = services.replacement.withLock({ $0 }) {
                services.stop()
                socket?.stop()
                PlayerServices.exec(PlayerServices.replacementArguments(uri, device: device, detached: detached, quiet: quiet))
            }
            if let failure = last?.failure { throw PracticeError(.ioError, failure) }
            if let early = last?.earlyEnd { Terminal.write("practice: warning: \(early); played what was there\n", to: STDERR_FILENO) }
        }
    }
}

extension Practice.PlayOptions {
    /// `--verbose`: the device and format, and once, a missing real-time priority (as cmus says it).
    func report(_ player: Player) {
        Terminal.write("practice: playing through '\(player.deviceName)' at \(player.outputFormat)\n", to: STDERR_FILENO)
        if !player.isRealTime {
            Terminal.write("practice: warning: no real-time priority for the audio thread (SCHED_FIFO was refused: raise 'ulimit -r' or use rtkit); playback may skip when the machine is busy\n", to: STDERR_FILENO)
        }
    }

    /// The saved place, under what the command line says: `--rate` and `--pitch` win over the saved
    /// ones, `--from`, `--to` and `--loop` over the saved position (and `--loop` over the saved loop).
    func resume(from point: ResumePoint, into options: inout PlayerOptions, file: String) {
        if sound.rate == nil { options.settings.rate = point.rate }
        if sound.pitch == nil { options.settings.pitch = point.pitch }
        // Not from the very end (or past it, if the file was replaced by a shorter one).
        let duration = (try? Track.describe(file).duration) ?? 0
        if place.from == nil, place.to == nil, place.loop.isEmpty, point.position < duration - 0.5 { options.from = point.position }
    }

    /// Keeps where the person stopped (a track played to its end starts at the beginning next time).
    func remember(_ player: Player, in store: inout ResumeStore?) {
        guard store != nil else { return }
        let s = player.state
        let atStart = s.position < 0.5 && s.rate == 1 && s.pitch == 0 && s.loop == nil
        do {
            try store?.save(atStart || s.isFinished && s.loop?.isOn != true ? nil : ResumePoint(s), for: player.track.path)
        } catch {
            Terminal.write("practice: warning: \(error.message)\n", to: STDERR_FILENO)
        }
    }

    /// The full-screen session; a signal ends it like `q` (and is returned, for an exit with 128 + N).
    func runSession(_ player: Player, rehearsal: Rehearsal, bindings: KeyBindings, notice: String? = nil,
                    services settings: PlayerServices.Settings) throws -> (Int32?, PlayerServices, detach: Bool, last: PlayerState) {
        let env = ProcessInfo.processInfo.environment
        let color = (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb"
        let session = Session(player: player, sidecar: place.sidecar, color: color, rehearsal: rehearsal, bindings: bindings, lyrics: place.lyrics,
                              notice: notice)
        session.writeNote = Self.writeNote
        let socket = try socketPath.map { p throws(PracticeError) in try ControlSocket(path: p, player: player) { session.requestQuit() } }
        defer { socket?.stop() }
        let services = PlayerServices(player, settings: settings) { session.requestQuit() }
        defer { services.stop() }
        let signals = SignalHandlers { _ in session.requestQuit() }
        defer { withExtendedLifetime(signals) {} }
        try session.run()
        let last = player.state   // as it was heard when the screen ended, for a player taking over
        player.stop()
        return (signals.received, services, session.detachRequested && signals.received == nil, last)
    }

    /// The command line of the detached player that takes over from a screen left with `d`.
    /// The line a player without a screen writes to stderr when its device goes away or comes back (`--reconnect`).
    static func deviceNews(_ event: PlayerEvent) -> String? {
        switch event.kind {
        case .deviceLost: event.state.deviceLost
        case .deviceBack: "the audio device is back: \(event.state.isPlaying ? "playing on" : "paused") at \(Timecode.format(event.state.position, decimals: 1))"
        default: nil
        }
    }

    func detachedArguments(_ file: String, paused: Bool) -> [String] {
        var args = ["play", file, "--device", device]
        if let sidecar = place.sidecar { args += ["--markers", sidecar] }
        if let lyrics = place.lyrics { args += ["--lyrics", lyrics] }
        // The soundtrack chosen (a tutorial's second): the detached player plays the same.
        if let stream = place.audioStream { args += ["--audio-stream", "\(stream)"] }
        if sound.profile != "music" { args += ["--profile", sound.profile] }
        if quiet { args.append("--quiet") }
        if noMpris { args.append("--no-mpris") }
        if noJournal { args.append("--no-journal") }
        if reconnect { args.append("--reconnect") }
        if paused { args.append("--paused") }
        return args
    }

    /// Gives the detached player started for `d` what the saved place does not hold: the loop's
    /// count-in, gaps, pre-roll, tempo and passes still to play, and the trainer going on from
    /// the speed it reached (the pass count starts again at 1, and a trainer's `/EVERY` counts
    /// from the hand-over); then lets it play if this one was playing.
    static func handOver(_ state: PlayerState, to pid: pid_t) {
        let playing = state.isPlaying
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
        if playing { commands.append(.play) }
        guard !commands.isEmpty else { return }
        // The player answers in order: its status comes after the commands before it are done.
        commands.append(.status)
        do { _ = try Players.ask(Players.socketPath(pid: pid), commands.map(\.line).joined(separator: "\n"), until: .status) } catch {
            Terminal.write("practice: warning: the background player did not take the loop's settings: \(error.message)\n", to: STDERR_FILENO)
        }
    }

    /// `n` on the practice screen: today's note, in the journal; nil, or what went wrong.
    static let writeNote: @Sendable (String) -> String? = { text in
        do throws(PracticeError) { try Journal().addNote(text, on: .today); return nil } catch { return error.message }
    }

    /// A recorder of the session into the journal; nil (and a warning said, on a terminal) when
    /// the journal cannot be opened or is from a newer version: playing matters more.
    static func record(_ player: Player, sidecar: String?, say: Bool) -> JournalRecorder? {
        do {
            let journal = try Journal()
            if let warning = journal.warning, say { Terminal.write("practice: warning: \(warning)\n", to: STDERR_FILENO) }
            return JournalRecorder(journal: journal, player: player, sidecar: sidecar)
        } catch {
            if say { Terminal.write("practice: warning: \(error.message); this session is not recorded\n", to: STDERR_FILENO) }
            return nil
        }
    }

    /// Waits (a second at most) for the session's last state to be written; says a problem once.
    static func finishRecording(_ recorder: JournalRecorder?, say: Bool) {
        guard let recorder else { return }
        recorder.waitUntilWritten(timeout: 1)
        if let problem = recorder.problem, say, !recorder.problemSaid.exchange(true, ordering: .relaxed) {
            Terminal.write("practice: warning: \(problem)\n", to: STDERR_FILENO)
        }
    }

    /// The file's absolute path with links resolved (how players name their tracks to each other).
    static func realPath(_ path: String) -> String {
        Path.resolved(path) ?? path
    }
}

/// Runs `handler` on the main queue for SIGINT, SIGTERM and SIGHUP (instead of dying mid-write).
final class SignalHandlers: @unchecked Sendable {  // `sources` is immutable after init
    private var sources: [any DispatchSourceSignal] = []
    private let signalNumber = Atomic<Int32>(0)
    /// The signal that arrived, if one did (recorded before the handler runs).
    var received: Int32? { let s = signalNumber.load(ordering: .acquiring); return s == 0 ? nil : s }

    init(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], _ handler: @escaping @Sendable (Int32) -> Void) {
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
