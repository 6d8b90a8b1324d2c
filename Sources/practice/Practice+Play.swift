// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands
import PracticeDocuments
import PracticeRemote
import PracticeTUI

extension Practice {
    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
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

        /// Plays `file` as `play` does.
        func play(_ file: String) async throws { try await command(file).run() }

        /// What `play` does with these options.
        func command(_ file: String) -> PlayCommand {
            var run = PlayCommand(file: file)
            (run.place, run.settings, run.rateGiven, run.pitchGiven) = (place.request, sound.playSettings, sound.rate != nil, sound.pitch != nil)
            (run.device, run.control, run.noTui, run.reconnect, run.verbose, run.fresh) = (device, control, noTui, reconnect, verbose, fresh)
            (run.background, run.quiet, run.noMpris, run.noJournal) = (background, quiet, noMpris, noJournal)
            (run.remote, run.noRemote, run.remoteBind) = (remote, noRemote, remoteBind)
            (run.noVideo, run.noOverlay, run.fullScreen, run.mirror, run.detached, run.paused) = (noVideo, noOverlay, fullScreen, mirror, detached, paused)
            return run
        }
    }
}
