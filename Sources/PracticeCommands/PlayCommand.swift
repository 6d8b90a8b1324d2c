// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeControl
import PracticeDesktop
import PracticeDocuments
import PracticeEngine
import PracticeJournal
import PracticeLibrary
import PracticeRemote
import PracticeSystem
import PracticeTUI
import PracticeVideo

/// `practice play FILE …` as the command line asked (`play` and `open` parse it): the player with
/// its controllers (keys, the control socket, MPRIS, the phone remote) and views (the screen,
/// notifications, the video window), and the detached player that takes over on `d`.
public struct PlayCommand: Sendable {
    public var file: String
    /// Where: `--from`, `--to`, `--loop` and the rest, resolved against the track's sidecar.
    public var place = PlaceRequest()
    public var settings = PlaybackSettings(rate: 1, pitch: 0)
    /// Whether `--rate` / `--pitch` were given (the saved place does not override them).
    public var rateGiven = false, pitchGiven = false
    public var device = "default"
    /// `--control`: stdin, socket or a socket's path.
    public var control: String?
    public var noTui = false, reconnect = false, verbose = false, fresh = false, background = false
    public var quiet = false, noMpris = false, noJournal = false
    public var remote = false, noRemote = false
    public var remoteBind: String?
    public var noVideo = false, noOverlay = false, fullScreen = false, mirror = false
    /// The player `--background` started (no terminal), and whether it starts paused.
    public var detached = false, paused = false
    /// Title, artist, album shown instead of the file's own (a FLO song's), and its cover.
    public var tags: [String: String] = [:]
    public var cover: String?

    public init(file: String) { self.file = file }

    /// The socket to listen on, if `--control` asks for one.
    public var socketPath: String? {
        guard let control, control != "stdin" else { return nil }
        return control == "socket" ? ControlSocket.defaultPath() : control
    }

