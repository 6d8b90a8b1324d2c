import Foundation
import Synchronization
import PracticeDocuments
import PracticeEngine
import PracticeControl

/// The interactive practice session: reads keys, drives the player (one more controller of the
/// hub) and the marker store, and redraws the screen when something changed (at most ten times a
/// second). Every marker edit is written to the sidecar at once.
public final class Session: @unchecked Sendable {  // all state is touched on the session's own thread only
    let player: Player
    let sidecarPath: String?
    let color: Bool
    private let quitRequested = Atomic<Bool>(false)

    let bindings: KeyBindings

    private var markers: [ScreenState.MarkerRow] = []
    /// A loop end set before the other one: sent to the player once both are known. The loop
    /// itself (its ends, name, on or off, pass) is the player's: the screen shows `player.state.loop`.
    private var pendingStart: Double?
    private var pendingEnd: Double?
    private var selectedEnd = ScreenState.LoopEnd.end
    private var message: String?
    private var prompt: ScreenState.Prompt?
    /// What Enter does with the prompt's text.
    private enum PromptPurpose { case markerName, loopName, rename(String) }
    private var promptPurpose = PromptPurpose.markerName
    private var promptTime = 0.0
    private var showHelp = false
    /// The marker list's picked row while it is open, and a marker waiting for "y" to be deleted.
    private var markerList: Int?
    private var confirmDelete: String?
    private var namedLoops: [(name: String, start: Double, end: Double)] = []
    private var loopIndex = -1
    /// The lyrics as shown (the file's, moved by the sidecar's `lyricsShift`), the shift, the
    /// full view when open, and the lyrics file (`--lyrics`, else found beside the track).
    private var lyrics: Lyrics?
    private var lyricsView: LyricsView?
    private var seekModeDefault = true
    let lyricsPath: String?
    /// Tap-tempo presses (monotonic nanoseconds) and the tempo the sidecar keeps.
    private var taps: [UInt64] = []
    private var sidecarBPM: Double?
    private var lastFrame: [String] = []

    /// Count-in, gaps, pre-roll and trainer for every loop: the command line's, changed by `c` and `t`.
    private(set) var rehearsal: Rehearsal
    /// The count-in the command line asked for (0: none), which `c` turns back on.
    private let countInClicks: Int

    /// `sidecar`: a sidecar to use instead of the track's own (`--markers`); `rehearsal`: the
    /// command line's count-in, gaps, pre-roll and trainer, for every loop set on the screen too.
    /// `notice`: the first message shown (such as where the track was resumed).
    public init(player: Player, sidecar: String?, color: Bool, rehearsal: Rehearsal = Rehearsal(),
                bindings: KeyBindings = .defaults, lyrics: String? = nil, notice: String? = nil) {
        self.message = notice
        self.player = player
        self.lyricsPath = lyrics
        self.sidecarPath = sidecar
        self.color = color
        self.rehearsal = rehearsal
        self.countInClicks = rehearsal.countIn
        self.bindings = bindings
    }

    /// Asks the session to end (from a signal handler's queue, for instance).
    public func requestQuit() {
        quitRequested.store(true, ordering: .releasing)
        wake.ring()
    }

    /// Wakes the key loop when the player's state changes (any controller's command), the
    /// terminal is resized, or a quit is asked for; so a paused session sleeps.
    private let wake = WakePipe()

