// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments
import PracticeEngine

// The whole of the player's state as JSON, for a screen attached to a player in another process
// (`{"cmd":"attach"}`): every field a view shows, and the loop with its rehearsal.

extension PlayerState {
    /// `{"event":"full","kind":"tick",…}`: the state after one of the player's events.
    public func fullLine(kind: PlayerEvent.Kind, startPosition: Double) -> String {
        var object: [String: JSONValue] = [
            "event": .string("full"), "kind": .string(kind.rawValue), "title": .string(title), "path": .string(path),
            "tags": .object(tags.mapValues(JSONValue.string)), "position": .double(position), "duration": .double(duration),
            "rate": .double(rate), "pitch": .double(pitch), "playing": .bool(isPlaying), "finished": .bool(isFinished),
            "underruns": .integer(underruns), "realTime": .bool(isRealTime), "start": .double(startPosition),
        ]
        if let earlyEnd { object["earlyEnd"] = .string(earlyEnd) }
        if let failure { object["failure"] = .string(failure) }
        if let deviceLost { object["deviceLost"] = .string(deviceLost) }
        if let loop {
            var l: [String: JSONValue] = ["start": .double(loop.start), "end": .double(loop.end), "pass": .integer(loop.pass),
                                          "on": .bool(loop.isOn), "rehearsal": loop.rehearsal.json]
            if let name = loop.name { l["name"] = .string(name) }
            if let n = loop.passes { l["times"] = .integer(n) }
            if let c = loop.countIn { l["countIn"] = .object(["beat": .integer(c.beat), "of": .integer(c.of)]) }
            object["loop"] = .object(l)
        }
        return JSONValue.object(object).compact()
    }

    /// Reads a `full` event: the state, the event's kind and where playing started; nil if it is not one.
    public static func full(_ line: String) -> (state: PlayerState, kind: PlayerEvent.Kind, start: Double)? {
        guard let o = try? JSONValue.parse(line).object, o["event"]?.string == "full",
              let kind = o["kind"]?.string.flatMap(PlayerEvent.Kind.init(rawValue:)),
              let position = o["position"]?.double, let duration = o["duration"]?.double else { return nil }
        var s = PlayerState(title: o["title"]?.string ?? "", path: o["path"]?.string ?? "",
                            tags: (o["tags"]?.object ?? [:]).compactMapValues(\.string), position: position, duration: duration,
                            rate: o["rate"]?.double ?? 1, pitch: o["pitch"]?.double ?? 0, isPlaying: o["playing"]?.bool ?? false,
                            isFinished: o["finished"]?.bool ?? false, underruns: o["underruns"]?.int ?? 0,
                            earlyEnd: o["earlyEnd"]?.string, failure: o["failure"]?.string)
        s.isRealTime = o["realTime"]?.bool ?? true
        s.deviceLost = o["deviceLost"]?.string
        if let l = o["loop"]?.object, let a = l["start"]?.double, let b = l["end"]?.double {
            var loop = LoopState(start: a, end: b, name: l["name"]?.string, pass: l["pass"]?.int ?? 1, passes: l["times"]?.int,
                                 isOn: l["on"]?.bool ?? true, rehearsal: Rehearsal(json: l["rehearsal"]))
            if let c = l["countIn"]?.object, let beat = c["beat"]?.int, let of = c["of"]?.int { loop.countIn = .init(beat: beat, of: of) }
            s.loop = loop
        }
        return (s, kind, o["start"]?.double ?? 0)
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
