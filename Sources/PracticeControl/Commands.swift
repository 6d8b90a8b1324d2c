// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// A command any controller can send to the player, as one JSON object per line:
/// `{"cmd":"seek","to":72.5}`, `{"cmd":"rate","value":0.8}`, `{"cmd":"pitch","value":-2}`,
/// `{"cmd":"play"}`, `{"cmd":"pause"}`, `{"cmd":"toggle"}`, `{"cmd":"quit"}`,
/// `{"cmd":"loop","start":30.25,"end":45,"times":4}` (times optional), `{"cmd":"loop"}` (stop
/// looping) and `{"cmd":"jump","marker":"Verse 2"}` (a marker from the track's sidecar).
/// What the command line takes, this takes, and what it refuses is refused: `to`, `start` and
/// `end` also take the text forms of `--from` ("1:12.5", a marker's name, "line 5"),
/// `{"cmd":"loop","name":"chorus"}` plays a saved loop, and a rate, pitch or seek outside its
/// range is an error event, never clamped. `{"cmd":"next"}` and `{"cmd":"previous"}` go to the
/// next or previous marker, `{"cmd":"mark","name":"Turn"}` drops a marker at the heard position
/// (saved at once) and `{"cmd":"status"}` answers with the player's file, title and state.
public enum PlayerCommand: Equatable, Sendable {
    case play, pause, toggle, quit
    /// The next or previous marker (the start of the track before the first).
    case next, previous
    /// A marker at the heard position, in the sidecar.
    case mark(String)
    /// `{"event":"status",…}` back to the one who asked.
    case status
    // What an attached screen sends besides (`practice attach`):
    /// `{"cmd":"attach"}`: from now on this client gets `{"event":"full",…}` events (the whole state).
    case attach
    /// `{"cmd":"remote"}`: the player's phone remote started (if it is not yet) and a code to pair
    /// a phone with, `{"event":"remote",…}` back to the one who asked (`practice remote`).
    case remote
    /// `{"cmd":"jump","to":72.5}`: to a time, and play.
    case jumpTo(Double)
    /// `{"cmd":"looping","on":false}`: the loop off (its ends kept) or on again.
    case looping(Bool)
    /// `{"cmd":"rewind"}`: back to the loop's start, paused, every pass to play again.
    case rewind
    /// `{"cmd":"mirror","on":true}`: a video's picture mirrored, or not; without `on`, the other way.
    case mirror(Bool?)
    /// `{"cmd":"video","on":true}`: a video's window shown, or hidden; without `on`, the other way.
    case video(Bool?)
    /// `{"cmd":"fullscreen","on":true}`: a video's window full screen (and shown), or not.
    case fullScreen(Bool?)
    /// `{"cmd":"setloop","loop":{…LoopRange…},"keepingCount":true,"on":true}`; no "loop": none.
    case setLoop(LoopRange?, keepingCount: Bool, on: Bool)
    case seek(Double)
    case rate(Double)
    case pitch(Double)
    /// `{"cmd":"quality","value":"high"}`: the stretcher, fast (SoundTouch) or high (Rubber Band R3).
    case quality(StretchQuality)
    /// `{"cmd":"formant","on":true}`: a voice's formants kept through a pitch shift (and the
    /// stretcher Rubber Band's), or not; without `on`, the other way.
    case formant(Bool?)
    /// Repeat a region (times), or stop looping (nil).
    case loop(LoopRange?)
    /// Seek to a place as the command line names it (a marker, a lyric line).
    case seekTo(String)
    /// Loop a saved loop by name, or between two places (markers, lines, times), `times` passes.
    case loopAt([String], times: Int?)
    /// Jump to a marker (by name, resolved by the controller against the sidecar) and play.
    case jump(String)

