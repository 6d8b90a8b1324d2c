// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// The practice journal: `$XDG_DATA_HOME/practice/journal.sqlite`, an SQLite database (WAL,
/// through `SQLiteDatabase`) of every play session (the track, when, how long at each speed, the passes of each
/// loop and section, count-ins, the top speed, markers added) and the diary notes. It is the
/// person's own record, worth backing up (unlike the caches), and it never leaves the machine.
/// Several players write to it at once, each its own session.
public final class Journal: Sendable {
    public let path: String
    let db: SQLiteDatabase
    /// Made by a newer version: read, never written (`warning` says so).
    public let isReadOnly: Bool
    public let warning: String?
    static let schemaVersion = 3

    /// `$XDG_DATA_HOME/practice/journal.sqlite`.
    public static var standardPath: String { Path.appending("journal.sqlite", to: XDG.data) }

    /// Opens the journal at `path`, made when missing. A file that is not a journal is an error
    /// naming it (left as it is); one from a newer version opens read-only with a warning.
    public init(path: String = Journal.standardPath) throws(PracticeError) {
        self.path = path
        (db, isReadOnly) = try SQLiteFile.open(path, kind: .init(name: "the practice journal", notOne: "a practice journal", remedy: "move it away to start a new one"),
                                               version: Self.schemaVersion, create: Self.create)
        warning = isReadOnly ? "\(path): written by a newer version of practice; shown, but nothing is recorded in it" : nil
    }

    /// Version 3 knows which recordings are copies of one song (`copy`).
    static let copies = """
        CREATE TABLE copy (
            audio TEXT PRIMARY KEY,
            song TEXT NOT NULL,
            duration REAL NOT NULL,
            fingerprint TEXT
        ) WITHOUT ROWID;
        PRAGMA user_version = 3;
        """

    static func create(_ db: SQLiteConnection) throws {
        // Version 2 keeps each part's most practised speed; a version 1 journal gains the column,
        // and a version 2 journal the copies.
        switch try db.value(Int.self, sql: "PRAGMA user_version") {
        case 1:
            try db.execute(sql: "ALTER TABLE part ADD COLUMN mainSpeed REAL;" + copies)
            return
        case 2:
            try db.execute(sql: copies)
            return
        default:
            break
        }
        try db.execute(sql: """
            CREATE TABLE session (
                id INTEGER PRIMARY KEY,
                path TEXT NOT NULL,
                audio TEXT,
                title TEXT, artist TEXT, album TEXT, genre TEXT,
                duration REAL NOT NULL DEFAULT 0,
                started REAL NOT NULL,
                ended REAL NOT NULL,
                day TEXT NOT NULL,
                heard REAL NOT NULL DEFAULT 0,
                countIns INTEGER NOT NULL DEFAULT 0,
                topSpeed REAL,
                markersAdded INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX sessionByDay ON session(day);
            CREATE TABLE speed (
                sessionId INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                rate REAL NOT NULL,
                seconds REAL NOT NULL,
                PRIMARY KEY (sessionId, rate)
            ) WITHOUT ROWID;
            CREATE TABLE part (
                sessionId INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                name TEXT NOT NULL,
                passes INTEGER NOT NULL,
                seconds REAL NOT NULL,
                topSpeed REAL NOT NULL,
                mainSpeed REAL,
                PRIMARY KEY (sessionId, kind, name)
            ) WITHOUT ROWID;
            CREATE TABLE note (
                id INTEGER PRIMARY KEY,
                day TEXT NOT NULL,
                text TEXT NOT NULL,
                written REAL NOT NULL
            );
            CREATE INDEX noteByDay ON note(day);
            """ + copies)
    }

    func writing<T>(_ body: (SQLiteConnection) throws -> T) throws(PracticeError) -> T {
        guard !isReadOnly else { throw PracticeError(.cannotCreate, warning ?? path) }
        do { return try db.write(body) } catch {
            throw PracticeError(.ioError, "\(path): cannot write the practice journal (\(SQLiteFile.describe(error)))")
        }
    }

    func reading<T>(_ body: (SQLiteConnection) throws -> T) throws(PracticeError) -> T {
        do { return try db.read(body) } catch {
            throw PracticeError(.ioError, "\(path): cannot read the practice journal (\(SQLiteFile.describe(error)))")
        }
    }


