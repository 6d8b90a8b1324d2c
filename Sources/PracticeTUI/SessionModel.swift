// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeDocuments
import PracticeEngine

/// What the practice screen asks of the world: commands for the player, edits of the sidecar,
/// or the end of the session. The session's I/O loop carries them out.
public enum SessionAction: Equatable, Sendable {
    case quit
    /// Leave the player playing without this screen.
    case detach
    case togglePause
    /// Go there, playing or paused as it was: a time, a marker, an eight, a lyric line (as mpv
    /// and cmus seek, so that a paused person can go to 1:00 and mark it exactly there).
    case seek(Double)
    /// Go there and play: the start of a loop being drilled.
    case jump(Double)
    case rate(Double)
    case pitch(Double)
    /// A video's picture mirrored, or not.
    case mirror(Bool)
    /// A voice's formants kept through a pitch shift (Rubber Band), or not.
    case formant(Bool)
    /// A video's window shown or hidden, full screen or not (nil: as it is).
    case video(shown: Bool?, fullScreen: Bool?)
    case loop(LoopRange?, keepingCount: Bool, on: Bool)
    case looping(Bool)
    case edit(SidecarEdit)
    /// Today's note for the practice journal.
    case note(String)
}

/// One change of the sidecar, made at once (locked, re-read, written atomically).
public enum SidecarEdit: Equatable, Sendable {
    case addMarker(name: String, time: Double)
    /// The marker by its id (or anything `Sidecar.markerIndex(named:)` takes).
    case renameMarker(String, to: String)
    case moveMarker(String, by: Double)
    case deleteMarker(String)
    /// A loop's ends: times, or markers (by id) when the loop was set on markers, so the saved
    /// loop follows them.
    case addLoop(name: String, start: Double, end: Double, startMarker: String? = nil, endMarker: String? = nil)
    case setBPM(Double)
    case shiftLyrics(by: Double)
    /// The beat grid read at its other tempo (half, double or triple: `BeatGrid.switchedOctave`).
    case switchTempoOctave
}

/// What came of an action, told back to the model.
public enum SessionOutcome: Equatable, Sendable {
    /// The action failed: its one-line message.
    case failed(String)
    case markerAdded(name: String, time: Double, file: String)
    case markerRenamed(String, to: String)
    case markerMoved(name: String, time: Double, by: Double)
    case markerDeleted(String)
    case loopSaved(name: String, file: String)
    case bpmSaved(Double)
    /// The beat grid now counts at `tempo`; `other` is the reading it left.
    case tempoSwitched(tempo: Double, other: Double)
    /// The lyrics' shift now kept in the sidecar, in seconds.
    case lyricsShifted(total: Double)
    /// Today's note written in the journal.
    case noted
}

/// What the sidecar holds, as the screen needs it.
public struct SidecarView: Equatable, Sendable {
    public var markers: [ScreenState.MarkerRow]
    public var loops: [NamedLoop]
    public var bpm: Double?
    /// The beat grid (`practice beats`), for the count and the keys that move by eights.
    public var beats: BeatGrid?
    /// Why the sidecar could not be read (its markers are not shown; the file is left as it is).
    public var problem: String?
    public struct NamedLoop: Equatable, Sendable {
        public var name: String
        public var start: Double
        public var end: Double
        public init(name: String, start: Double, end: Double) { self.name = name; self.start = start; self.end = end }
    }
    public init(markers: [ScreenState.MarkerRow] = [], loops: [NamedLoop] = [], bpm: Double? = nil, beats: BeatGrid? = nil, problem: String? = nil) {
        self.markers = markers; self.loops = loops; self.bpm = bpm; self.beats = beats; self.problem = problem
    }
}

