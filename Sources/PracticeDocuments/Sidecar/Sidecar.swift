// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// The markers, loops and practice settings of one track, as kept in its sidecar file
/// (`song.mp3.practice.json`; specified in `Formats/practice-sidecar.md`).
///
/// Every object keeps the fields this version does not know in `extra`, and writes them back.
public struct Sidecar: Sendable, Equatable {
    public static let formatName = "practice-markers"
    public static let currentVersion = 1

    public var version = Sidecar.currentVersion
    public var audio: TrackIdentity?
    /// Live markers and tombstones (`deleted`), in file order until `normalize()` (one added goes
    /// into its place by time).
    public var markers: [Marker] = []
    public var loops: [Loop] = []
    public var settings: PracticeSettings?
    /// The beat grid (`practice beats`), when found.
    public var beats: BeatGrid?
    public var extra: [String: JSONValue] = [:]

    public init() {}

    /// The markers that are not deleted, by time.
    public var liveMarkers: [Marker] { markers.filter { !$0.deleted } }
    public var liveLoops: [Loop] { loops.filter { !$0.deleted } }

    /// Sorts for small diffs: markers by (time, id), loops by (start, name, id), tombstones last by id.
    /// (Sorted lists are left as they are: sorting would copy every entry of a list it shares.)
    public mutating func normalize() {
        if markers.indices.dropFirst().contains(where: { Self.markerBefore(markers[$0], markers[$0 - 1]) }) { markers.sort(by: Self.markerBefore) }
        guard loops.count > 1 else { return }
        var times = [String: Double](minimumCapacity: markers.count)
        for m in markers where !m.deleted && times[m.id] == nil { times[m.id] = m.time }
        func start(_ l: Loop) -> Double {
            switch l.start { case .time(let t): t; case .marker(let id): times[id] ?? .infinity }
        }
        func before(_ a: Loop, _ b: Loop) -> Bool {
            if a.deleted != b.deleted { return !a.deleted }
            if a.deleted { return a.id < b.id }
            return (start(a), a.name, a.id) < (start(b), b.name, b.id)
        }
        if loops.indices.dropFirst().contains(where: { before(loops[$0], loops[$0 - 1]) }) { loops.sort(by: before) }
    }

    /// The order markers are written in: by time (then id), tombstones last by id.
    static func markerBefore(_ a: Marker, _ b: Marker) -> Bool {
        if a.deleted != b.deleted { return !a.deleted }
        if a.deleted { return a.id < b.id }
        return (a.time, a.id) < (b.time, b.id)
    }
}

/// A named point on the track's decoded timeline.
public struct Marker: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Seconds on the decoded (gapless) timeline, kept to the millisecond.
    public var time: Double
    public var note: String?
    /// A colour for views, as `#rrggbb`.
    public var color: String?
    /// RFC 3339 UTC, milliseconds: the last edit, for merges.
    public var updatedAt: String
    public var author: String?
    /// A tombstone: the marker was removed (kept so a merge does not bring it back).
    public var deleted = false
    public var extra: [String: JSONValue] = [:]

    public init(id: String = Sidecar.newID(), name: String, time: Double, note: String? = nil, color: String? = nil,
                updatedAt: String = Sidecar.now(), author: String? = Sidecar.author) {
        self.id = id; self.name = name; self.time = Sidecar.milliseconds(time); self.note = note; self.color = color
        self.updatedAt = updatedAt; self.author = author
    }
}

/// One end of a loop: a time, or a marker (by id, so renaming the marker keeps the loop).
public enum LoopPoint: Sendable, Equatable {
    case time(Double)
    case marker(String)
}

/// A named region to repeat.
public struct Loop: Sendable, Equatable {
    public var id: String
    public var name: String
    public var start: LoopPoint
    public var end: LoopPoint
    public var note: String?
    public var updatedAt: String
    public var author: String?
    public var deleted = false
    public var extra: [String: JSONValue] = [:]

    public init(id: String = Sidecar.newID(), name: String, start: LoopPoint, end: LoopPoint, note: String? = nil,
                updatedAt: String = Sidecar.now(), author: String? = Sidecar.author) {
        self.id = id; self.name = name; self.start = start; self.end = end; self.note = note
        self.updatedAt = updatedAt; self.author = author
    }
}

/// Which recording a sidecar was made for.
public struct TrackIdentity: Sendable, Equatable {
    public var fileName: String
    public var title: String?
    public var artist: String?
    public var duration: Double
    /// SHA-256 of the file's bytes: an exact copy.
    public var fileSHA256: String?
    public var pcm: PCMIdentity
    /// What the audio sounds like: survives re-encoding, resampling, padding and trimming, so
    /// another copy of the song can be aligned with this one.
    public var chromaprint: AcousticFingerprint?
    public var extra: [String: JSONValue] = [:]

