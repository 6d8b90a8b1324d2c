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
            // A player is already open on this track (in the background, or another terminal): its screen.
            if screen, let running = Players.running().first(where: { $0.path == Self.realPath(file) }) {
                return try Practice.Attach.attach(to: running, bindings: bindings,
                                                  notice: "already playing in pid \(running.pid): this is its screen (\(bindings.keys(for: .detach).first?.label ?? "d") leaves it playing)")
            }
            // A person's player goes back to the start at the end, paused; a script's ends there.
            options.atEnd = screen || detached ? .rewind : .finish
            var settings = PlaySession.Settings()
            if interactive {
                var rules = PlaySession.ResumeRules()
                rules.fresh = fresh
                rules.rate = sound.rate != nil
                rules.pitch = sound.pitch != nil
                rules.place = place.from != nil || place.to != nil || !place.loop.isEmpty
                rules.loop = options.loop != nil || !place.loop.isEmpty
                settings.resume = rules
            }
            settings.journal = !noJournal && config.journal
            settings.say = !detached
            settings.paused = paused
            // Without a loop, --bpm is still the tempo that count-ins set up on the screen use.
            settings.rehearsal = Rehearsal(bpm: place.bpm, voice: place.countInSound == "voice")
            settings.sidecar = place.sidecar
            let session = try PlaySession(file: file, options: options, settings: settings)
            defer { session.finishRecording() }
            let player = session.player
            session.start()
            let notice = session.resumed.map { "\($0.summary) (--fresh starts at the beginning)" }
            if verbose { report(player) }
            let desktop = DesktopServices.Settings(mpris: !noMpris && config.mpris, notify: !quiet && config.notifications, verbose: verbose,
                                                   cover: cover ?? Artwork.cover(forAudio: file))
            let services = { (player: Player, socket: ControlSocket?, quit: @escaping @Sendable () -> Void) -> [any SessionService] in
                [DesktopServices(player, socket: socket, settings: desktop, quit: quit)]
            }
            if screen {
                let env = ProcessInfo.processInfo.environment
                let view = Session(player: player, sidecar: place.sidecar, color: (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb",
                                   rehearsal: options.loop?.rehearsal ?? settings.rehearsal, bindings: bindings, lyrics: place.lyrics, notice: notice)
                view.writeNote = Self.writeNote
                let controllers = try session.startControllers(control: socketPath, verbose: verbose, services: services) { view.requestQuit() }
                try view.run()
                let last = player.state   // as it was heard when the screen ended, for a player taking over
                player.stop()
                controllers.stop()
                session.remember()
                if view.detachRequested && controllers.signal == nil {
                    // `d`: a detached player takes over where this one stopped (the saved place:
                    // position, speed, pitch, the loop), paused until it has the rest.
                    let pid = try Background.start(detachedArguments(file, paused: true))
                    PlaySession.handOver(last, to: pid)
                    return
                }
                // Quit from elsewhere: this terminal's screen closed without a key of its own.
                if controllers.signal == nil, controllers.replacement == nil, let by = controllers.quitBy {
                    Terminal.write("practice: '\(player.state.title.terminalSafe)' was quit from \(by)\n", to: STDERR_FILENO)
                }
                session.finishRecording(say: true)
                if let signal = controllers.signal { Glibc.exit(128 + signal) }
                if let failure = player.state.failure { throw PracticeError(.ioError, failure) }
                if let uri = controllers.replacement { DesktopServices.exec(DesktopServices.replacementArguments(uri, device: device, detached: false, quiet: quiet)) }
                return
            }
            if let notice, Terminal.isTTY(STDERR_FILENO) { Terminal.write("practice: \(notice)\n", to: STDERR_FILENO) }
            // A signal stops the player, which ends the session; the main path then exits 128 + N.
            // A detached player has no terminal to lose: SIGHUP does not stop it.
            let controllers = try session.startControllers(control: socketPath, signals: detached ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP],
                                                           verbose: verbose, services: services) { player.stop() }
            defer { controllers.stop() }
            var plain = PlaySession.Plain()
            plain.stdin = controlled
            plain.detached = detached
            if interactive && !detached { plain.statusLine = { StatusLine.render($0, width: Terminal.width(STDOUT_FILENO) - 1) } }
            let last = await session.runWithoutScreen(plain) { if detached { Background.ready() } }
            session.remember()
            session.finishRecording()
            if let signal = controllers.signal { Glibc.exit(128 + signal) }
            if let uri = controllers.replacement {
                controllers.stop()
                DesktopServices.exec(DesktopServices.replacementArguments(uri, device: device, detached: detached, quiet: quiet))
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

    /// The command line of the detached player that takes over from a screen left with `d`.
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

    /// `n` on the practice screen: today's note, in the journal; nil, or what went wrong.
    static let writeNote: @Sendable (String) -> String? = { text in
        do throws(PracticeError) { try Journal().addNote(text, on: .today); return nil } catch { return error.message }
    }

    /// The file's absolute path with links resolved (how players name their tracks to each other).
    static func realPath(_ path: String) -> String {
        Path.resolved(path) ?? path
    }
}