/// The practice screen's own state and its keys, as a pure value: keys and the player's state
/// in, actions out. It keeps no copy of the player's state (the loop, the position, the speed
/// are read from the `PlayerState` it is given), only what the screen adds: the prompt, the
/// marker list, the lyrics view, a loop end waiting for the other, the message.
public struct SessionModel: Sendable {
    public let bindings: KeyBindings
    public private(set) var sidecar = SidecarView()
    public private(set) var message: String?
    /// The line being typed, while a prompt is open.
    public var prompt: ScreenState.Prompt? {
        if case .prompt(let line, _, _) = mode { line } else { nil }
    }
    /// A loop end set before the other one: sent to the player once both are known.
    public private(set) var pendingStart: Double?
    public private(set) var pendingEnd: Double?
    public private(set) var selectedEnd = ScreenState.LoopEnd.end
    public var showHelp: Bool { if case .help = mode { true } else { false } }
    /// The phone remote's panel is open (any key closes it).
    public var showRemote: Bool { if case .remote = mode { true } else { false } }
    /// The marker list's picked row while it is open.
    public private(set) var markerList: Int?
    /// What the next key is for: one mode at a time (the marker list and the lyrics view, which
    /// stay open under a prompt or a question, are views, not modes).
    private enum Mode {
        /// The key bindings (and the open list's or view's own keys).
        case keys
        /// The help is shown: any key closes it.
        case help
        /// The phone remote's panel is shown: any key closes it.
        case remote
        /// `passes` was pressed: the next key is the number.
        case passes
        /// A marker waiting for "y" to be deleted.
        case confirmingDelete(ScreenState.MarkerRow)
        /// A line being typed, what Enter does with it, and the time it was opened at (a marker's).
        case prompt(ScreenState.Prompt, PromptPurpose, time: Double)
    }
    private var mode = Mode.keys
    /// What Enter does with the prompt's text.
    private enum PromptPurpose: Sendable { case markerName, loopName, rename(String), goTo, note }
    private var loopIndex = -1
    /// The markers (ids) the player's loop was set on, so that it follows them when they move;
    /// with the ends they had then. It counts only while the player's loop still has those ends
    /// (a nudge, `a`/`b` elsewhere or another controller's loop end it, without clearing it).
    private var loopMarkers: (start: String?, end: String?, times: (Double, Double))?
    /// The marker a loop end waiting for the other one was set on (in the marker list).
    private var pendingMarker: String?
    /// The marker just added (nothing else done since): `loop-section` then loops up to it.
    private var justAdded: (name: String, time: Double)?
    /// Tab completion in the go-to prompt: what was typed, and the last name offered.
    private var completion: (typed: String, offered: Int)?
    /// The lyrics as shown (the file's, moved by the sidecar's shift) and the full view when open.
    public private(set) var lyrics: Lyrics?
    public private(set) var lyricsView: LyricsView?
    /// The beat grid, when the sidecar has one (the screen is drawn again at each beat).
    public var beats: BeatGrid? { sidecar.beats }
    private var seekModeDefault = true
    /// Tap-tempo presses (monotonic nanoseconds).
    private var taps: [UInt64] = []
    /// Count-in, gaps, pre-roll and trainer for every loop: the command line's, changed by `c` and `t`.
    public private(set) var rehearsal: Rehearsal
    /// The count-in the command line asked for (0: none), which `c` turns back on.
    private let countInClicks: Int
    private let countInEveryPass: Bool

    public init(bindings: KeyBindings = .defaults, rehearsal: Rehearsal = Rehearsal(), notice: String? = nil) {
        self.bindings = bindings
        self.rehearsal = rehearsal
        countInClicks = rehearsal.countIn
        countInEveryPass = rehearsal.countIn == 0 || rehearsal.countInEvery
        message = notice
    }

    // MARK: Input from the I/O loop

    /// The sidecar as it now is (read at the start and after every edit).
    /// The marker picked in the list stays picked (by its id) when the sidecar changes under it.
    /// A loop set on markers follows them (a marker nudged here or moved in another window).
    @discardableResult
    public mutating func reload(_ view: SidecarView, player p: PlayerState? = nil) -> [SessionAction] {
        let picked = markerList.flatMap { $0 < sidecar.markers.count ? sidecar.markers[$0].id : nil }
        sidecar = view
        if let k = markerList {
            markerList = view.markers.isEmpty ? nil : view.markers.firstIndex { $0.id == picked } ?? min(k, view.markers.count - 1)
        }
        guard let p, let l = p.loop, let lm = loopMarkers, (l.start, l.end) == lm.times else { return [] }
        let a = lm.start.flatMap { id in view.markers.first { $0.id == id }?.time } ?? l.start
        let b = lm.end.flatMap { id in view.markers.first { $0.id == id }?.time } ?? l.end
        guard (a, b) != (l.start, l.end), b - a >= LoopRange.minimumSeconds else { return [] }
        loopMarkers = (lm.start, lm.end, (a, b))
        return [loopAction(start: a, end: b, name: l.name, on: l.isOn, keepingCount: true)]
    }

    /// The sidecar could not be read (at the start, or after someone else wrote it): say why on
    /// the screen, and keep what was shown until it reads again.
    public mutating func sidecarUnreadable(_ problem: String) {
        sidecar.problem = problem
    }

    /// The lyrics found for the track, and the first problem with them.
    public mutating func setLyrics(_ lyrics: Lyrics?, problem: String? = nil) {
        self.lyrics = lyrics
        if let problem { message = problem }
    }

    /// Says something (the end of the track, for instance).
    public mutating func say(_ text: String) { message = text }

    /// Carries out one key; `now` is a monotonic clock in nanoseconds (for tap tempo).
    public mutating func handle(_ key: Key, player p: PlayerState, now: UInt64) -> [SessionAction] {
        switch mode {
        case .keys: break
        case .prompt(let line, let purpose, let time): return editPrompt(key, line, purpose, time, p)
        case .help, .remote:
            mode = .keys
            return []
        case .passes:
            mode = .keys
            if case .character(let c) = key, let n = c.wholeNumberValue { return setPasses(n, p) }
            message = "passes unchanged"
            return []
        case .confirmingDelete(let row):
            mode = .keys
            justAdded = nil
            if key == .character("y") || key == .character("Y") { return [.edit(.deleteMarker(row.id))] }
            message = "kept '\(row.name)'"
            return []
        }
        let added = justAdded
        justAdded = nil
        message = nil
        if lyricsView != nil, let actions = handleLyrics(key, p) { return actions }
        if markerList != nil, let actions = handleList(key, p) { return actions }
        guard let action = bindings[key] else { return [] }
        if action == .loopSection { justAdded = added }
        return perform(action, p, now: now)
    }