    /// Plays until the session ends; exits the process itself on a signal (128 + N) or replaces
    /// it with the player a desktop asked for.
    public func run() async throws {
        // The sound device opens while the rest is set up, if it did not start to while the
        // arguments were parsed (the screen of a player already open on the track closes it; an
        // error found later leaves it unused until the process ends).
        if !background || detached, access(file, R_OK) == 0 { ALSAOutput.prepare(device: device, then: Self.libraries()) }
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
        (options.tags, options.device, options.reconnect, options.settings) = (tags, device, reconnect, settings)
        let sidecarNotes: (@Sendable () -> Void)?
        (options.from, options.to, options.loop, sidecarNotes) = try Places.resolveForPlaying(place, for: file)
        (options.sidecar, options.audioStream, options.mirror) = (place.sidecar, place.audioStream, mirror)
        // A file with a video stream: its picture in mpv's window beside the screen.
        let video = VideoFrame.stream(of: file)
        let noDisplay = video == nil ? nil : VideoWindow.noDisplay()
        if let noDisplay, !noVideo { Terminal.write("practice: \(file.terminalSafe): \(noDisplay); playing the sound alone\n", to: STDERR_FILENO) }
        if video != nil, noDisplay == nil { options.video = VideoState(isShown: !noVideo, isFullScreen: fullScreen) }
        var run = PlayTerminal(file: file, options: options)
        run.beforeAttaching = { ALSAOutput.closePrepared() }
        run.afterStarting = sidecarNotes
        (run.control, run.socketPath) = (control, socketPath)
        (run.noTui, run.verbose, run.detached, run.paused) = (noTui, verbose, detached, paused)
        (run.given.fresh, run.given.rate, run.given.pitch, run.given.mirror) = (fresh, rateGiven, pitchGiven, mirror)
        run.given.place = place.from != nil || place.to != nil || !place.loop.isEmpty
        run.given.loop = options.loop != nil || !place.loop.isEmpty
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
        run.services = { [self] player, socket, quit in
            // The cover is looked for (in the tags, beside the file) once the player is on the bus.
            let given = cover, file = file
            let desktop = DesktopServices.Settings(mpris: !noMpris && config.mpris, notify: !quiet && config.notifications, verbose: verbose,
                                                   cover: { given ?? Artwork.cover(forAudio: file) })
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
        run.detachedArguments = { [self] last in
            var command = self
            (command.settings.quality, command.settings.formant) = (last.quality, last.formant)   // as ctl or F left them
            return command.detachedArguments(paused: true, remoteAt: phone?.serving, video: last.video)
        }
        switch try await run.run() {
        case .done: return
        case .signal(let signal): Glibc.exit(128 + signal)
        case .replaced(let uri): DesktopServices.exec(DesktopServices.replacementArguments(uri, device: device, detached: detached, quiet: quiet))
        }
    }

    /// Starts opening the sound device of `practice play FILE …` (or `practice FILE …`) before
    /// the arguments are parsed (they take a few milliseconds), when they start with a readable
    /// file. The device is the `--device` given, else `default`; if the parsed command wants
    /// another one, the player opens that one itself and this one is closed unused. `commands`:
    /// the command words, which a first argument that is a file's name too stands for.
    public static func prepareDevice(arguments: [String], commands: [String]) {
        if let device = deviceToPrepare(arguments: arguments, commands: commands) {
            ALSAOutput.prepare(device: device, then: libraries())
        }
    }

    /// What a player opens on its device's thread once the device is open: the libraries it reads,
    /// stretches and resamples with (`--quality high`'s Rubber Band is opened by the player).
    static func libraries() -> @Sendable () -> Void {
        { Player.loadLibraries(for: PlaybackSettings()) }
    }

    /// The device `prepareDevice` opens for these arguments, or nil.
    static func deviceToPrepare(arguments: [String], commands: [String]) -> String? {
        let file: String
        if arguments.first == "play", arguments.count >= 2 { file = arguments[1] }
        else if let first = arguments.first, !commands.contains(first) { file = first }
        else { return nil }
        guard !file.hasPrefix("-"), access(file, R_OK) == 0,
              !arguments.contains(where: { $0 == "--background" || $0 == "--help" || $0 == "-h" }) else { return nil }
        var device = "default"
        for (i, a) in arguments.enumerated() {
            if a == "--device", i + 1 < arguments.count { device = arguments[i + 1] }
            if a.hasPrefix("--device=") { device = String(a.dropFirst("--device=".count)) }
        }
        return device
    }

    /// The command line of the detached player that takes over from a screen left with `d`.
    public func detachedArguments(paused: Bool, remoteAt serving: String? = nil, video: VideoState? = nil) -> [String] {
        var args = ["play", file, "--device", device]
        if let sidecar = place.sidecar { args += ["--markers", sidecar] }
        if let lyrics = place.lyrics { args += ["--lyrics", lyrics] }
        // The soundtrack chosen (a tutorial's second): the detached player plays the same.
        if let stream = place.audioStream { args += ["--audio-stream", "\(stream)"] }
        if settings.profile.name != "music" { args += ["--profile", settings.profile.name] }
        if settings.quality != .fast { args += ["--quality", settings.quality.rawValue] }
        if settings.formant { args.append("--formant") }
        let flags = [(quiet, "--quiet"), (noMpris, "--no-mpris"), (noJournal, "--no-journal"), (reconnect, "--reconnect"),
                     (remote || serving != nil, "--remote"), (noRemote, "--no-remote")]
        args += flags.filter(\.0).map(\.1)
        if let bind = serving ?? remoteBind { args += ["--remote-bind", bind] }
        // A video's window as the screen left it: hidden, or on the whole screen.
        let window = [(video.map { !$0.isShown } ?? noVideo, "--no-video"), (video?.isFullScreen ?? fullScreen, "--fullscreen"),
                      (noOverlay, "--no-overlay"), (mirror, "--mirror"), (paused, "--paused")]
        return args + window.filter(\.0).map(\.1)
    }
}
