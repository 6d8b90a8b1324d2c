// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// Where a person left a track: the position, speed, pitch and the loop they were on. Personal,
/// so it lives in `$XDG_STATE_HOME/practice/resume.json`, never in the shared sidecar.
public struct ResumePoint: Sendable, Equatable {
    public var position: Double
    public var rate: Double
    public var pitch: Double
    public var loop: Loop?
    /// A video's picture was shown mirrored.
    public var mirror = false
    public var updatedAt: String

    public struct Loop: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var name: String?
        public var isOn: Bool
        public init(start: Double, end: Double, name: String?, isOn: Bool) { self.start = start; self.end = end; self.name = name; self.isOn = isOn }
    }

    public init(position: Double, rate: Double, pitch: Double, loop: Loop?, updatedAt: String = Sidecar.timestamp(Date())) {
        self.position = position; self.rate = rate; self.pitch = pitch; self.loop = loop; self.updatedAt = updatedAt
    }

    /// `resumed at 1:12, 0.80×, loop chorus` for the screen.
    public var summary: String {
        var parts = ["resumed at \(Timecode.format(position))"]
        if rate != 1 { parts.append(cFormat("%.2f×", rate)) }
        if pitch != 0 { parts.append("\(pitch > 0 ? "+" : "")\(JSONValue.formatMilliseconds(pitch)) st") }
        if let loop, loop.isOn { parts.append("loop \(loop.name ?? "\(Timecode.format(loop.start))–\(Timecode.format(loop.end))")") }
        if mirror { parts.append("mirrored") }
        return parts.joined(separator: ", ")
    }
}

/// The resume points of one person's tracks, by the track's absolute path (the newest 500).
///
/// A file that cannot be read is reported and left alone: nothing is resumed from it, and nothing
/// is written over it.
public struct ResumeStore: Sendable {
    public let path: String
    /// Why the file could not be used, if it could not.
    public private(set) var problem: String?
    private var points: [String: ResumePoint] = [:]
    static let formatName = "practice-resume"
    static let limit = 500

    /// `$XDG_STATE_HOME/practice/resume.json`.
    public static var standardPath: String { Path.appending("resume.json", to: XDG.state) }

    /// Reads the store at `path` (a missing file is an empty store).
    public init(path: String = ResumeStore.standardPath) {
        self.path = path
        guard let bytes = ReadableFile.wholeFile(path) else {
            if FileSystem.exists(path) { problem = "\(path): cannot read it; not resuming, and not saving where you stop" }
            return
        }
        do {
            let document = try JSONValue.parse(bytes)
            guard let o = document.object, o["format"]?.string == Self.formatName, o["version"]?.int == 1, let tracks = o["tracks"]?.object else {
                problem = "\(path): not a practice resume file (version 1); not resuming, and not saving where you stop"
                return
            }
            for (key, value) in tracks {
                guard let p = value.object, let position = p["position"]?.double, let rate = p["rate"]?.double, let pitch = p["pitch"]?.double,
                      position.isFinite, position >= 0, (0.25...3).contains(rate), (-12...12).contains(pitch) else { continue }
                var loop: ResumePoint.Loop?
                if let l = p["loop"]?.object, let a = l["start"]?.double, let b = l["end"]?.double, a.isFinite, b.isFinite, a >= 0, b > a {
                    loop = .init(start: a, end: b, name: l["name"]?.string, isOn: l["on"]?.bool ?? true)
                }
                var point = ResumePoint(position: position, rate: rate, pitch: pitch, loop: loop, updatedAt: p["updatedAt"]?.string ?? "")
                point.mirror = p["mirror"]?.bool ?? false
                points[key] = point
            }
        } catch {
            problem = "\(path):\(error.line):\(error.column): \(error.message); not resuming, and not saving where you stop"
        }
    }

    /// The key for a track: its absolute path with symbolic links resolved ("." and ".." taken
    /// out of one that does not exist).
    static func key(_ trackPath: String) -> String {
        Path.resolved(trackPath) ?? Path.normalized(Path.absolute(trackPath))
    }

    public func point(for trackPath: String) -> ResumePoint? { points[Self.key(trackPath)] }

    /// When each track was last left, by its path with symbolic links resolved: for looking up
    /// many tracks at once (the library), without resolving each one's path.
    public var updated: [String: String] { points.mapValues(\.updatedAt) }

    /// Records `point` for the track (nil: forget it) and writes the file atomically.
    public mutating func save(_ point: ResumePoint?, for trackPath: String) throws(PracticeError) {
        guard problem == nil else { return }
        points[Self.key(trackPath)] = point
        if points.count > Self.limit {
            for (key, _) in points.sorted(by: { $0.value.updatedAt < $1.value.updatedAt }).prefix(points.count - Self.limit) { points[key] = nil }
        }
        var tracks: [String: JSONValue] = [:]
        for (key, p) in points {
            var o: [String: JSONValue] = ["position": .seconds(p.position), "rate": .double(p.rate), "pitch": .double(p.pitch), "updatedAt": .string(p.updatedAt)]
            if p.mirror { o["mirror"] = .bool(true) }
            if let l = p.loop {
                var lo: [String: JSONValue] = ["start": .seconds(l.start), "end": .seconds(l.end), "on": .bool(l.isOn)]
                if let name = l.name { lo["name"] = .string(name) }
                o["loop"] = .object(lo)
            }
            tracks[key] = .object(o)
        }
        let document = JSONValue.object(["format": .string(Self.formatName), "version": .integer(1), "tracks": .object(tracks)])
        try AtomicFile.write(Data(document.pretty().utf8), toPrivateFolder: path)
    }
}