    /// What follows from an action's outcome: the message, and sometimes one more action.
    public mutating func finished(_ outcome: SessionOutcome, player p: PlayerState) -> [SessionAction] {
        switch outcome {
        case .failed(let text):
            message = text
        case .markerAdded(let name, let time, let file):
            message = "added marker '\(name)' at \(Timecode.format(time, decimals: 3)) (\(file))"
            justAdded = (name, time)
        case .markerRenamed(let old, let new):
            message = "renamed '\(old)' to '\(new)'"
            if markerList != nil, let k = sidecar.markers.firstIndex(where: { $0.name == new }) { markerList = k }
        case .markerMoved(let name, let time, let by):
            message = "'\(name)' at \(Timecode.format(time, decimals: 3)) (\(by > 0 ? "+" : "−")\(Int((abs(by) * 1000).rounded())) ms)"
            if let k = sidecar.markers.firstIndex(where: { $0.name == name && $0.time == time }) { markerList = k }
            return [.seek(time)]   // while playing, the change is heard at once
        case .markerDeleted(let name):
            message = "deleted the marker '\(name)'"
        case .loopSaved(let name, let file):
            message = "saved loop '\(name)' (\(file))"
            if let l = p.loop { return [loopAction(start: l.start, end: l.end, name: name, on: l.isOn, keepingCount: true)] }
        case .bpmSaved(let bpm):
            message = "tempo \(shortNumber(bpm)) bpm from \(taps.count) taps (saved)"
            // With a beat grid: the taps confirm it, or override it for count-ins.
            if let grid = sidecar.beats {
                let ratio = bpm / grid.tempo
                if abs(ratio - 1) <= 0.03 {
                    message! += "; the beat grid agrees (\(shortNumber(grid.tempo)) bpm)"
                } else {
                    let hint = abs(ratio - 2) <= 0.06 ? " (twice it)" : abs(ratio - 0.5) <= 0.03 ? " (half of it)" : ""
                    message! += "; count-ins follow it, not the beat grid's \(shortNumber(grid.tempo))\(hint) ('practice beats --bpm \(shortNumber(bpm))' remakes the grid)"
                }
            }
        case .tempoSwitched(let tempo, let other):
            message = "beats at \(shortNumber(tempo)) bpm (or \(shortNumber(other)); \(bindings.label(.tempoOctave)) switches back; saved)"
        case .lyricsShifted(let total):
            message = "lyrics \(total >= 0 ? "+" : "−")\(Int((abs(total) * 1000).rounded())) ms (saved)"
        case .noted:
            message = "noted in today's journal"
        }
        return []
    }

    // MARK: Keys