    /// Parses one line; the error says what is wrong with it.
    public static func parse(_ line: String) throws(PracticeError) -> PlayerCommand {
        guard let object = (try? JSONValue.parse(line))?.object else {
            throw PracticeError(.dataError, "control: not a JSON object: \(line)")
        }
        guard let cmd = object["cmd"]?.string else { throw PracticeError(.dataError, "control: missing \"cmd\": \(line)") }
        func number(_ key: String) throws(PracticeError) -> Double {
            if let v = object[key]?.double, v.isFinite { return v }
            if ["to", "start", "end"].contains(key), let s = object[key]?.string, let v = Timecode.parse(s) { return v }
            throw PracticeError(.dataError, "control: \"\(cmd)\" needs a number in \"\(key)\": \(line)")
        }
        switch cmd {
        case "play": return .play
        case "pause": return .pause
        case "toggle": return .toggle
        case "quit": return .quit
        case "next": return .next
        case "previous": return .previous
        case "status": return .status
        case "attach": return .attach
        case "remote": return .remote
        case "rewind": return .rewind
        case "mirror", "video", "fullscreen", "formant":
            var on: Bool?
            if let given = object["on"] {
                guard let value = given.bool else { throw PracticeError(.dataError, "control: \"\(cmd)\" takes true or false in \"on\" (or nothing: the other way): \(line)") }
                on = value
            }
            return cmd == "mirror" ? .mirror(on) : cmd == "video" ? .video(on) : cmd == "formant" ? .formant(on) : .fullScreen(on)
        case "looping":
            guard let on = object["on"]?.bool else { throw PracticeError(.dataError, "control: \"looping\" needs true or false in \"on\": \(line)") }
            return .looping(on)
        case "setloop":
            var loop: LoopRange?
            if let l = object["loop"], l != .null {
                guard let range = LoopRange(json: l) else { throw PracticeError(.dataError, "control: \"setloop\" needs a loop's \"start\" and \"end\" in \"loop\": \(line)") }
                loop = range
            }
            return .setLoop(loop, keepingCount: object["keepingCount"]?.bool ?? false, on: object["on"]?.bool ?? true)
        case "mark":
            guard let name = object["name"]?.string, !name.trimmingWhitespace().isEmpty else {
                throw PracticeError(.dataError, "control: \"mark\" needs the marker's name in \"name\": \(line)")
            }
            return .mark(name)
        case "seek":
            if let text = object["to"]?.string, Timecode.parse(text) == nil { return .seekTo(text) }
            return .seek(try number("to"))
        case "rate": return .rate(try number("value"))
        case "pitch": return .pitch(try number("value"))
        case "quality":
            guard let q = object["value"]?.string.flatMap(StretchQuality.init(rawValue:)) else {
                throw PracticeError(.dataError, "control: \"quality\" needs \"fast\" or \"high\" in \"value\": \(line)")
            }
            return .quality(q)
        case "jump":
            if object["to"] != nil { return .jumpTo(try number("to")) }
            guard let name = object["marker"]?.string, !name.isEmpty else {
                throw PracticeError(.dataError, "control: \"jump\" needs a marker's name in \"marker\": \(line)")
            }
            return .jump(name)
        case "loop":
            var times: Int?
            if let t = object["times"] {
                guard let n = t.int, n >= 1 else { throw PracticeError(.dataError, "control: \"loop\" needs a whole number of 1 or more in \"times\": \(line)") }
                times = n
            }
            if let name = object["name"] {
                guard let n = name.string, !n.isEmpty else { throw PracticeError(.dataError, "control: \"loop\" needs a saved loop's name in \"name\": \(line)") }
                return .loopAt([n], times: times)
            }
            if object["start"] == nil && object["end"] == nil { return .loop(nil) }
            let texts = [object["start"]?.string, object["end"]?.string]
            if texts.contains(where: { $0.map { Timecode.parse($0) == nil } ?? false }) {
                // A marker or a lyric line at either end: the player reads them from the sidecar.
                func place(_ key: String) throws(PracticeError) -> String {
                    if let s = object[key]?.string { return s }
                    return JSONValue.formatMilliseconds(try number(key))
                }
                return .loopAt([try place("start"), try place("end")], times: times)
            }
            return .loop(LoopRange(start: try number("start"), end: try number("end"), passes: times))
        default: throw PracticeError(.dataError, "control: unknown command \"\(cmd)\": \(line)")
        }
    }
}

extension PlayerCommand {
    /// The command as one line of the protocol, which `parse` reads back as this command. (A
    /// place that is a time comes back as the time: `seekTo("1:12")` as `seek(72)`, a loop between
    /// two times as `loop`; a `loop`'s range carries its ends and passes only.)
    public var line: String { JSONValue.object(fields).compact() }

    private var fields: [String: JSONValue] {
        func cmd(_ name: String, _ rest: [String: JSONValue] = [:]) -> [String: JSONValue] { rest.merging(["cmd": .string(name)]) { _, name in name } }
        switch self {
        case .play: return cmd("play")
        case .pause: return cmd("pause")
        case .toggle: return cmd("toggle")
        case .quit: return cmd("quit")
        case .next: return cmd("next")
        case .previous: return cmd("previous")
        case .status: return cmd("status")
        case .attach: return cmd("attach")
        case .remote: return cmd("remote")
        case .rewind: return cmd("rewind")
        case .mirror(let on): return cmd("mirror", on.map { ["on": .bool($0)] } ?? [:])
        case .video(let on): return cmd("video", on.map { ["on": .bool($0)] } ?? [:])
        case .fullScreen(let on): return cmd("fullscreen", on.map { ["on": .bool($0)] } ?? [:])
        case .mark(let name): return cmd("mark", ["name": .string(name)])
        case .jumpTo(let t): return cmd("jump", ["to": .double(t)])
        case .jump(let marker): return cmd("jump", ["marker": .string(marker)])
        case .looping(let on): return cmd("looping", ["on": .bool(on)])
        case .setLoop(let loop, let keepingCount, let on):
            var f: [String: JSONValue] = ["keepingCount": .bool(keepingCount), "on": .bool(on)]
            if let loop { f["loop"] = loop.json }
            return cmd("setloop", f)
        case .seek(let t): return cmd("seek", ["to": .double(t)])
        case .seekTo(let place): return cmd("seek", ["to": .string(place)])
        case .rate(let v): return cmd("rate", ["value": .double(v)])
        case .pitch(let v): return cmd("pitch", ["value": .double(v)])
        case .quality(let q): return cmd("quality", ["value": .string(q.rawValue)])
        case .formant(let on): return cmd("formant", on.map { ["on": .bool($0)] } ?? [:])
        case .loop(nil): return cmd("loop")
        case .loop(let l?):
            var f: [String: JSONValue] = ["start": .double(l.start), "end": .double(l.end)]
            if let passes = l.passes { f["times"] = .integer(passes) }
            return cmd("loop", f)
        case .loopAt(let places, let times):
            var f: [String: JSONValue] = places.count == 1 ? ["name": .string(places[0])]
                : ["start": .string(places.first ?? ""), "end": .string(places.last ?? "")]
            if let times { f["times"] = .integer(times) }
            return cmd("loop", f)
        }
    }
}