    public init(fileName: String, title: String? = nil, artist: String? = nil, duration: Double, fileSHA256: String? = nil,
                pcm: PCMIdentity, chromaprint: AcousticFingerprint? = nil) {
        self.fileName = fileName; self.title = title; self.artist = artist; self.duration = duration
        self.fileSHA256 = fileSHA256; self.pcm = pcm; self.chromaprint = chromaprint
    }
}

/// A Chromaprint fingerprint of the decoded audio: Chromaprint's compressed form in base64, the
/// algorithm (as Chromaprint's API numbers it), where in the audio it starts and how many
/// seconds it covers (the whole track, so every marker can be placed on another copy).
public struct AcousticFingerprint: Sendable, Equatable {
    public var algorithm: Int
    public var fingerprint: String
    public var start: Double
    /// The seconds it covers (nil in a file that does not say).
    public var lengthSeconds: Double?
    public var extra: [String: JSONValue] = [:]

    public init(algorithm: Int, fingerprint: String, start: Double = 0, lengthSeconds: Double?) {
        self.algorithm = algorithm; self.fingerprint = fingerprint; self.start = start; self.lengthSeconds = lengthSeconds
    }
}

/// The decoded audio: survives renames, moves, tag edits and lossless re-encoding.
public struct PCMIdentity: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    public var frames: Int
    /// SHA-256 of the decoded frames as 16-bit little-endian, interleaved.
    public var sha256: String
    public var extra: [String: JSONValue] = [:]

    public init(sampleRate: Int, channels: Int, frames: Int, sha256: String) {
        self.sampleRate = sampleRate; self.channels = channels; self.frames = frames; self.sha256 = sha256
    }
}

/// Per-track practice settings.
public struct PracticeSettings: Sendable, Equatable {
    public var rate: Double?
    public var pitch: Double?
    /// Where practice last stopped, in seconds.
    public var position: Double?
    /// The song's tempo in beats a minute (for count-ins), as given or tapped.
    public var bpm: Double?
    /// Seconds to move the track's lyrics by (positive: later), to the millisecond.
    public var lyricsShift: Double?
    /// When each setting was last set or cleared (RFC 3339 UTC, by its key), so that a merge takes
    /// the newer edit of each one. A setting without a time counts as older than any with one.
    public var updatedAt: [String: String] = [:]
    public var extra: [String: JSONValue] = [:]
    public init(rate: Double? = nil, pitch: Double? = nil, position: Double? = nil, bpm: Double? = nil, lyricsShift: Double? = nil) {
        self.rate = rate; self.pitch = pitch; self.position = position; self.bpm = bpm; self.lyricsShift = lyricsShift
    }

    /// Sets (or, with nil, clears) one setting and records when, for merges.
    public mutating func set(_ key: WritableKeyPath<PracticeSettings, Double?>, _ value: Double?, at time: String = Sidecar.now()) {
        self[keyPath: key] = value
        updatedAt[Self.name(of: key)] = time
    }

    static func name(of key: WritableKeyPath<PracticeSettings, Double?>) -> String {
        switch key {
        case \.rate: "rate"
        case \.pitch: "pitch"
        case \.position: "position"
        case \.bpm: "bpm"
        case \.lyricsShift: "lyricsShift"
        default: "\(key)"
        }
    }
}

// MARK: Helpers

extension Sidecar {
    /// A new id: a random (version 4) UUID in lowercase, from the system's generator (`getrandom`).
    /// (FoundationEssentials' `UUID()` opens and reads /dev/urandom for each: 10,000 opens, a
    /// tenth of importing 10,000 labels.)
    public static func newID() -> String {
        var random = SystemRandomNumberGenerator()
        var bytes = withUnsafeBytes(of: (random.next() as UInt64, random.next() as UInt64)) { Array($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40   // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80   // the RFC 4122 variant
        return [bytes[0..<4], bytes[4..<6], bytes[6..<8], bytes[8..<10], bytes[10...]].map(\.hex).joined(separator: "-")
    }

    /// Now, as RFC 3339 UTC with milliseconds: `2026-11-20T10:01:00.123Z`.
    public static func now() -> String { timestamp(Date()) }

    public static func timestamp(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var t = time_t(ms / 1000)
        var parts = tm()
        gmtime_r(&t, &parts)
        return cFormat("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(ms % 1000))
    }

    /// Who edits: `$PRACTICE_AUTHOR` when set (nil otherwise, so files carry no user names by default).
    /// (Read with `getenv`: `ProcessInfo`'s dictionary of the whole environment, made again for
    /// each marker, was a tenth of an import of 10,000.)
    public static var author: String? {
        guard let a = getenv("PRACTICE_AUTHOR").map({ String(cString: $0) }), !a.isEmpty else { return nil }
        return a
    }

    /// Rounds to the millisecond, as stored.
    public static func milliseconds(_ s: Double) -> Double { (s * 1000).rounded() / 1000 }

    /// The shortest loop that plays: 50 ms, so each pass is longer than its 10 ms seam.
    public static let shortestLoop = 0.05
}