    private mutating func perform(_ action: Action, _ s: PlayerState, now: UInt64) -> [SessionAction] {
        switch action {
        case .quit: return [.quit]
        case .detach: return [.detach]
        case .playPause: return [.togglePause]
        case .back: return [.seek(s.position - 5)]
        case .forward: return [.seek(s.position + 5)]
        case .backFine: return [.seek(s.position - 1)]
        case .forwardFine: return [.seek(s.position + 1)]
        case .toStart:
            // While looping, the loop's start (A) is where the section starts.
            if let l = s.loop, l.isOn { return [.seek(l.start)] }
            return [.seek(0)]
        case .backMore: return [.seek(s.position - 30)]
        case .forwardMore: return [.seek(s.position + 30)]
        case .goTo:
            completion = nil
            mode = .prompt(.init(label: "Go to (a time such as 1:00 or 75.5, or a marker; Tab completes)", text: ""), .goTo, time: 0)
        case .loopSection: return loopSection(s)
        case .passes:
            guard s.loop != nil else {
                message = "set a loop first (\(bindings.label(.loopSection)) loops the section you are in)"
                break
            }
            mode = .passes
            message = "passes: type 1–9, or 0 for no limit"
        case .faster: return takeOverFromTrainer(s) + [rate(s.rate + 0.1, grid: 0.1)]
        case .slower: return takeOverFromTrainer(s) + [rate(s.rate - 0.1, grid: 0.1)]
        case .fasterFine: return takeOverFromTrainer(s) + [rate(s.rate + 0.01, grid: 0.01)]
        case .slowerFine: return takeOverFromTrainer(s) + [rate(s.rate - 0.01, grid: 0.01)]
        case .speedReset: return takeOverFromTrainer(s) + [rate(1, grid: 0.01)]
        case .pitchUp: return [.pitch(s.pitch + 1)]
        case .pitchDown: return [.pitch(s.pitch - 1)]
        case .mirror: return [.mirror(!s.isMirrored)]
        case .formant:
            message = s.formant ? "formants move with the pitch" : "formants kept through a pitch shift (Rubber Band, --quality high)"
            return [.formant(!s.formant)]
        case .video, .fullScreen:
            guard let v = s.video else {
                message = "no picture to show (the file has none, or there is no display)"
                return []
            }
            return [action == .video ? .video(shown: !v.isShown, fullScreen: nil) : .video(shown: nil, fullScreen: !v.isFullScreen)]
        case .addMarker:
            let time = Sidecar.milliseconds(s.position)
            mode = .prompt(.init(label: "Marker at \(Timecode.format(time, decimals: 3)), name", text: nextMarkerName(), isSuggestion: true), .markerName, time: time)
        case .jump1, .jump2, .jump3, .jump4, .jump5, .jump6, .jump7, .jump8, .jump9:
            let k = action.jumpNumber! - 1
            if k < sidecar.markers.count { return jump(to: sidecar.markers[k]) }
            message = "no marker \(k + 1)"
        case .previousMarker:
            if let k = Sections.previous(sidecar.markers.map(\.time), before: s.position) { return jump(to: sidecar.markers[k]) }
            return [.seek(0)]
        case .nextMarker:
            if let k = Sections.next(sidecar.markers.map(\.time), after: s.position) { return jump(to: sidecar.markers[k]) }
            message = "no marker after here"
        case .markerList:
            guard !sidecar.markers.isEmpty else { message = "no markers yet (\(bindings.label(.addMarker)) drops one)"; break }
            markerList = Sections.section(sidecar.markers.map(\.time), at: s.position).opening ?? 0
        case .loopStart: pendingMarker = nil; return setLoopStart(Sidecar.milliseconds(s.position), s)
        case .loopEnd: pendingMarker = nil; return setLoopEnd(Sidecar.milliseconds(s.position), s)
        case .loopToggle:
            if let l = s.loop { return [.looping(!l.isOn)] }
            message = "set the loop's ends with \(bindings.label(.loopStart)) and \(bindings.label(.loopEnd)) first"
        case .nextLoop: return nextNamedLoop()
        case .saveLoop:
            guard s.loop != nil else {
                message = "set the loop's ends with \(bindings.label(.loopStart)) and \(bindings.label(.loopEnd)) first"
                break
            }
            mode = .prompt(.init(label: "Save the loop as", text: nextLoopName(), isSuggestion: true), .loopName, time: 0)
        case .switchEnd:
            selectedEnd = selectedEnd == .start ? .end : .start
            message = "the nudge keys move the loop's \(selectedEnd == .start ? "start (A)" : "end (B)")"
        case .nudgeEarlier: return nudgeLoop(by: -0.01, s)
        case .nudgeLater: return nudgeLoop(by: 0.01, s)
        case .nudgeEarlierMore: return nudgeLoop(by: -0.1, s)
        case .nudgeLaterMore: return nudgeLoop(by: 0.1, s)
        case .tapTempo: return tap(now: now, s)
        case .tempoOctave:
            guard let g = sidecar.beats, !g.times.isEmpty else { message = "no beats known: 'practice beats' finds them"; return [] }
            guard g.otherTempo != nil else { message = "the beats have no other reading of their tempo (\(shortNumber(g.tempo)) bpm)"; return [] }
            return [.edit(.switchTempoOctave)]
        case .countIn: return toggleCountIn(s)
        case .lyricsView: toggleLyricsView(s)
        case .lyricsEarlier: return shiftLyrics(by: -0.05)
        case .lyricsLater: return shiftLyrics(by: 0.05)
        case .previousCount, .nextCount, .loopCount, .growLoop, .shrinkLoop:
            return counts(action, s)
        case .note:
            mode = .prompt(.init(label: "Today's note", text: ""), .note, time: 0)
        case .help: mode = .help
        case .remote: mode = .remote
        }
        return []
    }

    /// The marker list's own keys; nil hands the key on to the usual bindings.
    private mutating func handleList(_ key: Key, _ s: PlayerState) -> [SessionAction]? {
        let markers = sidecar.markers
        guard var k = markerList, !markers.isEmpty else { markerList = nil; return nil }
        k = min(k, markers.count - 1)
        switch key {
        case .up: markerList = max(k - 1, 0)
        case .down: markerList = min(k + 1, markers.count - 1)
        case .left: return [.edit(.moveMarker(markers[k].id, by: -0.01))]
        case .right: return [.edit(.moveMarker(markers[k].id, by: 0.01))]
        case .shiftLeft: return [.edit(.moveMarker(markers[k].id, by: -0.1))]
        case .shiftRight: return [.edit(.moveMarker(markers[k].id, by: 0.1))]
        case .enter: return jump(to: markers[k])
        case _ where bindings[key] == .loopStart: return setLoopEnd(onMarker: markers[k], start: true, s)
        case _ where bindings[key] == .loopEnd: return setLoopEnd(onMarker: markers[k], start: false, s)
        case .character("r"):
            mode = .prompt(.init(label: "Rename '\(markers[k].name)' to", text: markers[k].name, isSuggestion: true), .rename(markers[k].id), time: 0)
        case .character("d"), .character("x"):
            mode = .confirmingDelete(markers[k])
            message = "Delete the marker '\(markers[k].name)'? y deletes it, any other key keeps it"
        case .escape: markerList = nil
        default:
            if bindings[key] == .markerList || key == .character("q") { markerList = nil; return [] }
            return nil
        }
        return []
    }

    private func rate(_ r: Double, grid: Double) -> SessionAction { .rate((r / grid).rounded() * grid) }

    private mutating func jump(to m: ScreenState.MarkerRow) -> [SessionAction] {
        message = "\(m.name) (\(Timecode.format(m.time, decimals: 3)))"
        return [.seek(m.time)]
    }

