// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// What a player says about its state on the wire, in one of three forms, written and read
/// here only:
/// - `{"event":"state",…}`, sent to every client with each change (and on `--control stdin`'s
///   stdout): the fields scripts read, `version` 1, a loop only while it plays;
/// - `{"event":"status",…}`, the answer to `{"cmd":"status"}`: the same, with the process, the
///   file, its title and artist, its sidecar and its MPRIS name;
/// - `{"event":"full",…}`, to an attached screen (`{"cmd":"attach"}`): every field a view shows,
///   the loop with its rehearsal whether on or off, the event's kind and where playing started.
/// Times are kept to the millisecond in every form.
public struct StateMessage: Sendable, Equatable {
    public enum Form: String, Sendable { case state, status, full }
    /// Who answers `status`: the process, the file (its resolved path), its sidecar when it is not
    /// the track's own, and the MPRIS name the player took (`practice`, `practice.instance1234`).
    public struct Process: Sendable, Equatable {
        public var pid: Int
        public var path: String
        public var sidecar: String?
        public var mpris: String?
        public init(pid: Int, path: String, sidecar: String? = nil, mpris: String? = nil) {
            self.pid = pid; self.path = path; self.sidecar = sidecar; self.mpris = mpris
        }
    }

    public var form: Form
    public var state: PlayerState
    /// `full`: the player's event this state follows.
    public var kind: PlayerEvent.Kind
    /// `full`: where playing started (`--from`), where the end of the range sends a screen back to.
    public var start: Double
    /// `status`: who answers.
    public var process: Process?

    public init(_ form: Form, _ state: PlayerState, kind: PlayerEvent.Kind = .snapshot, start: Double = 0, process: Process? = nil) {
        self.form = form; self.state = state; self.kind = kind; self.start = start; self.process = process
    }

    /// The message as one line (sorted keys, no spaces).
    public var line: String { JSONValue.object(object).compact() }

    /// The message's fields, for a view that adds its own (the phone remote's page).
    public var object: [String: JSONValue] {
        let s = state
        var o: [String: JSONValue] = [
            "event": .string(form.rawValue), "position": .seconds(s.position), "duration": .seconds(s.duration),
            "rate": .double(s.rate), "pitch": .double(s.pitch), "playing": .bool(s.isPlaying), "finished": .bool(s.isFinished),
            "underruns": .integer(s.underruns),
        ]
        if let deviceLost = s.deviceLost { o["deviceLost"] = .string(deviceLost) }
        if form == .full {
            o["kind"] = .string(kind.rawValue)
            o["title"] = .string(s.title)
            o["path"] = .string(s.path)
            o["tags"] = .object(s.tags.mapValues(JSONValue.string))
            o["realTime"] = .bool(s.isRealTime)
            o["start"] = .double(start)
            if let earlyEnd = s.earlyEnd { o["earlyEnd"] = .string(earlyEnd) }
            if let failure = s.failure { o["failure"] = .string(failure) }
            switch s.rewound {
            case .track: o["rewound"] = .object([:])
            case .passes(let n): o["rewound"] = .object(["passes": .integer(n)])
            case nil: break
            }
        } else {
            o["version"] = .integer(1)
        }
        if form != .state {
            if s.isMirrored { o["mirror"] = .bool(true) }
            if s.quality != .fast { o["quality"] = .string(s.quality.rawValue) }
            if s.formant { o["formant"] = .bool(true) }
            if let v = s.video { o["video"] = .object(["shown": .bool(v.isShown), "fullScreen": .bool(v.isFullScreen)]) }
        }
        if form == .status, let p = process {
            o["pid"] = .integer(p.pid)
            o["path"] = .string(p.path)
            o["title"] = .string(s.title)
            if let artist = s.tags["artist"] { o["artist"] = .string(artist) }
            if let sidecar = p.sidecar { o["sidecar"] = .string(sidecar) }
            if let mpris = p.mpris { o["mpris"] = .string(mpris) }
        }
        if let loop = s.loop, loop.isOn || form == .full {
            var l: [String: JSONValue] = ["start": .seconds(loop.start), "end": .seconds(loop.end), "pass": .integer(loop.pass)]
            if let n = loop.passes { l["times"] = .integer(n) }
            if let name = loop.name { l["name"] = .string(name) }
            if let c = loop.countIn { l["countIn"] = .object(["beat": .integer(c.beat), "of": .integer(c.of)]) }
            if form == .full {
                l["on"] = .bool(loop.isOn)
                l["rehearsal"] = loop.rehearsal.json
            }
            o["loop"] = .object(l)
        }
        return o
    }

