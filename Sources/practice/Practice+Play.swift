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
import PracticeRemote
import PracticeVideo

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

        @Flag(help: "Serve the phone remote on the local network and show its address and a QR code to pair a phone with (always: 'remote = true' under [remote] in config.toml; plain HTTP, see 'practice remote --help').")
        var remote = false

        @Flag(help: "No phone remote this time, whatever config.toml says.")
        var noRemote = false

        @Option(help: ArgumentHelp("The address the phone remote listens on, ADDR or ADDR:PORT (default: this machine's LAN address, port 4797).", valueName: "addr"))
        var remoteBind: String?

        @Flag(help: "A video's sound alone, its picture's window hidden (v shows it; it plays beside the screen, through mpv).")
        var noVideo = false

        @Flag(help: "Nothing drawn over a video's picture (the section, the eight-count, the count-in's words).")
        var noOverlay = false

        @Flag(name: .customLong("fullscreen"), help: "A video's window on the whole screen from the start (f switches).")
        var fullScreen = false

        @Flag(help: "A video's picture mirrored, left and right swapped, as a mirror shows a dancer.")
        var mirror = false

        /// Set on the player that `--background` starts: no terminal, its stderr tells the starter when it is ready.
        @Flag(help: .hidden)
        var detached = false

        /// Start paused (a screen detached while paused hands over to a paused player).
        @Flag(help: .hidden)
        var paused = false

        func validate() throws {
            if remote && noRemote { throw ValidationError("'--remote' and '--no-remote' cannot go together") }
            if let remoteBind {
                do throws(PracticeError) { _ = try WebRemote.bindAddress(remoteBind) } catch { throw ValidationError(error.message) }
            }
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
            if remoteBind == nil, let bind = config.remoteBind {
                do throws(PracticeError) { _ = try WebRemote.bindAddress(bind, named: "[remote] bind") } catch {
                    throw PracticeError(.config, "\(Config.path.terminalSafe): \(error.message)")
                }
            }
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
            options.mirror = mirror
            // A file with a video stream: its picture in mpv's window beside the screen.
            let video = VideoFrame.stream(of: file)
            let noDisplay = video == nil ? nil : VideoWindow.noDisplay()
            if let noDisplay, !noVideo { Terminal.write("practice: \(file.terminalSafe): \(noDisplay); playing the sound alone\n", to: STDERR_FILENO) }
            if video != nil, noDisplay == nil { options.video = VideoState(isShown: !noVideo, isFullScreen: fullScreen) }
            var run = PlayTerminal(file: file, options: options)
            run.control = control
            run.socketPath = socketPath
            (run.noTui, run.verbose, run.detached, run.paused) = (noTui, verbose, detached, paused)
            run.given.fresh = fresh
            run.given.rate = sound.rate != nil
            run.given.pitch = sound.pitch != nil
            run.given.place = place.from != nil || place.to != nil || !place.loop.isEmpty
            run.given.loop = options.loop != nil || !place.loop.isEmpty
            run.given.mirror = mirror
            run.journal = !noJournal && config.journal
            // Without a loop, --bpm is still the tempo that count-ins set up on the screen use.
            run.rehearsal = Rehearsal(bpm: place.bpm, voice: place.countInSound == "voice")
            run.lyrics = place.lyrics
            // The phone remote: started with the session (`--remote`, config.toml), or by `R` on the screen.
            let remoteOn = !noRemote && (remote || config.remote)
            let phone = noRemote ? nil : RemoteService(bind: remoteBind ?? config.remoteBind, announce: !run.showsScreen)
            // What the services say goes to the screen's message line, once there is one.
            let screenSays = Locked<(@Sendable (String) -> Void)?>(nil)
            if let phone { run.remotePanel = { @Sendable in phone.panel() } }
            run.remoteNotices = { say in
                phone?.onNotice(say)
                screenSays.withLock { $0 = say }
            }
            run.services = { [noMpris, quiet, verbose, noOverlay] player, socket, quit in
                // Once the player plays: the cover is looked for beside the file.
                let desktop = DesktopServices.Settings(mpris: !noMpris && config.mpris, notify: !quiet && config.notifications, verbose: verbose,
                                                       cover: cover ?? Artwork.cover(forAudio: file))
                var services: [any SessionService] = [DesktopServices(player, socket: socket, settings: desktop, quit: quit)]
                if let phone {
                    phone.attach(player, start: remoteOn, socket: socket)
                    services.append(phone)
                }
                if let video, noDisplay == nil {
                    var settings = VideoWindow.Settings()
                    settings.overlay = !noOverlay
                    services.append(VideoWindow(player: player, file: file, fps: video.fps, settings: settings) { line in
                        if let post = screenSays.withLock({ $0 }) { post(line) } else { Terminal.write("practice: \(line.terminalSafe)\n", to: STDERR_FILENO) }
                    })
                }
                return services
            }
            // The player that takes over serves the remote if this one did, on its address: the
            // pages reconnect to it.
            run.detachedArguments = { last in detachedArguments(file, paused: true, remoteAt: phone?.serving, video: last.video) }
            switch try await run.run() {
            case .done: return
            case .signal(let signal): Glibc.exit(128 + signal)
            case .replaced(let uri): DesktopServices.exec(DesktopServices.replacementArguments(uri, device: device, detached: detached, quiet: quiet))
            }
        }
    }
}

extension Practice.PlayOptions {
    /// The command line of the detached player that takes over from a screen left with `d`.
    func detachedArguments(_ file: String, paused: Bool, remoteAt serving: String? = nil, video: VideoState? = nil) -> [String] {
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
        if remote || serving != nil { args.append("--remote") }
        if noRemote { args.append("--no-remote") }
        if let bind = serving ?? remoteBind { args += ["--remote-bind", bind] }
        // A video's window as the screen left it: hidden, or on the whole screen.
        if video.map({ !$0.isShown }) ?? noVideo { args.append("--no-video") }
        if video?.isFullScreen ?? fullScreen { args.append("--fullscreen") }
        if noOverlay { args.append("--no-overlay") }
        if mirror { args.append("--mirror") }
        if paused { args.append("--paused") }
        return args
    }
}