    /// `a`: the loop's start here. With an end after it (the loop's, or one waiting), the loop is
    /// set (on, or still off if it was off); otherwise the start waits for an end.
    private mutating func setLoopStart(_ t: Double, _ s: PlayerState) -> [SessionAction] {
        selectedEnd = .start
        if let b = s.loop?.end ?? pendingEnd, b > t {
            return [loopAction(start: t, end: b, on: s.loop?.isOn ?? true)]
        }
        pendingStart = t
        pendingEnd = nil
        message = "loop from \(Timecode.format(t, decimals: 3)); \(bindings.label(.loopEnd)) sets its end"
        return s.loop != nil ? [.loop(nil, keepingCount: false, on: true)] : []
    }

    /// `b`: the loop's end here, after its start (the loop's, or one waiting); the loop plays.
    private mutating func setLoopEnd(_ t: Double, _ s: PlayerState) -> [SessionAction] {
        selectedEnd = .end
        guard let a = s.loop?.start ?? pendingStart else {
            pendingEnd = t
            message = "loop to \(Timecode.format(t, decimals: 3)); \(bindings.label(.loopStart)) sets its start"
            return []
        }
        guard t > a else { message = "the loop's end must come after its start (\(Timecode.format(a, decimals: 3)))"; return [] }
        return [loopAction(start: a, end: t, on: true)]
    }

    /// The loop for the player, with this session's rehearsal; nothing waits any more.
    /// The keys that move by the beat grid's counts (eights, or bars): to the previous or next
    /// one's "1" (the previous one from less than a beat into a count is the one before), loop
    /// the one heard, and make the loop a count longer or shorter at its end.
    private mutating func counts(_ action: Action, _ s: PlayerState) -> [SessionAction] {
        guard let g = sidecar.beats, !g.times.isEmpty else {
            message = "no beats known: 'practice beats' finds them"
            return []
        }
        let name = g.countName
        let here = g.beat(at: s.position) ?? (index: 0, beat: 1, group: g.count(ofBeat: 0).group)
        switch action {
        case .previousCount:
            let back = here.beat == 1 && s.position - g.times[here.index] < 0.25 * 60 / g.tempo ? 1 : 0
            guard let t = g.start(ofGroup: here.group - back) ?? g.times.first else { return [] }
            message = "\(name) \(here.group - back)"
            return [.seek(t)]
        case .nextCount:
            guard let t = g.start(ofGroup: here.group + 1) else { message = "no \(name) after here"; return [] }
            message = "\(name) \(here.group + 1)"
            return [.seek(t)]
        case .loopCount:
            guard let a = g.start(ofGroup: here.group) ?? g.times.first else { return [] }
            let b = g.start(ofGroup: here.group + 1) ?? s.duration
            message = "looping \(name) \(here.group)"
            return [loopAction(start: a, end: b, name: "\(name) \(here.group)", on: true)]
        default:
            guard let l = s.loop, let end = g.nearest(l.end), let start = g.nearest(l.start) else {
                message = "set a loop first (\(bindings.label(.loopCount)) loops this \(name))"
                return []
            }
            let k = action == .growLoop ? end + g.meter : end - g.meter
            guard k > start, k < g.times.count || (action == .growLoop && end + g.meter == g.times.count) else {
                message = action == .growLoop ? "the loop ends with the track" : "the loop is one \(name) already"
                return []
            }
            let b = k < g.times.count ? g.times[k] : s.duration
            message = "the loop is \((k - start + g.meter - 1) / g.meter) \(name)\((k - start + g.meter - 1) / g.meter == 1 ? "" : "s") long"
            return [loopAction(start: l.start, end: b, name: nil, on: l.isOn, keepingCount: true)]
        }
    }

    private mutating func loopAction(start a: Double, end b: Double, name: String? = nil, on: Bool, keepingCount: Bool = false) -> SessionAction {
        pendingStart = nil
        pendingEnd = nil
        pendingMarker = nil
        return .loop(LoopRange(start: a, end: b, name: name, rehearsal: loopRehearsal), keepingCount: keepingCount, on: on)
    }

    /// The rehearsal with the sidecar's tempo when the command line gave none.
    private var loopRehearsal: Rehearsal {
        var r = rehearsal
        if r.bpm == nil { r.bpm = sidecar.bpm }
        return r
    }

    /// Moves the picked loop end; when looping, plays from just before the change so it is heard.
    private mutating func nudgeLoop(by seconds: Double, _ s: PlayerState) -> [SessionAction] {
        guard let l = s.loop else {
            message = "set the loop's ends with \(bindings.label(.loopStart)) and \(bindings.label(.loopEnd)) first"
            return []
        }
        var (a, b) = (l.start, l.end)
        if selectedEnd == .start {
            a = Sidecar.milliseconds(min(max(a + seconds, 0), b - LoopRange.minimumSeconds))
            message = "loop start \(Timecode.format(a, decimals: 3))"
        } else {
            b = Sidecar.milliseconds(max(min(b + seconds, s.duration), a + LoopRange.minimumSeconds))
            message = "loop end \(Timecode.format(b, decimals: 3))"
        }
        let set = loopAction(start: a, end: b, on: l.isOn, keepingCount: true)
        guard l.isOn else { return [set] }
        // Hear the new start at once, or the last 1.5 s into the new end and the turn.
        return [set, .seek(selectedEnd == .start ? a : max(a, b - 1.5))]
    }