    /// Reads a message of any form; nil for other lines (an error event, a command, not JSON).
    public init?(line: String) {
        guard let o = try? JSONValue.parse(line).object, let form = o["event"]?.string.flatMap(Form.init(rawValue:)),
              let position = o["position"]?.double, position.isFinite, let duration = o["duration"]?.double, duration.isFinite else { return nil }
        func finite(_ key: String, in object: [String: JSONValue] = o) -> Double? { object[key]?.double.flatMap { $0.isFinite ? $0 : nil } }
        var tags = (o["tags"]?.object ?? [:]).compactMapValues(\.string)
        if form == .status, let artist = o["artist"]?.string { tags["artist"] = artist }
        var s = PlayerState(title: o["title"]?.string ?? "", path: form == .full ? o["path"]?.string ?? "" : "",
                            tags: tags, position: position, duration: duration,
                            rate: finite("rate") ?? 1, pitch: finite("pitch") ?? 0, isPlaying: o["playing"]?.bool ?? false,
                            isFinished: o["finished"]?.bool ?? false, underruns: o["underruns"]?.int ?? 0,
                            earlyEnd: o["earlyEnd"]?.string, failure: o["failure"]?.string)
        s.isRealTime = o["realTime"]?.bool ?? true
        s.isMirrored = o["mirror"]?.bool ?? false
        s.quality = o["quality"]?.string.flatMap(StretchQuality.init(rawValue:)) ?? .fast
        s.formant = o["formant"]?.bool ?? false
        if let v = o["video"]?.object { s.video = VideoState(isShown: v["shown"]?.bool ?? false, isFullScreen: v["fullScreen"]?.bool ?? false) }
        s.deviceLost = o["deviceLost"]?.string
        if form == .full, let r = o["rewound"]?.object { s.rewound = r["passes"]?.int.map(PlayerState.Rewound.passes) ?? .track }
        if let l = o["loop"]?.object, let a = finite("start", in: l), let b = finite("end", in: l) {
            var loop = LoopState(start: a, end: b, name: l["name"]?.string, pass: l["pass"]?.int ?? 1, passes: l["times"]?.int,
                                 isOn: l["on"]?.bool ?? true, rehearsal: Rehearsal(json: l["rehearsal"]))
            if let c = l["countIn"]?.object, let beat = c["beat"]?.int, let of = c["of"]?.int { loop.countIn = .init(beat: beat, of: of) }
            s.loop = loop
        }
        var process: Process?
        if form == .status, let pid = o["pid"]?.int {
            process = Process(pid: pid, path: o["path"]?.string ?? "", sidecar: o["sidecar"]?.string, mpris: o["mpris"]?.string)
        }
        self.init(form, s, kind: o["kind"]?.string.flatMap(PlayerEvent.Kind.init(rawValue:)) ?? .snapshot,
                  start: form == .full ? finite("start") ?? 0 : 0, process: process)
    }

    /// `{"code":64,"event":"error","message":"…"}`: a command that could not be carried out, with
    /// the exit code `practice` would give it (64: a bad argument, 65: a line that is not a command).
    public static func errorLine(_ error: PracticeError) -> String {
        JSONValue.object(["event": .string("error"), "message": .string(error.message), "code": .integer(Int(error.exitCode))]).compact()
    }