    /// Runs until `q`, Ctrl-C, `requestQuit()` or the end of a limited loop; restores the terminal.
    public func run() throws {
        reloadMarkers()
        loadLyrics()
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 256)
        let wake = self.wake
        let watcher = Task.detached { [player] in
            for await _ in player.events(keepingNewest: 1) { wake.ring() }
        }
        defer { watcher.cancel() }
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { wake.ring() }
        resize.resume()
        defer { resize.cancel() }
        while !quitRequested.load(ordering: .acquiring) {
            draw()
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            // Playing: ten redraws a second, plus one at each lyric line or word. Paused: only when something happens.
            let s0 = player.state
            _ = poll(&fds, 2, s0.isPlaying && !s0.isFinished ? msUntilNextLyric(s0) : 2_000)
            if fds[1].revents != 0 { wake.drain() }
            var keys: [Key] = []
            if fds[0].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if n <= 0 { break }   // the terminal went away
                keys = decoder.feed(Array(buffer[0..<n]))
                if keys.isEmpty {
                    // A lone ESC: the rest of a sequence may follow within 20 ms; if not, it is Esc.
                    var more = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                    if poll(&more, 1, 20) > 0 {
                        let m = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                        if m > 0 { keys = decoder.feed(Array(buffer[0..<m])) }
                    }
                    if keys.isEmpty { keys = decoder.flush() }
                }
            }
            for key in keys where handle(key) == false { return }
            let s = player.state
            if s.failure != nil { return }
            if s.isFinished, s.loop?.isOn == true, s.loop?.passes != nil { return }   // `--times N` ran out
            if s.isFinished, s.loop?.isOn != true {
                // The end of the track: back to the start, paused, ready to play again.
                player.pause()
                player.seek(to: player.startPosition)
                message = "the end: back to the start (space plays)"
            }
        }
    }

    // MARK: Keys

    /// Carries out one key; false means quit.
    func handle(_ key: Key) -> Bool {
        if prompt != nil { editPrompt(key); return true }
        if showHelp { showHelp = false; return true }
        if let name = confirmDelete {
            confirmDelete = nil
            if key == .character("y") || key == .character("Y") { deleteMarker(named: name) } else { message = "kept '\(name)'" }
            return true
        }
        message = nil
        if lyricsView != nil, handleLyrics(key) { return true }
        if markerList != nil, handleList(key) { return true }
        guard let action = bindings[key] else { return true }
        return perform(action)
    }

    /// Carries out one action; false means quit.
    func perform(_ action: Action) -> Bool {
        let s = player.state
        switch action {
        case .quit: return false
        case .playPause: player.togglePause()
        case .back: player.seek(to: s.position - 5)
        case .forward: player.seek(to: s.position + 5)
        case .backFine: player.seek(to: s.position - 1)
        case .forwardFine: player.seek(to: s.position + 1)
        case .toStart: player.seek(to: 0)
        case .faster: setRate(s.rate + 0.1, grid: 0.1)
        case .slower: setRate(s.rate - 0.1, grid: 0.1)
        case .fasterFine: setRate(s.rate + 0.01, grid: 0.01)
        case .slowerFine: setRate(s.rate - 0.01, grid: 0.01)
        case .speedReset: setRate(1, grid: 0.01)
        case .pitchUp: player.setPitch(s.pitch + 1)
        case .pitchDown: player.setPitch(s.pitch - 1)
        case .addMarker:
            promptTime = Sidecar.milliseconds(s.position)
            promptPurpose = .markerName
            prompt = .init(label: "Marker at \(Timecode.format(promptTime, decimals: 3)), name", text: nextMarkerName(), isSuggestion: true)
        case .jump1, .jump2, .jump3, .jump4, .jump5, .jump6, .jump7, .jump8, .jump9:
            let k = action.jumpNumber! - 1
            if k < markers.count { jump(to: markers[k]) } else { message = "no marker \(k + 1)" }
        case .previousMarker:
            // Within a second after a marker, go to the one before it, as players' "previous" does.
            if let m = markers.last(where: { $0.time < s.position - 1 }) { jump(to: m) } else { player.seek(to: 0) }
        case .nextMarker:
            if let m = markers.first(where: { $0.time > s.position + 0.0005 }) { jump(to: m) } else { message = "no marker after here" }
        case .markerList:
            guard !markers.isEmpty else { message = "no markers yet (\(bindings.label(.addMarker)) drops one)"; break }
            markerList = markers.lastIndex { $0.time <= s.position + 0.0005 } ?? 0
        case .loopStart: setLoopStart(Sidecar.milliseconds(s.position))
        case .loopEnd: setLoopEnd(Sidecar.milliseconds(s.position))
        case .loopToggle:
            if let l = s.loop { player.setLooping(!l.isOn) } else { message = "set the loop's ends with \(bindings.label(.loopStart)) and \(bindings.label(.loopEnd)) first" }
        case .nextLoop: nextNamedLoop()
        case .saveLoop:
            guard s.loop != nil else {
                message = "set the loop's ends with \(bindings.label(.loopStart)) and \(bindings.label(.loopEnd)) first"
                break
            }
            promptPurpose = .loopName
            prompt = .init(label: "Save the loop as", text: nextLoopName(), isSuggestion: true)
        case .switchEnd:
            selectedEnd = selectedEnd == .start ? .end : .start
            message = "the nudge keys move the loop's \(selectedEnd == .start ? "start (A)" : "end (B)")"
        case .nudgeEarlier: nudgeLoop(by: -0.01)
        case .nudgeLater: nudgeLoop(by: 0.01)
        case .nudgeEarlierMore: nudgeLoop(by: -0.1)
        case .nudgeLaterMore: nudgeLoop(by: 0.1)
        case .tapTempo: tap()
        case .countIn: toggleCountIn()
        case .lyricsView: toggleLyricsView()
        case .lyricsEarlier: shiftLyrics(by: -0.05)
        case .lyricsLater: shiftLyrics(by: 0.05)
        case .help: showHelp = true
        }
        return true
    }

    /// The marker list's own keys; false hands the key on to the usual bindings.
    private func handleList(_ key: Key) -> Bool {
        guard var k = markerList, !markers.isEmpty else { markerList = nil; return false }
        k = min(k, markers.count - 1)
        switch key {
        case .up: markerList = max(k - 1, 0)
        case .down: markerList = min(k + 1, markers.count - 1)
        case .left: nudgeMarker(markers[k].name, by: -0.01)
        case .right: nudgeMarker(markers[k].name, by: 0.01)
        case .shiftLeft: nudgeMarker(markers[k].name, by: -0.1)
        case .shiftRight: nudgeMarker(markers[k].name, by: 0.1)
        case .enter: jump(to: markers[k])
        case .character("r"):
            promptPurpose = .rename(markers[k].name)
            prompt = .init(label: "Rename '\(markers[k].name)' to", text: markers[k].name, isSuggestion: true)
        case .character("d"), .character("x"):
            confirmDelete = markers[k].name
            message = "Delete the marker '\(markers[k].name)'? y deletes it, any other key keeps it"
        case .escape: markerList = nil
        default:
            if bindings[key] == .markerList || key == .character("q") { markerList = nil; return true }
            return false
        }
        return true
    }

    private func setRate(_ r: Double, grid: Double) {
        player.setRate((r / grid).rounded() * grid)
    }

    private func jump(to m: ScreenState.MarkerRow) {
        player.seek(to: m.time)
        player.play()
        message = "\(m.name) (\(Timecode.format(m.time, decimals: 3)))"
    }

    /// `a`: the loop's start here. With an end after it (the loop's, or one waiting), the loop is
    /// set (on, or still off if it was off); otherwise the start waits for an end.
    private func setLoopStart(_ t: Double) {
        selectedEnd = .start
        let current = player.state.loop
        if let b = current?.end ?? pendingEnd, b > t {
            setLoop(start: t, end: b, on: current?.isOn ?? true)
        } else {
            if current != nil { try? player.setLoop(nil) }
            pendingStart = t
            pendingEnd = nil
            message = "loop from \(Timecode.format(t, decimals: 3)); \(bindings.label(.loopEnd)) sets its end"
        }
    }

    /// `b`: the loop's end here, after its start (the loop's, or one waiting); the loop plays.
    private func setLoopEnd(_ t: Double) {
        selectedEnd = .end
        guard let a = player.state.loop?.start ?? pendingStart else {
            pendingEnd = t
            message = "loop to \(Timecode.format(t, decimals: 3)); \(bindings.label(.loopStart)) sets its start"
            return
        }
        guard t > a else { message = "the loop's end must come after its start (\(Timecode.format(a, decimals: 3)))"; return }
        setLoop(start: a, end: t, on: true)
    }

    /// Sends the loop to the player with this session's rehearsal; nothing waits any more.
    private func setLoop(start a: Double, end b: Double, name: String? = nil, on: Bool, keepingCount: Bool = false) {
        do {
            try player.setLoop(LoopRange(start: a, end: b, name: name, rehearsal: loopRehearsal), keepingCount: keepingCount, on: on)
            pendingStart = nil
            pendingEnd = nil
        } catch {
            message = error.message
        }
    }

    /// The rehearsal with the sidecar's tempo when the command line gave none.
    private var loopRehearsal: Rehearsal {
        var r = rehearsal
        if r.bpm == nil { r.bpm = sidecarBPM }
        return r
    }

    /// Moves the picked loop end; when looping, plays from just before the change so it is heard.
    private func nudgeLoop(by seconds: Double) {
        guard let l = player.state.loop else {
            message = "set the loop's ends with \(bindings.label(.loopStart)) and \(bindings.label(.loopEnd)) first"
            return
        }
        var (a, b) = (l.start, l.end)
        if selectedEnd == .start {
            a = Sidecar.milliseconds(min(max(a + seconds, 0), b - LoopRange.minimumSeconds))
            message = "loop start \(Timecode.format(a, decimals: 3))"
        } else {
            b = Sidecar.milliseconds(max(min(b + seconds, player.track.duration), a + LoopRange.minimumSeconds))
            message = "loop end \(Timecode.format(b, decimals: 3))"
        }
        setLoop(start: a, end: b, on: l.isOn, keepingCount: true)
        guard l.isOn else { return }
        // Hear the new start at once, or the last 1.5 s into the new end and the turn.
        player.seek(to: selectedEnd == .start ? a : max(a, b - 1.5))
    }

    private func editPrompt(_ key: Key) {
        guard var p = prompt else { return }
        switch key {
        case .enter:
            prompt = nil
            switch promptPurpose {
            case .markerName: addMarker(named: p.text, at: promptTime)
            case .loopName: saveLoop(named: p.text)
            case .rename(let old): renameMarker(old, to: p.text)
            }
            return
        case .escape, .ctrlC: prompt = nil; message = "cancelled"; return
        default: p.edit(key)
        }
        prompt = p
    }

    // MARK: Markers

    private func nextMarkerName() -> String {
        let taken = Set(markers.map { $0.name.lowercased() })
        var n = markers.count + 1
        while taken.contains("marker \(n)") { n += 1 }
        return "Marker \(n)"
    }

    private func addMarker(named name: String, at time: Double) {
        edit({ (s: inout Sidecar) throws(PracticeError) in try s.addMarker(name: name, time: time, duration: player.track.duration) }) { m, loaded in
            "added marker '\(m.name)' at \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))"
        }
    }

    /// Runs one edit of the sidecar through the store (locked, re-read, written atomically), then
    /// shows `done`'s message or the error, and reloads the markers.
    private func edit<R>(_ change: (inout Sidecar) throws(PracticeError) -> R, done: (R, LoadedSidecar) -> String) {
        do {
            let (r, loaded) = try SidecarStore.update(for: player.track, explicit: sidecarPath, change)
            message = done(r, loaded)
        } catch {
            message = error.message
        }
        reloadMarkers()
    }

    private func renameMarker(_ old: String, to new: String) {
        edit({ (s: inout Sidecar) throws(PracticeError) in try s.renameMarker(old, to: new) }) { _, _ in "renamed '\(old)' to '\(new)'" }
        if let k = markers.firstIndex(where: { $0.name == new.trimmingCharacters(in: .whitespaces) }), markerList != nil { markerList = k }
    }

    /// Moves a marker (the list's ←/→) and goes to its new place: while playing, the change is heard at once.
    private func nudgeMarker(_ name: String, by seconds: Double) {
        var moved: Double?
        edit({ (s: inout Sidecar) throws(PracticeError) in
            try s.moveMarker(name, .by(seconds), duration: player.track.duration)
        }) { m, _ in
            moved = m.time
            return "'\(m.name)' at \(Timecode.format(m.time, decimals: 3)) (\(seconds > 0 ? "+" : "−")\(Int((abs(seconds) * 1000).rounded())) ms)"
        }
        guard let t = moved else { return }
        if let k = markers.firstIndex(where: { $0.name == name }) { markerList = k }
        player.seek(to: t)
    }

    private func deleteMarker(named name: String) {
        edit({ (s: inout Sidecar) throws(PracticeError) in try s.removeMarker(named: name) }) { _, _ in "deleted the marker '\(name)'" }
        if markers.isEmpty { markerList = nil } else if let k = markerList { markerList = min(k, markers.count - 1) }
    }

    // MARK: Lyrics

    private func loadLyrics() {
        do {
            guard let found = try LyricsFile.forTrack(player.track, explicit: lyricsPath, sidecar: sidecarPath) else { return }
            lyrics = found.lyrics
            if let warning = found.warnings.first { message = "\(found.path): \(warning)" }
        } catch {
            message = error.message
        }
    }

    /// While playing: how long until the next line or word is heard (at most 100 ms), so the
    /// screen shows it within a few ms of its time.
    private func msUntilNextLyric(_ s: PlayerState) -> Int32 {
        guard let lyrics, lyrics.isSynced, s.rate > 0 else { return 100 }
        let t = s.position
        var next = Double.infinity
        let i = lyrics.lineIndex(at: t)
        let n = (i ?? -1) + 1
        if n < lyrics.lines.count { next = lyrics.lines[n].time }
        if let i, let w = lyrics.wordIndex(inLine: i, at: t), w + 1 < lyrics.lines[i].words.count {
            next = min(next, lyrics.lines[i].words[w + 1].time)
        } else if let i, lyrics.lines[i].words.first.map({ $0.time > t }) == true {
            next = min(next, lyrics.lines[i].words[0].time)
        }
        let ms = (next - t) / s.rate * 1000
        return Int32(min(max(ms.rounded(.up) + 1, 1), 100))
    }

    /// `y`: the full-lyrics view, on the heard line (or closed).
    private func toggleLyricsView() {
        if lyricsView != nil { lyricsView = nil; return }
        guard let lyrics else { message = "no lyrics for this track (song.lrc beside it, or --lyrics PATH)"; return }
        if !lyrics.isSynced { lyricsView = LyricsView(selected: 0, seekMode: false, following: false); return }
        lyricsView = LyricsView(selected: lyrics.lineIndex(at: player.state.position) ?? 0, seekMode: seekModeDefault)
    }

    /// The full view's own keys; false hands the key on to the usual bindings.
    private func handleLyrics(_ key: Key) -> Bool {
        guard var v = lyricsView, let lyrics else { lyricsView = nil; return false }
        let count = max(lyrics.lines.count, 1)
        if v.following, lyrics.isSynced { v.selected = lyrics.lineIndex(at: player.state.position) ?? 0 }
        switch key {
        case .up: v.selected = max(v.selected - 1, 0); v.following = false
        case .down: v.selected = min(v.selected + 1, count - 1); v.following = false
        case .tab:
            v.seekMode.toggle()
            seekModeDefault = v.seekMode
            message = v.seekMode ? "Enter jumps to the line and plays" : "Enter closes the lyrics"
        case .enter:
            guard v.seekMode, lyrics.isSynced else { lyricsView = nil; return true }
            let line = lyrics.lines[v.selected]
            player.seek(to: line.time)
            player.play()
            v.following = true
            message = "line \(v.selected + 1) (\(Timecode.format(line.time, decimals: 2)))"
        case .escape: lyricsView = nil; return true
        case _ where bindings[key] == .loopStart && lyrics.isSynced:
            setLoopStart(Sidecar.milliseconds(lyrics.lines[v.selected].time))
            if message?.hasPrefix("the loop") != true { message = "loop from line \(v.selected + 1)" }
        case _ where bindings[key] == .loopEnd && lyrics.isSynced:
            // The end of the picked line: where the next begins (or the track ends).
            let end = v.selected + 1 < lyrics.lines.count ? lyrics.lines[v.selected + 1].time : player.track.duration
            setLoopEnd(Sidecar.milliseconds(end))
            if message?.hasPrefix("the loop") != true { message = "loop to the end of line \(v.selected + 1)" }
        default:
            if bindings[key] == .lyricsView || key == .character("q") { lyricsView = nil; return true }
            return false
        }
        if lyricsView != nil { lyricsView = v }
        return true
    }

    /// `<` / `>`: the lyrics 50 ms earlier or later, kept in the sidecar for this track.
    private func shiftLyrics(by seconds: Double) {
        guard let current = lyrics else { message = "no lyrics for this track"; return }
        lyrics = current.shifted(by: seconds)
        var total = 0.0
        edit({ (s: inout Sidecar) throws(PracticeError) in
            var settings = s.settings ?? PracticeSettings()
            total = Sidecar.milliseconds((settings.lyricsShift ?? 0) + seconds)
            settings.lyricsShift = total == 0 ? nil : total
            s.settings = settings
        }) { _, _ in "lyrics \(total >= 0 ? "+" : "−")\(Int((abs(total) * 1000).rounded())) ms (saved)" }
    }

    // MARK: Tempo and count-in

    /// `t`: the tempo from the last taps (2 or more, each within 2 s of the one before), as the
    /// song's tempo (what is heard ÷ the speed), saved in the sidecar's settings.
    private func tap() {
        let now = DispatchTime.now().uptimeNanoseconds
        if let last = taps.last, now - last > 2_000_000_000 { taps.removeAll() }
        taps.append(now)
        if taps.count > 8 { taps.removeFirst(taps.count - 8) }
        guard taps.count >= 2 else { message = "tap on every beat (\(bindings.label(.tapTempo)))"; return }
        let beat = Double(taps.last! - taps.first!) / Double(taps.count - 1) / 1e9
        let bpm = (60 / beat / player.state.rate * 10).rounded() / 10
        guard (20...400).contains(bpm) else { message = "\(StatusLine.formatNumber(bpm)) bpm is out of range (20–400)"; return }
        rehearsal.bpm = bpm
        edit({ (s: inout Sidecar) throws(PracticeError) in
            var settings = s.settings ?? PracticeSettings()
            settings.bpm = bpm
            s.settings = settings
        }) { _, _ in "tempo \(StatusLine.formatNumber(bpm)) bpm from \(taps.count) taps (saved)" }
    }

    /// `c`: count-in before each pass on or off (the command line's number of clicks, else 4).
    private func toggleCountIn() {
        if rehearsal.countIn > 0 {
            rehearsal.countIn = 0
            rehearsal.countInEvery = false
            message = "count-in off"
        } else {
            guard let bpm = rehearsal.bpm ?? sidecarBPM else {
                message = "a count-in needs the song's tempo: tap it with \(bindings.label(.tapTempo))"
                return
            }
            rehearsal.countIn = countInClicks > 0 ? countInClicks : 4
            rehearsal.countInEvery = true
            message = "count-in: \(rehearsal.countIn) clicks at \(StatusLine.formatNumber(bpm)) bpm before each pass"
        }
        if let l = player.state.loop { setLoop(start: l.start, end: l.end, name: l.name, on: l.isOn, keepingCount: true) }
    }

    private func nextLoopName() -> String {
        let taken = Set(namedLoops.map { $0.name.lowercased() })
        var n = namedLoops.count + 1
        while taken.contains("loop \(n)") { n += 1 }
        return "Loop \(n)"
    }

    private func saveLoop(named name: String) {
        guard let l = player.state.loop else { return }
        var saved: String?
        edit({ (s: inout Sidecar) throws(PracticeError) in
            try s.addLoop(name: name, from: Timecode.format(l.start, decimals: 3), to: Timecode.format(l.end, decimals: 3), duration: player.track.duration)
        }) { added, loaded in
            saved = added.name
            return "saved loop '\(added.name)' (\(loaded.writePath))"
        }
        if let saved { setLoop(start: l.start, end: l.end, name: saved, on: l.isOn, keepingCount: true) }
    }

    /// `L`: the next named loop from the sidecar, looping at once.
    private func nextNamedLoop() {
        guard !namedLoops.isEmpty else { message = "no named loops yet (\(bindings.label(.saveLoop)) saves the current one)"; return }
        loopIndex = (loopIndex + 1) % namedLoops.count
        let l = namedLoops[loopIndex]
        message = "loop '\(l.name)'"
        setLoop(start: l.start, end: l.end, name: l.name, on: true)
    }

    private func reloadMarkers() {
        guard let loaded = try? SidecarStore.load(for: player.track, explicit: sidecarPath) else { return }
        var s = loaded.sidecar
        s.normalize()
        markers = s.liveMarkers.map { .init(name: $0.name, time: $0.time) }
        sidecarBPM = s.settings?.bpm
        namedLoops = s.liveLoops.compactMap { l in
            guard let a = s.time(of: l.start), let b = s.time(of: l.end) else { return nil }
            return (l.name, a, b)
        }
    }

    // MARK: Drawing

    var screenState: ScreenState {
        let playerState = player.state
        var st = ScreenState(player: playerState, markers: markers, pendingStart: pendingStart, pendingEnd: pendingEnd,
                             message: message, prompt: prompt)
        st.showHelp = showHelp
        st.selectedEnd = selectedEnd
        st.markerList = markerList
        st.rehearsal = playerState.loop?.rehearsal ?? rehearsal
        st.bpm = rehearsal.bpm ?? sidecarBPM
        st.bindings = bindings
        st.lyrics = lyrics
        if var v = lyricsView, let lyrics, v.following, lyrics.isSynced {
            v.selected = lyrics.lineIndex(at: playerState.position) ?? 0
            st.lyricsView = v
        } else {
            st.lyricsView = lyricsView
        }
        return st
    }

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
