// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Dispatch
import Glibc
import Synchronization
import PracticeDocuments
import PracticeEngine
import PracticeControl
import PracticeSystem

/// The practice screen's I/O loop: reads keys, hands them to the `SessionModel` (keys in, actions
/// out), carries out its actions on the player (one more controller of the hub) and the sidecar
/// (every edit written at once), and redraws the screen when something changed (at most ten
/// times a second, and at each lyric line or word).
public final class Session: @unchecked Sendable {  // all state is touched on the session's own thread only
    let player: any PlayerHandle
    let sidecarPath: String?
    let lyricsPath: String?
    let color: Bool
    private(set) var model: SessionModel
    private let quitRequested = Atomic<Bool>(false)
    /// The player's events ended: it stopped (one in another process quit, or went away).
    private let playerEnded = Atomic<Bool>(false)
    /// `d`: leave the player playing (the host decides how).
    public private(set) var detachRequested = false
    /// Writes today's note in the journal (the host's); nil when it was, else the one-line problem.
    public var writeNote: ((String) -> String?)?
    private var lastFrame: [String] = []

    /// `sidecar`: a sidecar to use instead of the track's own (`--markers`); `rehearsal`: the
    /// command line's count-in, gaps, pre-roll and trainer, for every loop set on the screen too.
    /// `notice`: the first message shown (such as where the track was resumed).
    public init(player: any PlayerHandle, sidecar: String?, color: Bool, rehearsal: Rehearsal = Rehearsal(),
                bindings: KeyBindings = .defaults, lyrics: String? = nil, notice: String? = nil) {
        self.player = player
        self.sidecarPath = sidecar
        self.lyricsPath = lyrics
        self.color = color
        model = SessionModel(bindings: bindings, rehearsal: rehearsal, notice: notice)
    }

    /// Lines said from other threads (the phone remote: a phone paired, pairing refused), for
    /// the message line at the next wake.
    private let posted = Locked<[String]>([])

    /// Says `text` on the screen's message line, from any thread.
    public var post: @Sendable (String) -> Void {
        { [posted, wake] text in
            posted.withLock { $0.append(text) }
            wake.ring()
        }
    }

    /// The lines posted since the last look, said (the last one shows).
    func sayPosted() {
        for text in posted.withLock({ p in defer { p.removeAll() }; return p }) { model.say(text.terminalSafe) }
    }

    /// Asks the session to end (from a signal handler's queue, for instance).
    public func requestQuit() {
        quitRequested.store(true, ordering: .releasing)
        wake.ring()
    }

    /// Wakes the key loop when the player's state changes (any controller's command), the
    /// terminal is resized, or a quit is asked for; so a paused session sleeps.
    private let wake = WakePipe()
    /// The device's absence last seen (`PlayerState.deviceLost`), to say when it changes.
    private var deviceLost: String?
    /// The player's last rewind at the end seen (`PlayerState.rewound`), to say when it happens.
    private var rewound: PlayerState.Rewound?