extension Player {
    /// A picture asked of a session without one.
    static let noPicture = PracticeError(.unavailable, "control: this player shows no picture (the file has none, or there is no display)")

    /// Carries out a controller's command (`quit` is the controller's to handle); a loop the
    /// track cannot hold is refused with the reason. Returns the line to send back to the one who
    /// asked, for the commands that answer (`status`, `mark`).
    @discardableResult
    public func perform(_ command: PlayerCommand) throws(PracticeError) -> String? {
        switch command {
        case .play: play()
        case .pause: pause()
        case .toggle: togglePause()
        case .seek(let s):
            guard s >= 0, s <= track.duration else {
                throw PracticeError(.usage, "control: \"seek\" to \(JSONValue.formatMilliseconds(s)) is outside the track (0 to \(Timecode.format(track.duration, decimals: 3)))")
            }
            seek(to: s)
        case .seekTo(let place):
            var places = Places(track: track, explicit: sidecar)
            seek(to: try places.time(place, option: "control: \"seek\""))
        case .rate(let r):
            guard PlaybackSettings.rateRange.contains(r) else {
                throw PracticeError(.usage, "control: \"rate\" must be from 0.25 to 3.0 (got \(JSONValue.formatMilliseconds(r)))")
            }
            setRate(r)
        case .pitch(let p):
            guard PlaybackSettings.pitchRange.contains(p) else {
                throw PracticeError(.usage, "control: \"pitch\" must be from -12 to 12 semitones (got \(JSONValue.formatMilliseconds(p)))")
            }
            setPitch(p)
        case .quality(let q): setQuality(q)
        case .formant(let on): setFormant(on ?? !state.formant)
        case .loop(let l): try setLoop(l)
        case .loopAt(let places, let times):
            var resolver = Places(track: track, explicit: sidecar)
            var loop = try resolver.loop(places, passes: times, option: "control: \"loop\"")
            loop.rehearsal = state.loop?.rehearsal ?? Rehearsal()
            try setLoop(loop)
        case .jump(let name):
            var places = Places(track: track, explicit: sidecar)
            jump(to: try places.time(name, option: "jump"))
        case .next, .previous:
            let times = try SidecarStore.load(for: track, explicit: sidecar).sidecar.liveMarkers.map(\.time).sorted()
            let position = state.position
            if command == .next {
                guard let k = Sections.next(times, after: position) else { throw PracticeError(.usage, "control: no marker after \(Timecode.format(position, decimals: 3))") }
                jump(to: times[k])
            } else {
                jump(to: Sections.previous(times, before: position).map { times[$0] } ?? 0)
            }
        case .mark(let name):
            let time = Sidecar.milliseconds(state.position)
            let (m, loaded) = try SidecarStore.update(for: track, explicit: sidecar) { (s: inout Sidecar) throws(PracticeError) in
                try s.addMarker(name: name, time: time, duration: track.duration)
            }
            return JSONValue.object(["event": .string("marked"), "name": .string(m.name), "time": .seconds(m.time),
                                     "file": .string(loaded.writePath)]).compact()
        case .status: return statusMessage.line
        case .jumpTo(let t):
            guard t >= 0, t <= track.duration else {
                throw PracticeError(.usage, "control: \"jump\" to \(JSONValue.formatMilliseconds(t)) is outside the track (0 to \(Timecode.format(track.duration, decimals: 3)))")
            }
            jump(to: t)
        case .looping(let on): setLooping(on)
        case .rewind: rewindLoop()
        case .mirror(let on): setMirror(on ?? !state.isMirrored)
        case .video(let on):
            guard let v = state.video else { throw Self.noPicture }
            setVideo(shown: on ?? !v.isShown)
        case .fullScreen(let on):
            guard let v = state.video else { throw Self.noPicture }
            setVideo(fullScreen: on ?? !v.isFullScreen)
        case .setLoop(let loop, let keepingCount, let on): try setLoop(loop, keepingCount: keepingCount, on: on)
        case .quit, .attach: break
        case .remote: throw PracticeError(.unavailable, "control: this player offers no phone remote here (started with '--no-remote', or still starting; ask its players' socket, as 'practice remote' does)")
        }
        return nil
    }
}