    // MARK: Sessions

    /// Writes a session as it stands (made the first time; `id` is then kept by the caller).
    /// `since`: the session as last written, so that only its speeds and parts that changed
    /// are written again (a recorder writes once a second; this is most of what it costs).
    @discardableResult
    public func save(_ s: JournalSession, id: Int64?, since last: JournalSession? = nil) throws(PracticeError) -> Int64 {
        try writing { db in
            var row = id
            if let id {
                try db.statement(sql: "UPDATE session SET audio = ?, ended = ?, heard = ?, countIns = ?, topSpeed = ?, markersAdded = ? WHERE id = ?")
                    .execute(arguments: [s.audio, s.ended.timeIntervalSince1970, s.heard, s.countIns, s.topSpeed, s.markersAdded, id])
                // Gone (the journal was replaced under the player): made again, whole.
                if db.changes == 0 { row = nil }
            }
            let whole = row == nil || last == nil
            if row == nil {
                try db.execute(sql: """
                    INSERT INTO session (path, audio, title, artist, album, genre, duration, started, ended, day, heard, countIns, topSpeed, markersAdded)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [s.path, s.audio, s.title, s.artist, s.album, s.genre, s.duration, s.started.timeIntervalSince1970,
                                     s.ended.timeIntervalSince1970, Day(s.started).description, s.heard, s.countIns, s.topSpeed, s.markersAdded])
                row = db.lastInsertedRowID
            }
            let id = row!
            let speed = try db.statement(sql: "INSERT INTO speed (sessionId, rate, seconds) VALUES (?, ?, ?) ON CONFLICT (sessionId, rate) DO UPDATE SET seconds = excluded.seconds")
            for (rate, seconds) in s.speeds where seconds > 0 && (whole || last?.speeds[rate] != seconds) {
                try speed.execute(arguments: [id, rate, seconds])
            }
            let before = whole ? [:] : Dictionary((last?.parts ?? []).map { ("\($0.kind.rawValue)\u{0}\($0.name)", $0) }, uniquingKeysWith: { a, _ in a })
            let part = try db.statement(sql: """
                INSERT INTO part (sessionId, kind, name, passes, seconds, topSpeed, mainSpeed) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (sessionId, kind, name) DO UPDATE SET passes = excluded.passes, seconds = excluded.seconds, topSpeed = excluded.topSpeed, mainSpeed = excluded.mainSpeed
                """)
            for p in s.parts where before["\(p.kind.rawValue)\u{0}\(p.name)"] != p {
                try part.execute(arguments: [id, p.kind.rawValue, p.name, p.passes, p.seconds, p.topSpeed, p.mainSpeed])
            }
            return id
        }
    }

    // MARK: Copies

    /// Says which song the recording `identity` is a copy of, once: the song `reference` is (the
    /// recording a crew's sidecar was made on, when this copy uses it), else the song of a copy
    /// already known whose fingerprint lines up with this one's (a FLAC and its Ogg, each with
    /// a sidecar of its own), else a song of its own. Sessions on any copy are then the song's
    /// (`sessions`). Comparing fingerprints takes a few milliseconds a known copy of about the
    /// same length (within 30 s); it is done once a recording.
    public func registerCopy(_ identity: TrackIdentity, sameAs reference: String? = nil) throws(PracticeError) {
        let audio = identity.pcm.sha256
        let known = try reading { db in try db.value(Bool.self, sql: "SELECT 1 FROM copy WHERE audio = ?", arguments: [audio]) ?? false }
        guard !known else { return }
        var song = audio
        if let reference, reference != audio {
            song = try reading { db in try db.value(String.self, sql: "SELECT song FROM copy WHERE audio = ?", arguments: [reference]) } ?? reference
        } else if identity.chromaprint != nil {
            let candidates = try reading { db in
                try db.rows(sql: "SELECT song, duration, fingerprint FROM copy WHERE fingerprint IS NOT NULL AND abs(duration - ?) <= 30 ORDER BY abs(duration - ?)",
                                 arguments: [identity.duration, identity.duration])
            }
            for row in candidates {
                var other = identity
                other.pcm.sha256 = ""
                other.duration = row["duration"]
                other.chromaprint = AcousticFingerprint.fromJournal(row["fingerprint"])
                if let a = Alignment.align(reference: other, this: identity), a.isConfident { song = row["song"]; break }
            }
        }
        let print = identity.chromaprint.map(AcousticFingerprint.forJournal)
        try writing { db in
            try db.execute(sql: "INSERT INTO copy (audio, song, duration, fingerprint) VALUES (?, ?, ?, ?) ON CONFLICT (audio) DO NOTHING",
                           arguments: [audio, song, identity.duration, print])
        }
    }

    /// The sessions that started on the days `from` through `to`, oldest first, with their speeds and parts.
    public func sessions(from: Day, to: Day) throws(PracticeError) -> [JournalSession] {
        try reading { db in
            let rows = try db.rows(sql: "SELECT * FROM session WHERE day >= ? AND day <= ? ORDER BY started, id",
                                        arguments: [from.description, to.description])
            guard !rows.isEmpty else { return [] }
            let ids = rows.map { $0["id"] as Int64 }
            let (low, high) = (ids.min()!, ids.max()!)
            var speeds: [Int64: [Double: Double]] = [:]
            for r in try db.rows(sql: "SELECT sessionId, rate, seconds FROM speed WHERE sessionId BETWEEN ? AND ?", arguments: [low, high]) {
                speeds[r["sessionId"], default: [:]][r["rate"]] = r["seconds"]
            }
            // A copy of a song another recording is counts as that song.
            var songs: [String: String] = [:]
            for r in try db.rows(sql: "SELECT audio, song FROM copy WHERE audio != song") { songs[r["audio"]] = r["song"] }
            var parts: [Int64: [JournalPart]] = [:]
            for r in try db.rows(sql: "SELECT * FROM part WHERE sessionId BETWEEN ? AND ? ORDER BY sessionId, kind, name", arguments: [low, high]) {
                parts[r["sessionId"], default: []].append(JournalPart(kind: JournalPart.Kind(rawValue: r["kind"]) ?? .section, name: r["name"],
                                                                      passes: r["passes"], seconds: r["seconds"], topSpeed: r["topSpeed"], mainSpeed: r["mainSpeed"]))
            }
            return rows.map { r in
                let id: Int64 = r["id"]
                var s = JournalSession(path: r["path"], title: r["title"], artist: r["artist"], album: r["album"], genre: r["genre"],
                                       duration: r["duration"], started: Date(timeIntervalSince1970: r["started"]))
                s.id = id
                let audio: String? = r["audio"]
                s.audio = audio.map { songs[$0] ?? $0 }
                s.ended = Date(timeIntervalSince1970: r["ended"])
                s.heard = r["heard"]
                s.countIns = r["countIns"]
                s.topSpeed = r["topSpeed"]
                s.markersAdded = r["markersAdded"]
                s.speeds = speeds[id] ?? [:]
                s.parts = parts[id] ?? []
                return s
            }
        }
    }

    /// When each track (by path) was last practised: the end of its latest session.
    public func lastPractised() throws(PracticeError) -> [String: Date] {
        try reading { db in
            var out: [String: Date] = [:]
            for r in try db.rows(sql: "SELECT path, max(ended) AS last FROM session WHERE heard > 0 GROUP BY path") {
                out[r["path"]] = Date(timeIntervalSince1970: r["last"])
            }
            return out
        }
    }

    /// The days with any practice, newest first (for streaks and calendars).
    public func practiceDays() throws(PracticeError) -> [Day] {
        try reading { db in
            try db.values(String.self, sql: "SELECT DISTINCT day FROM session WHERE heard > 0 ORDER BY day DESC").compactMap { Day($0) }
        }
    }

    // MARK: Notes

    public func addNote(_ text: String, on day: Day, at date: Date = Date()) throws(PracticeError) {
        try writing { db in
            try db.execute(sql: "INSERT INTO note (day, text, written) VALUES (?, ?, ?)", arguments: [day.description, text, date.timeIntervalSince1970])
        }
    }

    public func notes(from: Day, to: Day) throws(PracticeError) -> [JournalNote] {
        try reading { db in
            try db.rows(sql: "SELECT day, text FROM note WHERE day >= ? AND day <= ? ORDER BY day, written, id",
                             arguments: [from.description, to.description]).compactMap { r in
                Day(r["day"] as String).map { JournalNote(day: $0, text: r["text"]) }
            }
        }
    }
}

/// One play session of one track, as the journal keeps it.
public struct JournalSession: Sendable, Equatable {
    public var id: Int64?
    public var path: String
    /// The decoded audio's SHA-256 (`TrackIdentity.pcm`): the same song under another name or
    /// folder is the same song; read back, the song's (`Journal.registerCopy`: another copy's
    /// where this one is a copy of it). Nil until worked out (it takes a decode).
    public var audio: String?
    public var title: String?
    public var artist: String?
    public var album: String?
    public var genre: String?
    public var duration: Double
    public var started: Date
    public var ended: Date
    /// Seconds heard, in all (on the output's clock).
    public var heard: Double = 0
    /// Seconds heard at each speed (rounded to 0.01×).
    public var speeds: [Double: Double] = [:]
    public var parts: [JournalPart] = []
    public var countIns = 0
    /// The fastest speed heard (a trainer's top, or the fastest set by hand).
    public var topSpeed: Double?
    public var markersAdded = 0

    public init(path: String, title: String? = nil, artist: String? = nil, album: String? = nil, genre: String? = nil, duration: Double, started: Date) {
        self.path = path; self.title = title; self.artist = artist; self.album = album; self.genre = genre
        self.duration = duration; self.started = started; self.ended = started
    }

    /// What the song is called in reports: `Artist — Title`, else the file's name.
    public var song: String {
        let title = self.title ?? Path.deletingExtension(Path.lastComponent(path))
        return artist.map { "\($0) — \(title)" } ?? title
    }
}

/// A loop played, or a section (the span from one marker to the next) heard, in one session.
public struct JournalPart: Sendable, Equatable {
    public enum Kind: String, Sendable { case loop, section }
    public var kind: Kind
    public var name: String
    public var passes: Int
    public var seconds: Double
    public var topSpeed: Double
    /// The speed it was practised at longest (nil in sessions written before it was kept).
    public var mainSpeed: Double?
    /// Seconds at each speed, while the session is tallied (not kept: `mainSpeed` is).
    var secondsAt: [Double: Double] = [:]
    public init(kind: Kind, name: String, passes: Int, seconds: Double, topSpeed: Double, mainSpeed: Double? = nil) {
        self.kind = kind; self.name = name; self.passes = passes; self.seconds = seconds; self.topSpeed = topSpeed; self.mainSpeed = mainSpeed
    }

    public static func == (a: JournalPart, b: JournalPart) -> Bool {
        a.kind == b.kind && a.name == b.name && a.passes == b.passes && a.seconds == b.seconds && a.topSpeed == b.topSpeed && a.mainSpeed == b.mainSpeed
    }

    /// `seconds` more heard at `rate`; the main speed follows (ties: the faster).
    mutating func hear(_ seconds: Double, at rate: Double) {
        guard seconds > 0 else { return }
        secondsAt[rate, default: 0] += seconds
        mainSpeed = secondsAt.max { ($0.value, $0.key) < ($1.value, $1.key) }?.key
    }
}

public struct JournalNote: Sendable, Equatable {
    public var day: Day
    public var text: String
    public init(day: Day, text: String) { self.day = day; self.text = text }
}

extension AcousticFingerprint {
    /// As the journal keeps it: the algorithm, a space, the fingerprint, a space, where it
    /// starts (seconds) and how long it is.
    static func forJournal(_ f: AcousticFingerprint) -> String {
        "\(f.algorithm) \(f.fingerprint) \(f.start) \(f.lengthSeconds ?? 0)"
    }

    static func fromJournal(_ text: String?) -> AcousticFingerprint? {
        guard let parts = text?.split(separator: " "), parts.count == 4, let algorithm = Int(parts[0]),
              let start = Double(parts[2]), let length = Double(parts[3]) else { return nil }
        return AcousticFingerprint(algorithm: algorithm, fingerprint: String(parts[1]), start: start, lengthSeconds: length > 0 ? length : nil)
    }
}