    private mutating func editPrompt(_ key: Key, _ line: ScreenState.Prompt, _ purpose: PromptPurpose, _ time: Double, _ s: PlayerState) -> [SessionAction] {
        var p = line
        switch key {
        case .enter:
            mode = .keys
            switch purpose {
            case .markerName: return [.edit(.addMarker(name: p.text, time: time))]
            case .loopName:
                guard let l = s.loop else { return [] }
                let onMarkers = loopMarkers.flatMap { (l.start, l.end) == $0.times ? $0 : nil }
                return [.edit(.addLoop(name: p.text, start: l.start, end: l.end, startMarker: onMarkers?.start, endMarker: onMarkers?.end))]
            case .rename(let old): return [.edit(.renameMarker(old, to: p.text))]
            case .note:
                guard !p.text.allSatisfy(\.isBlank) else { message = "no note (it was empty)"; return [] }
                return [.note(p.text)]
            case .goTo: return goTo(p.text, s)
            }
        case .tab:
            if case .goTo = purpose { complete(&p) }
        case .escape, .ctrlC: mode = .keys; message = "cancelled"; return []
        default:
            p.edit(key)
            completion = nil   // Tab completes what is typed now
        }
        mode = .prompt(p, purpose, time: time)
        return []
    }

    // MARK: Markers and loops

    private func nextMarkerName() -> String {
        let taken = Set(sidecar.markers.map { $0.name.lowercased() })
        var n = sidecar.markers.count + 1
        while taken.contains("marker \(n)") { n += 1 }
        return "Marker \(n)"
    }

    private func nextLoopName() -> String {
        let taken = Set(sidecar.loops.map { $0.name.lowercased() })
        var n = sidecar.loops.count + 1
        while taken.contains("loop \(n)") { n += 1 }
        return "Loop \(n)"
    }

    /// `L`: the next named loop from the sidecar, looping at once.
    private mutating func nextNamedLoop() -> [SessionAction] {
        guard !sidecar.loops.isEmpty else { message = "no named loops yet (\(bindings.label(.saveLoop)) saves the current one)"; return [] }
        return playLoop((loopIndex + 1) % sidecar.loops.count)
    }

    /// A click on the screen (the I/O loop found what is under it): the seek bar goes there, a
    /// marker's row jumps to it (or picks it in the list), a loop's row plays that loop.
    public mutating func clicked(_ hit: Screen.Hit, player s: PlayerState) -> [SessionAction] {
        guard prompt == nil else { return [] }
        message = nil
        switch mode {   // a question no longer shown is not answered by a later key
        case .passes, .confirmingDelete: mode = .keys
        case .keys, .help, .remote, .prompt: break
        }
        switch hit {
        case .seekBar(_, let time):
            message = "at \(Timecode.format(time, decimals: 1))"
            return [.seek(Sidecar.milliseconds(time))]
        case .marker(let k):
            guard k < sidecar.markers.count else { return [] }
            if markerList != nil { markerList = k; return [] }
            return jump(to: sidecar.markers[k])
        case .loop(let k):
            guard k < sidecar.loops.count else { return [] }
            return playLoop(k)
        }
    }

    /// Saved loop `k`, from its start (or its pre-roll), looping at once.
    private mutating func playLoop(_ k: Int) -> [SessionAction] {
        loopIndex = k
        let l = sidecar.loops[loopIndex]
        message = "loop '\(l.name)'"
        // From its start (or the pre-roll before it), so the pass is heard whole.
        return [loopAction(start: l.start, end: l.end, name: l.name, on: true), .jump(max(l.start - loopRehearsal.preRoll, 0))]
    }

    /// `o`: loops the section you are in, from the marker before the heard position to the one
    /// after it (the track's start or end where there is none); right after dropping a marker,
    /// the section that marker closes. The loop's ends are those markers: it follows them.
    private mutating func loopSection(_ s: PlayerState) -> [SessionAction] {
        let markers = sidecar.markers
        var before: ScreenState.MarkerRow?, after: ScreenState.MarkerRow?
        if let added = justAdded, let k = markers.firstIndex(where: { $0.name == added.name && $0.time == added.time }) {
            (before, after) = (k > 0 ? markers[k - 1] : nil, markers[k])   // the first marker: from the start
        } else {
            let (a, b) = Sections.section(markers.map(\.time), at: s.position)
            (before, after) = (a.map { markers[$0] }, b.map { markers[$0] })
        }
        let a = before?.time ?? 0, b = after?.time ?? s.duration
        guard b - a >= LoopRange.minimumSeconds else { message = "this section is too short to loop"; return [] }
        let action = loopAction(start: a, end: b, on: true)
        loopMarkers = (before?.id, after?.id, (a, b))
        message = "loop \(before.map { "'\($0.name)'" } ?? "the start") → \(after.map { "'\($0.name)'" } ?? "the end")"
        // From the section's start, so the whole of it is heard (with the count-in, if on).
        return [action, .jump(a)]
    }