    /// Runs until `q`, Ctrl-C or `requestQuit()` (a loop's last pass leaves it paused at A);
    /// restores the terminal.
    public func run() throws {
        prepare()
        rewound = player.state.rewound   // an end before this screen looked is not news (one attached later)
        let terminal = try RawTerminal(mouse: model.bindings.mouse)
        defer { terminal.restore() }
        var decoder = KeyDecoder()
        let wake = self.wake
        let listener = Task.detached { [player, self] in
            for await _ in player.events(keepingNewest: 1) { wake.ring() }
            playerEnded.store(true, ordering: .releasing)
            wake.ring()
        }
        defer { listener.cancel() }
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { wake.ring() }
        resize.resume()
        defer { resize.cancel() }
        while !quitRequested.load(ordering: .acquiring) && !playerEnded.load(ordering: .acquiring) {
            draw()
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: watcher?.fd ?? -1, events: Int16(POLLIN), revents: 0)]
            // Playing: ten redraws a second, plus one at each lyric line or word and each beat. Paused: only when something happens.
            let s0 = player.state
            _ = poll(&fds, 3, s0.isPlaying && !s0.isFinished ? msUntilNextLyric(s0) : 2_000)
            if fds[1].revents != 0 { wake.drain() }
            if fds[2].revents != 0, watcher?.drain() == true { reloadSidecar() }
            var keys: [Key] = []
            if fds[0].revents != 0 {
                guard let read = decoder.read(from: STDIN_FILENO) else { break }   // the terminal went away
                keys = read
            }
            for key in keys where handle(key) == false { return }
            sayPosted()
            let s = player.state
            if s.failure != nil { return }
            if s.deviceLost != deviceLost {   // --reconnect: the device went away, or is back
                // The screen's line says what is going on; why (the device's own words) is for plain output.
                if let lost = s.deviceLost { model.say(lost.components(separatedBy: ": it ").first ?? lost) } else if deviceLost != nil {
                    model.say("the audio device is back: \(s.isPlaying ? "playing on" : "paused") at \(Timecode.format(s.position, decimals: 1))")
                }
                deviceLost = s.deviceLost
            }
            if s.rewound != rewound {
                // The player went back at the end (`EndPolicy.rewind`): say why.
                switch s.rewound {
                case .passes(let passes):
                    model.say("\(passes) pass\(passes == 1 ? "" : "es") done: paused at the loop's start (space plays \(passes == 1 ? "it" : "them") again)")
                case .track: model.say("the end: back to the start (space plays)")
                case nil: break
                }
                rewound = s.rewound
            }
        }
    }

    // MARK: Actions

    /// Carries out one key; false means quit.
    func handle(_ key: Key) -> Bool {
        if case .click(let column, let row) = key {
            let (columns, rows) = RawTerminal.size()
            return click(column: column, row: row, columns: columns, rows: rows)
        }
        return carryOut(model.handle(key, player: player.state, now: DispatchTime.now().uptimeNanoseconds))
    }

    /// A click at `column`, `row` on a screen of `columns` × `rows`.
    func click(column: Int, row: Int, columns: Int, rows: Int) -> Bool {
        guard model.bindings.mouse, let hit = Screen.hit(screenState, width: columns, height: rows, column: column, row: row) else { return true }
        return carryOut(model.clicked(hit, player: player.state))
    }

    /// Carries out the model's actions, and those that their outcomes lead to; false means quit.
    private func carryOut(_ actions: [SessionAction]) -> Bool {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .quit: return false
            case .detach:
                detachRequested = true
                return false
            case .togglePause: player.togglePause()
            case .seek(let t): player.seek(to: t)
            case .jump(let t): player.jump(to: t)
            case .rate(let r): player.setRate(r)
            case .pitch(let p): player.setPitch(p)
            case .formant(let on): player.setFormant(on)
            case .mirror(let on): player.setMirror(on)
            case .video(let shown, let fullScreen): player.setVideo(shown: shown, fullScreen: fullScreen)
            case .looping(let on): player.setLooping(on)
            case .loop(let loop, let keepingCount, let on):
                do { try player.setLoop(loop, keepingCount: keepingCount, on: on) } catch {
                    queue += model.finished(.failed(error.message), player: player.state)
                }
            case .edit(let edit): queue += model.finished(apply(edit), player: player.state)
            case .note(let text):
                let outcome: SessionOutcome
                if let writeNote { outcome = writeNote(text).map { .failed($0) } ?? .noted } else { outcome = .failed("no journal here: the note is not kept") }
                queue += model.finished(outcome, player: player.state)
            }
        }
        return true
    }

    /// Makes one edit through the sidecar store (locked, re-read, written atomically), then
    /// reloads the sidecar; says what came of it.
    private func apply(_ edit: SidecarEdit) -> SessionOutcome {
        defer { reloadSidecar() }
        let track = player.track, duration = track.duration
        func update<R>(_ change: (inout Sidecar) throws(PracticeError) -> R) throws(PracticeError) -> (R, LoadedSidecar) {
            let (r, loaded) = try SidecarStore.update(for: track, explicit: sidecarPath, change)
            return (r, loaded)
        }
        do throws(PracticeError) {
            switch edit {
            case .addMarker(let name, let time):
                let (m, loaded) = try update { (s: inout Sidecar) throws(PracticeError) in try s.addMarker(name: name, time: time, duration: duration) }
                return .markerAdded(name: m.name, time: m.time, file: loaded.writePath)
            case .renameMarker(let old, let new):
                let (was, _) = try update { (s: inout Sidecar) throws(PracticeError) in try s.renameMarker(old, to: new) }
                return .markerRenamed(was.name, to: new.trimmingWhitespace())
            case .moveMarker(let name, let seconds):
                let (m, _) = try update { (s: inout Sidecar) throws(PracticeError) in try s.moveMarker(name, .by(seconds), duration: duration) }
                return .markerMoved(name: m.name, time: m.time, by: seconds)
            case .deleteMarker(let id):
                let (m, _) = try update { (s: inout Sidecar) throws(PracticeError) in try s.removeMarker(named: id) }
                return .markerDeleted(m.name)
            case .addLoop(let name, let a, let b, let startMarker, let endMarker):
                let (l, loaded) = try update { (s: inout Sidecar) throws(PracticeError) in
                    try s.addLoop(name: name, from: startMarker ?? Timecode.format(a, decimals: 3), to: endMarker ?? Timecode.format(b, decimals: 3), duration: duration)
                }
                return .loopSaved(name: l.name, file: loaded.writePath)
            case .setBPM(let bpm):
                _ = try update { (s: inout Sidecar) throws(PracticeError) in
                    var settings = s.settings ?? PracticeSettings()
                    settings.set(\.bpm, bpm)
                    s.settings = settings
                }
                return .bpmSaved(bpm)
            case .switchTempoOctave:
                let (grid, _) = try update { (s: inout Sidecar) throws(PracticeError) -> BeatGrid in
                    guard let switched = s.beats?.switchedOctave(duration: duration) else { throw PracticeError(.usage, "the beats have no other reading of their tempo") }
                    var g = switched
                    g.updatedAt = Sidecar.now()
                    s.beats = g
                    return g
                }
                return .tempoSwitched(tempo: grid.tempo, other: grid.otherTempo ?? grid.tempo)
            case .shiftLyrics(let seconds):
                let (total, _) = try update { (s: inout Sidecar) throws(PracticeError) -> Double in
                    var settings = s.settings ?? PracticeSettings()
                    let total = Sidecar.milliseconds((settings.lyricsShift ?? 0) + seconds)
                    settings.set(\.lyricsShift, total == 0 ? nil : total)
                    s.settings = settings
                    return total
                }
                return .lyricsShifted(total: total)
            }
        } catch {
            return .failed(error.message)
        }
    }

    /// Reads the sidecar and the lyrics, and starts watching the sidecar's files, so that another
    /// window's edits (or a `git pull`) show at once.
    func prepare() {
        let loaded = reloadSidecar()
        loadLyrics()
        // Where edits go, what was read, and the files beside the song (a crew's, which a
        // fallback sidecar takes in): any of them changing reloads.
        var paths = [sidecarPath ?? SidecarStore.ownPath(forAudio: player.track.path)]
        if let loaded {
            paths += [loaded.writePath] + (loaded.readPath.map { [$0] } ?? [])
            // Markers moved to match this copy of the song: said once, unless resuming is.
            if model.message == nil, let line = loaded.notices.first ?? loaded.alignment { model.say(line) }
        }
        if sidecarPath == nil { paths += SidecarStore.siblingPaths(forAudio: player.track.path) }
        watcher = FolderWatcher(paths: paths)
    }

    /// Watches the sidecar's files (nil without inotify).
    private var watcher: FolderWatcher?

    /// Waits up to `milliseconds` for the sidecar to change on disk and reloads it if it did.
    func reloadIfChanged(waitingMs milliseconds: Int32) -> Bool {
        guard watcher?.wait(milliseconds: milliseconds) == true else { return false }
        reloadSidecar()
        return true
    }

    /// Reads the sidecar into the model, and returns what was read. One that cannot be read is
    /// said on the screen, and what was shown stays (the file is never rewritten).
    @discardableResult
    private func reloadSidecar() -> LoadedSidecar? {
        let loaded: LoadedSidecar
        do {
            loaded = try SidecarStore.load(for: player.track, explicit: sidecarPath)
        } catch {
            model.sidecarUnreadable(error.message)
            return nil
        }
        var s = loaded.sidecar
        s.normalize()
        let missing = Set(loaded.placement?.missing ?? [])
        let ends = s.loopEnds
        let loops = s.liveLoops.compactMap { l -> SidecarView.NamedLoop? in
            guard let a = ends.time(of: l.start), let b = ends.time(of: l.end) else { return nil }
            return .init(name: l.name, start: a, end: b)
        }
        let follow = model.reload(SidecarView(markers: s.liveMarkers.map { .init(name: $0.name, time: $0.time, id: $0.id, notInThisCopy: missing.contains($0.id)) }, loops: loops, bpm: s.settings?.bpm ?? s.beats?.tempo, beats: s.beats),
                                  player: player.state)
        if !follow.isEmpty { _ = carryOut(follow) }
        return loaded
    }

    // MARK: Lyrics

    private func loadLyrics() {
        do {
            guard let found = try LyricsFile.forTrack(player.track, explicit: lyricsPath, sidecar: sidecarPath) else { return }
            model.setLyrics(found.lyrics, problem: found.warnings.first.map { "\(found.path): \($0)" })
        } catch {
            model.setLyrics(nil, problem: error.message)
        }
    }

    /// While playing: how long until the next line or word is heard (at most 100 ms), so the
    /// screen shows it within a few ms of its time.
    /// Milliseconds until the next thing the screen shows changes: a lyric line or word, a beat
    /// of the count; at most 100.
    private func msUntilNextLyric(_ s: PlayerState) -> Int32 {
        guard s.rate > 0 else { return 100 }
        let t = s.position
        var next = Double.infinity
        if let g = model.beats, let k = g.times.firstIndex(where: { $0 > t + 0.0005 }) { next = g.times[k] }
        if let lyrics = model.lyrics, lyrics.isSynced {
            let i = lyrics.lineIndex(at: t)
            let n = (i ?? -1) + 1
            if n < lyrics.lines.count { next = min(next, lyrics.lines[n].time) }
            if let i, let w = lyrics.wordIndex(inLine: i, at: t), w + 1 < lyrics.lines[i].words.count {
                next = min(next, lyrics.lines[i].words[w + 1].time)
            } else if let i, lyrics.lines[i].words.first.map({ $0.time > t }) == true {
                next = min(next, lyrics.lines[i].words[0].time)
            }
        }
        guard next.isFinite else { return 100 }
        let ms = (next - t) / s.rate * 1000
        return Int32(min(max(ms.rounded(.up) + 1, 1), 100))
    }

    // MARK: Drawing

    var screenState: ScreenState {
        var s = model.screen(player.state)
        if model.showRemote {
            s.remotePanel = remotePanel?() ?? ["The phone remote is not offered here.", "", "Any key goes back."]
        }
        return s
    }

    /// The phone remote's panel: started if it was not, its address and pairing code (`R`).
    public var remotePanel: (@Sendable () -> [String])?

    private var lastState: (ScreenState, Int, Int)?

    /// Renders only when the state or the terminal's size changed, and writes only a changed frame.
    private func draw() {
        let (columns, rows) = RawTerminal.size()
        let state = screenState
        if let (s, c, r) = lastState, s == state, c == columns, r == rows { return }
        lastState = (state, columns, rows)
        let frame = Screen.render(state, width: columns, height: rows, color: color)
        guard frame != lastFrame else { return }
        lastFrame = frame
        Terminal.writeRaw("\u{1B}[H" + frame.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J", to: STDOUT_FILENO)
    }
}
