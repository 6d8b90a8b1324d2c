// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeDocuments

/// Where to play, as a command line asks it: `--from`, `--to` (times, markers' names or lyric
/// lines), `--loop` (a saved loop's name, or a start and an end) and what goes with a loop.
public struct PlaceRequest: Sendable {
    public var from: String?
    public var to: String?
    public var loop: [String] = []
    public var times: Int?
    public var gap = 0.0
    public var countIn = 0
    public var countInEvery = false
    /// `click` or `voice`.
    public var countInSound = "click"
    public var bpm: Double?
    public var preRoll = 0.0
    /// FROM:TO:STEP[/EVERY].
    public var trainer: String?
    /// The sidecar and lyrics to take names from instead of the track's own.
    public var sidecar: String?
    public var lyrics: String?
    public var audioStream: Int?
    /// Leave another copy's times as they are.
    public var noAlign = false

    public init() {}
}

extension PlaceRequest {
    /// Whether a place is asked for (`--from`, `--to`, `--loop`), which only the sidecar (or the
    /// lyrics) can turn into times.
    public var namesAPlace: Bool { from != nil || to != nil || !loop.isEmpty }
}

extension Places {
    /// As `resolve`, for a player: when no place is asked, the sidecar is not read here but by
    /// `later`, which the player calls once its sound has started. So a sidecar of 10,000
    /// markers, or a crew's lined up with this copy for the first time (which needs this copy's
    /// fingerprint), does not hold the sound back; its warnings and notes are said all the same.
    public static func resolveForPlaying(_ asked: PlaceRequest, for path: String) throws(PracticeError)
        -> (from: Double?, to: Double?, loop: LoopRange?, later: (@Sendable () -> Void)?) {
        guard !asked.namesAPlace else {
            let r = try resolve(asked, for: path)
            return (r.from, r.to, r.loop, nil)
        }
        SidecarStore.aligns = !asked.noAlign
        let track = try Track.describe(path, audioStream: asked.audioStream)
        return (nil, nil, nil, { sayNotes(asked, on: track) })
    }

    /// What the sidecar says when no place is asked: its warnings and notes (markers moved to
    /// match this copy, say). A sidecar that cannot be read is the player's to report.
    static func sayNotes(_ asked: PlaceRequest, on track: Track) {
        var places = Places(track: track, explicit: asked.sidecar, lyrics: asked.lyrics)
        if (try? places.readSidecar()) != nil {
            Console.warn(places.warnings)
            Console.note(places.notices)
        }
    }

    /// Turns the names `asked` into times on the track at `path`; prints the sidecar's warnings
    /// and notices (such as its markers moved to match this copy of the song).
    public static func resolve(_ asked: PlaceRequest, for path: String) throws(PracticeError) -> (from: Double?, to: Double?, loop: LoopRange?) {
        SidecarStore.aligns = !asked.noAlign
        let track = try Track.describe(path, audioStream: asked.audioStream)
        guard asked.namesAPlace else {
            sayNotes(asked, on: track)
            return (nil, nil, nil)
        }
        var places = Places(track: track, explicit: asked.sidecar, lyrics: asked.lyrics)
        for text in [asked.from, asked.to].compactMap({ $0 }) + asked.loop { if let n = Timecode.ambiguity(text) { Console.note([n]) } }
        let f = try asked.from.map { t throws(PracticeError) in try places.time(t, option: "--from") }
        let t = try asked.to.map { t throws(PracticeError) in try places.time(t, option: "--to", end: true) }
        var l = asked.loop.isEmpty ? nil : try places.loop(asked.loop, passes: asked.times)
        var tempo = asked.bpm
        if asked.countIn > 0, tempo == nil {
            tempo = try places.tempo()
            guard tempo != nil else {
                throw PracticeError(.usage, "'--count-in' needs the song's tempo: give '--bpm N', find it with 'practice beats', or tap it with 't' on the practice screen")
            }
        }
        guard ["click", "voice"].contains(asked.countInSound) else {
            throw PracticeError(.usage, "--count-in-sound '\(asked.countInSound.terminalSafe)': 'click' or 'voice'")
        }
        l?.rehearsal = Rehearsal(gap: asked.gap, countIn: asked.countIn, countInEvery: asked.countInEvery, bpm: tempo, preRoll: asked.preRoll,
                                 trainer: asked.trainer.flatMap(Trainer.init), voice: asked.countInSound == "voice")
        Console.warn(places.warnings)
        Console.note(places.notices)
        return (f, t, l)
    }
}