    /// The marker list's `a` / `b`: the loop's start or end on the picked marker (it follows it).
    private mutating func setLoopEnd(onMarker m: ScreenState.MarkerRow, start: Bool, _ s: PlayerState) -> [SessionAction] {
        let other = start ? (s.loop?.end ?? pendingEnd) : (s.loop?.start ?? pendingStart)
        // The other end stays on its marker only if the loop is still the one set on it.
        let onMarkers = loopMarkers.flatMap { lm in s.loop.map { ($0.start, $0.end) == lm.times } == true ? lm : nil }
        let otherMarker = onMarkers.flatMap { start ? $0.end : $0.start } ?? (s.loop == nil ? pendingMarker : nil)
        let actions = start ? setLoopStart(m.time, s) : setLoopEnd(m.time, s)
        if (start ? pendingStart : pendingEnd) == m.time { pendingMarker = m.id }
        let set = actions.contains { if case .loop(let l?, _, _) = $0 { return l.start < l.end } else { return false } }
        if set, let other {
            let (a, b) = start ? (m.time, other) : (other, m.time)
            loopMarkers = start ? (m.id, otherMarker, (a, b)) : (otherMarker, m.id, (a, b))
            message = "loop \(start ? "start" : "end") on '\(m.name)'"
        }
        return actions
    }

    /// A speed key while a trainer sets the speed: you take over. The trainer stops (for this
    /// loop and the next ones), the count of passes goes on, and the speed moves from the one
    /// the trainer had reached.
    private mutating func takeOverFromTrainer(_ s: PlayerState) -> [SessionAction] {
        guard let l = s.loop, l.isOn, let trainer = l.rehearsal.trainer else { return [] }
        rehearsal.trainer = nil
        var r = l.rehearsal
        r.trainer = nil
        message = "trainer off (it had reached \(StatusLine.formatRate(s.rate)) of \(StatusLine.formatRate(trainer.to))): the speed is yours"
        return [.loop(LoopRange(start: l.start, end: l.end, passes: l.passes, name: l.name, rehearsal: r), keepingCount: true, on: true)]
    }

    /// `p` then a digit: the loop plays that many passes from its start (0: no limit).
    private mutating func setPasses(_ n: Int, _ s: PlayerState) -> [SessionAction] {
        guard let l = s.loop else { return [] }
        var action = loopAction(start: l.start, end: l.end, name: l.name, on: true)
        if case .loop(var range?, _, let on) = action {
            range.passes = n == 0 ? nil : n
            range.rehearsal = l.rehearsal
            action = .loop(range, keepingCount: false, on: on)
        }
        message = n == 0 ? "passes: no limit" : "\(n) pass\(n == 1 ? "" : "es") from the loop's start"
        return [action, .jump(l.start)]
    }

    /// The go-to prompt's Enter: a time (`1:00`, `75.5`), or a marker by name (or the start of
    /// one, as Tab completes it).
    private mutating func goTo(_ text: String, _ s: PlayerState) -> [SessionAction] {
        let typed = text.trimmingWhitespace()
        if typed.isEmpty { return [] }
        if let t = Timecode.parse(typed) {
            guard t <= s.duration else { message = "\(Timecode.format(t, decimals: 3)) is past the end (\(Timecode.format(s.duration, decimals: 3)))"; return [] }
            message = "at \(Timecode.format(t, decimals: 3))"
            return [.seek(t)]
        }
        let folded = typed.lowercased()
        if let m = sidecar.markers.first(where: { $0.name.lowercased() == folded }) ?? sidecar.markers.first(where: { $0.name.lowercased().hasPrefix(folded) }) {
            return jump(to: m)
        }
        message = "no marker called '\(typed)', and not a time"
        return []
    }

    /// Tab in the go-to prompt: the next marker whose name starts with what was typed.
    private mutating func complete(_ p: inout ScreenState.Prompt) {
        let typed = completion?.typed ?? p.text
        let names = sidecar.markers.map(\.name).filter { $0.lowercased().hasPrefix(typed.lowercased()) }
        guard !names.isEmpty else { message = "no marker starts with '\(typed)'"; return }
        let next = ((completion?.offered ?? -1) + 1) % names.count
        completion = (typed, next)
        p.text = names[next]
        p.cursor = p.text.count
        p.isSuggestion = false
        message = names.count > 1 ? "\(next + 1) of \(names.count) (Tab for the next)" : nil
    }

    // MARK: Lyrics

    /// `y`: the full-lyrics view, on the heard line (or closed).
    private mutating func toggleLyricsView(_ s: PlayerState) {
        if lyricsView != nil { lyricsView = nil; return }
        guard let lyrics else { message = "no lyrics for this track (song.lrc beside it, or --lyrics PATH)"; return }
        if !lyrics.isSynced { lyricsView = LyricsView(selected: 0, seekMode: false, following: false); return }
        lyricsView = LyricsView(selected: lyrics.lineIndex(at: s.position) ?? 0, seekMode: seekModeDefault)
    }