    /// Reads an error event: its message and exit code; nil for any other line.
    public static func error(_ line: String) -> (message: String, code: Int)? {
        guard let o = try? JSONValue.parse(line).object, o["event"]?.string == "error" else { return nil }
        return (o["message"]?.string ?? line, o["code"]?.int ?? 65)
    }
}

extension Player {
    /// The `status` answer: the state with the process, the file, its title and its sidecar.
    public var statusMessage: StateMessage {
        StateMessage(.status, state, process: .init(pid: Int(getpid()), path: Path.resolved(track.path) ?? track.path,
                                                    sidecar: sidecar.map { Path.resolved($0) ?? $0 }))
    }

    /// The `full` message for an attached screen: the state after `kind`.
    public func fullMessage(_ state: PlayerState, kind: PlayerEvent.Kind) -> StateMessage {
        StateMessage(.full, state, kind: kind, start: startPosition)
    }
}

extension LoopRange {
    /// `{"start":…,"end":…,"times":…,"name":…,"rehearsal":{…}}`.
    public var json: JSONValue {
        var l: [String: JSONValue] = ["start": .double(start), "end": .double(end), "rehearsal": rehearsal.json]
        if let passes { l["times"] = .integer(passes) }
        if let name { l["name"] = .string(name) }
        return .object(l)
    }

    public init?(json: JSONValue?) {
        guard let l = json?.object, let a = l["start"]?.double, let b = l["end"]?.double, a.isFinite, b.isFinite else { return nil }
        self.init(start: a, end: b, passes: l["times"]?.int, name: l["name"]?.string, rehearsal: Rehearsal(json: l["rehearsal"]))
    }
}

extension Rehearsal {
    public var json: JSONValue {
        var r: [String: JSONValue] = ["gap": .double(gap), "countIn": .integer(countIn), "countInEvery": .bool(countInEvery), "preRoll": .double(preRoll)]
        if let bpm { r["bpm"] = .double(bpm) }
        if voice { r["voice"] = .bool(true) }
        if let t = trainer { r["trainer"] = .object(["from": .double(t.from), "to": .double(t.to), "step": .double(t.step), "every": .integer(t.every)]) }
        return .object(r)
    }

    /// What `json` wrote; what is missing or unreadable is left as nothing added.
    public init(json: JSONValue?) {
        let r = json?.object ?? [:]
        func finite(_ key: String) -> Double? { r[key]?.double.flatMap { $0.isFinite ? $0 : nil } }
        var trainer: Trainer?
        if let t = r["trainer"]?.object, let from = t["from"]?.double, let to = t["to"]?.double, let step = t["step"]?.double,
           from.isFinite, to.isFinite, step.isFinite, step != 0 {
            trainer = Trainer(from: from, to: to, step: step, every: max(t["every"]?.int ?? 1, 1))
        }
        self.init(gap: max(finite("gap") ?? 0, 0), countIn: max(r["countIn"]?.int ?? 0, 0), countInEvery: r["countInEvery"]?.bool ?? false,
                  bpm: finite("bpm"), preRoll: max(finite("preRoll") ?? 0, 0), trainer: trainer, voice: r["voice"]?.bool ?? false)
    }
}

/// What a player answers `{"cmd":"remote"}` with: where its phone remote is, and the address a
/// phone opens to pair (the QR code's, with a one-time token):
/// `{"event":"remote","origin":"http://192.168.1.20:4797","pairing":"HTTP://192.168.1.20:4797/P/…"}`.
public struct RemoteInvitation: Equatable, Sendable {
    public var origin: String
    public var pairing: String
    public init(origin: String, pairing: String) { (self.origin, self.pairing) = (origin, pairing) }

    public var line: String {
        JSONValue.object(["event": .string("remote"), "origin": .string(origin), "pairing": .string(pairing)]).compact()
    }

    /// Reads an invitation; nil for any other line.
    public init?(line: String) {
        guard let o = try? JSONValue.parse(line).object, o["event"]?.string == "remote",
              let origin = o["origin"]?.string, let pairing = o["pairing"]?.string else { return nil }
        self.init(origin: origin, pairing: pairing)
    }
}
