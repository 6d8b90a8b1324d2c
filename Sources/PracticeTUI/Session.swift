import Foundation
import PracticeCore
import Synchronization

/// The interactive practice session: reads keys, drives the player (one more controller of the
/// hub) and the marker store, and redraws the screen when something changed (at most ten times a
/// second). Every marker edit is written to the sidecar at once.
public final class Session: @unchecked Sendable {  // all state is touched on the session's own thread only
    let player: Player
    let sidecarPath: String?
    let color: Bool
    private let quitRequested = Atomic<Bool>(false)

    private var markers: [ScreenState.MarkerRow] = []
    private var loopStart: Double?
    private var loopEnd: Double?
    private var looping = false
    private var message: String?
    private var prompt: ScreenState.Prompt?
    /// What Enter does with the prompt's text.
    private enum PromptPurpose { case markerName, loopName }
    private var promptPurpose = PromptPurpose.markerName
    private var promptTime = 0.0
    private var showHelp = false
    private var namedLoops: [(name: String, start: Double, end: Double)] = []
    private var loopIndex = -1
    private var lastFrame: [String] = []

    /// What the command line asked every loop to have (count-in, gaps, trainer), kept for loops set here.
    let rehearsal: Rehearsal

    /// `sidecar`: a sidecar to use instead of the track's own (`--markers`); `rehearsal`: the
    /// command line's count-in, gaps, pre-roll and trainer, for every loop set on the screen too.
    public init(player: Player, sidecar: String?, color: Bool, rehearsal: Rehearsal = Rehearsal()) {
        self.player = player
        self.sidecarPath = sidecar
        self.color = color
        self.rehearsal = rehearsal
        if let loop = player.state.loop {
            loopStart = loop.start
            loopEnd = loop.end
            looping = true
        }
    }

    /// Asks the session to end (from a signal handler's queue, for instance).
    public func requestQuit() { quitRequested.store(true, ordering: .releasing) }