    /// The full view's own keys; nil hands the key on to the usual bindings.
    private mutating func handleLyrics(_ key: Key, _ s: PlayerState) -> [SessionAction]? {
        guard var v = lyricsView, let lyrics else { lyricsView = nil; return nil }
        let count = max(lyrics.lines.count, 1)
        if v.following, lyrics.isSynced { v.selected = lyrics.lineIndex(at: s.position) ?? 0 }
        var actions: [SessionAction] = []
        switch key {
        case .up: v.selected = max(v.selected - 1, 0); v.following = false
        case .down: v.selected = min(v.selected + 1, count - 1); v.following = false
        case .tab:
            v.seekMode.toggle()
            seekModeDefault = v.seekMode
            message = v.seekMode ? "Enter jumps to the line" : "Enter closes the lyrics"
        case .enter:
            guard v.seekMode, lyrics.isSynced else { lyricsView = nil; return [] }
            let line = lyrics.lines[v.selected]
            actions = [.seek(line.time)]
            v.following = true
            message = "line \(v.selected + 1) (\(Timecode.format(line.time, decimals: 2)))"
        case .escape: lyricsView = nil; return []
        case _ where bindings[key] == .loopStart && lyrics.isSynced:
            actions = setLoopStart(Sidecar.milliseconds(lyrics.lines[v.selected].time), s)
            if message?.hasPrefix("the loop") != true { message = "loop from line \(v.selected + 1)" }
        case _ where bindings[key] == .loopEnd && lyrics.isSynced:
            // The end of the picked line: where the next begins (or the track ends).
            let end = v.selected + 1 < lyrics.lines.count ? lyrics.lines[v.selected + 1].time : s.duration
            actions = setLoopEnd(Sidecar.milliseconds(end), s)
            if message?.hasPrefix("the loop") != true { message = "loop to the end of line \(v.selected + 1)" }
        default:
            if bindings[key] == .lyricsView || key == .character("q") { lyricsView = nil; return [] }
            return nil
        }
        if lyricsView != nil { lyricsView = v }
        return actions
    }

    /// `<` / `>`: the lyrics 50 ms earlier or later, kept in the sidecar for this track.
    private mutating func shiftLyrics(by seconds: Double) -> [SessionAction] {
        guard let current = lyrics else { message = "no lyrics for this track"; return [] }
        lyrics = current.shifted(by: seconds)
        return [.edit(.shiftLyrics(by: seconds))]
    }

    // MARK: Tempo and count-in

    /// `t`: the tempo from the last taps (2 or more, each within 2 s of the one before), as the
    /// song's tempo (what is heard ÷ the speed), saved in the sidecar's settings.
    private mutating func tap(now: UInt64, _ s: PlayerState) -> [SessionAction] {
        if let last = taps.last, now - last > 2_000_000_000 { taps.removeAll() }
        taps.append(now)
        if taps.count > 8 { taps.removeFirst(taps.count - 8) }
        guard taps.count >= 2 else { message = "tap on every beat (\(bindings.label(.tapTempo)))"; return [] }
        let beat = Double(taps.last! - taps.first!) / Double(taps.count - 1) / 1e9
        let bpm = (60 / beat / s.rate * 10).rounded() / 10
        guard (20...400).contains(bpm) else { message = "\(shortNumber(bpm)) bpm is out of range (20–400)"; return [] }
        rehearsal.bpm = bpm
        return [.edit(.setBPM(bpm))]
    }

    /// `c`: count-in before each pass on or off (the command line's number of clicks, else 4).
    private mutating func toggleCountIn(_ s: PlayerState) -> [SessionAction] {
        if rehearsal.countIn > 0 {
            rehearsal.countIn = 0
            rehearsal.countInEvery = false
            message = "count-in off"
        } else {
            guard let bpm = rehearsal.bpm ?? sidecar.bpm else {
                message = "a count-in needs the song's tempo: tap it with \(bindings.label(.tapTempo))"
                return []
            }
            // The command line's count-in, as it asked (before the first pass, or each); without
            // one, four clicks before each pass.
            rehearsal.countIn = countInClicks > 0 ? countInClicks : 4
            rehearsal.countInEvery = countInEveryPass
            message = "count-in: \(rehearsal.countIn) clicks at \(shortNumber(bpm)) bpm before \(rehearsal.countInEvery ? "each pass" : "the first pass")"
        }
        if let l = s.loop { return [loopAction(start: l.start, end: l.end, name: l.name, on: l.isOn, keepingCount: true)] }
        return []
    }

    // MARK: The screen

    /// Everything the screen shows: the player's state and what this session adds.
    public func screen(_ player: PlayerState) -> ScreenState {
        var st = ScreenState(player: player, markers: sidecar.markers, pendingStart: pendingStart, pendingEnd: pendingEnd,
                             message: message, prompt: prompt)
        st.showHelp = showHelp
        st.selectedEnd = selectedEnd
        st.markerList = markerList
        st.rehearsal = player.loop?.rehearsal ?? rehearsal
        st.bpm = rehearsal.bpm ?? sidecar.bpm
        st.bindings = bindings
        st.sidecarProblem = sidecar.problem
        st.loops = sidecar.loops
        st.beats = sidecar.beats
        st.lyrics = lyrics
        if var v = lyricsView, let lyrics, v.following, lyrics.isSynced {
            v.selected = lyrics.lineIndex(at: player.position) ?? 0
            st.lyricsView = v
        } else {
            st.lyricsView = lyricsView
        }
        return st
    }
}