    /// Runs until `q`, Ctrl-C, `requestQuit()` or the end of a limited loop; restores the terminal.
    public func run() throws {
        reloadMarkers()
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 256)
        while !quitRequested.load(ordering: .acquiring) {
            draw()
            var pfd = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 100)   // 100 ms: at most ten redraws a second while playing
            var keys: [Key] = []
            if ready > 0 {
                let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if n <= 0 { break }   // the terminal went away
                keys = decoder.feed(Array(buffer[0..<n]))
                if keys.isEmpty { usleep(20_000); keys = decoder.feed([]) + decoder.flush() }
            }
            for key in keys where handle(key) == false { return }
            let s = player.state
            if s.failure != nil { return }
            if s.isFinished, s.loop?.passes != nil { return }   // `--times N` ran out
            if s.isFinished, s.loop == nil {
                // The end of the track: back to the start, paused, ready to play again.
                player.pause()
                player.seek(to: 0)
                message = "the end: back to the start (space plays)"
            }
        }
    }

    // MARK: Keys

    /// Carries out one key; false means quit.
    func handle(_ key: Key) -> Bool {
        if prompt != nil { editPrompt(key); return true }
        if showHelp { showHelp = false; return true }
        message = nil
        let s = player.state
        switch key {
        case .character("q"), .character("Q"), .ctrlC: return false
        case .character(" "): player.togglePause()
        case .left: player.seek(to: s.position - 5)
        case .right: player.seek(to: s.position + 5)
        case .shiftLeft: player.seek(to: s.position - 1)
        case .shiftRight: player.seek(to: s.position + 1)
        case .home: player.seek(to: 0)
        case .character("]"): setRate(s.rate + 0.1, grid: 0.1)
        case .character("["): setRate(s.rate - 0.1, grid: 0.1)
        case .character("}"): setRate(s.rate + 0.01, grid: 0.01)
        case .character("{"): setRate(s.rate - 0.01, grid: 0.01)
        case .character("0"), .backspace: setRate(1, grid: 0.01)
        case .character("+"), .character("="): player.setPitch(s.pitch + 1)
        case .character("-"): player.setPitch(s.pitch - 1)
        case .character("m"):
            promptTime = Sidecar.milliseconds(s.position)
            promptPurpose = .markerName
            prompt = .init(label: "Marker at \(Timecode.format(promptTime, decimals: 3)), name", text: nextMarkerName())
        case .character(let c) where ("1"..."9").contains(c):
            let k = Int(String(c))! - 1
            if k < markers.count { jump(to: markers[k]) } else { message = "no marker \(k + 1)" }
        case .character(","):
            // Within a second after a marker, go to the one before it, as players' "previous" does.
            if let m = markers.last(where: { $0.time < s.position - 1 }) { jump(to: m) } else { player.seek(to: 0) }
        case .character("."):
            if let m = markers.first(where: { $0.time > s.position + 0.0005 }) { jump(to: m) } else { message = "no marker after here" }
        case .character("a"):
            loopStart = Sidecar.milliseconds(s.position)
            if let b = loopEnd, b <= loopStart! { loopEnd = nil }
            applyLoop()
        case .character("b"):
            let t = Sidecar.milliseconds(s.position)
            if let a = loopStart, t <= a { message = "the loop's end must come after its start (\(Timecode.format(a, decimals: 3)))" } else {
                loopEnd = t
                if loopStart != nil && !looping { looping = true }
                applyLoop()
            }
        case .character("l"):
            looping.toggle()
            applyLoop()
        case .character("L"): nextNamedLoop()
        case .character("s"):
            guard loopStart != nil, loopEnd != nil else { message = "set the loop's ends with a and b first"; break }
            promptPurpose = .loopName
            prompt = .init(label: "Save the loop as", text: nextLoopName())
        case .character("?"): showHelp = true
        default: break
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

    private func applyLoop() {
        guard looping else {
            if player.state.loop != nil { try? player.setLoop(nil) }
            return
        }
        guard let a = loopStart, let b = loopEnd else {
            message = "set the loop's start with a and its end with b"
            return
        }
        do { try player.setLoop(LoopRange(start: a, end: b, rehearsal: rehearsal)) } catch {
            message = error.message
            looping = false
        }
    }

    private func editPrompt(_ key: Key) {
        guard var p = prompt else { return }
        switch key {
        case .enter:
            prompt = nil
            switch promptPurpose {
            case .markerName: addMarker(named: p.text, at: promptTime)
            case .loopName: saveLoop(named: p.text)
            }
            return
        case .escape, .ctrlC: prompt = nil; message = "cancelled"; return
        case .backspace: if !p.text.isEmpty { p.text.removeLast() }
        case .character(let c): p.text.append(c)
        default: break
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
        do {
            let (m, loaded) = try SidecarStore.update(for: player.track, explicit: sidecarPath) { (s: inout Sidecar) throws(PracticeError) in
                try s.addMarker(name: name, time: time, duration: player.track.duration)
            }
            message = "added marker '\(m.name)' at \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))"
            reloadMarkers()
        } catch {
            message = error.message
        }
    }

    private func nextLoopName() -> String {
        let taken = Set(namedLoops.map { $0.name.lowercased() })
        var n = namedLoops.count + 1
        while taken.contains("loop \(n)") { n += 1 }
        return "Loop \(n)"
    }

    private func saveLoop(named name: String) {
        guard let a = loopStart, let b = loopEnd else { return }
        do {
            let (l, loaded) = try SidecarStore.update(for: player.track, explicit: sidecarPath) { (s: inout Sidecar) throws(PracticeError) in
                try s.addLoop(name: name, from: Timecode.format(a, decimals: 3), to: Timecode.format(b, decimals: 3), duration: player.track.duration)
            }
            message = "saved loop '\(l.name)' (\(loaded.writePath))"
            reloadMarkers()
        } catch {
            message = error.message
        }
    }

    /// `L`: the next named loop from the sidecar, looping at once.
    private func nextNamedLoop() {
        guard !namedLoops.isEmpty else { message = "no named loops yet (s saves the current one)"; return }
        loopIndex = (loopIndex + 1) % namedLoops.count
        let l = namedLoops[loopIndex]
        loopStart = l.start
        loopEnd = l.end
        looping = true
        do { try player.setLoop(LoopRange(start: l.start, end: l.end, name: l.name, rehearsal: rehearsal)) } catch { message = error.message; return }
        message = "loop '\(l.name)'"
    }

    private func reloadMarkers() {
        guard let loaded = try? SidecarStore.load(for: player.track, explicit: sidecarPath) else { return }
        var s = loaded.sidecar
        s.normalize()
        markers = s.liveMarkers.map { .init(name: $0.name, time: $0.time) }
        namedLoops = s.liveLoops.compactMap { l in
            guard let a = s.time(of: l.start), let b = s.time(of: l.end) else { return nil }
            return (l.name, a, b)
        }
    }

    // MARK: Drawing

    var screenState: ScreenState {
        var st = ScreenState(player: player.state, markers: markers, loopStart: loopStart, loopEnd: loopEnd,
                             looping: looping, message: message, prompt: prompt)
        st.showHelp = showHelp
        return st
    }

    private func draw() {
        let (columns, rows) = RawTerminal.size()
        let frame = Screen.render(screenState, width: columns, height: rows, color: color)
        guard frame != lastFrame else { return }
        lastFrame = frame
        Terminal.write("\u{1B}[H" + frame.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J", to: STDOUT_FILENO)
    }
}
