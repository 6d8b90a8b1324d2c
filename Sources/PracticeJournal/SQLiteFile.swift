// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import GRDB
import Glibc
import PracticeDocuments

/// Opening one of our SQLite files (the journal, the library's index) safely when several
/// players start at once.
public enum SQLiteFile {
    /// What one of our files is called in messages ("the library's index") and what to do when
    /// it is not one ("delete it and scan again").
    public struct Kind: Sendable {
        public var name: String
        public var notOne: String
        public var remedy: String
        public init(name: String, notOne: String, remedy: String) { self.name = name; self.notOne = notOne; self.remedy = remedy }
    }

    /// `open`, with its folder made first and every failure one line naming the file: busy (75),
    /// not such a file (65), the folder not makeable (73).
    public static func open(_ path: String, kind: Kind, version: Int, create: @escaping (Database) throws -> Void) throws(PracticeError) -> (DatabasePool, newer: Bool) {
        do {
            try FileManager.default.createDirectory(atPath: Path.directory(path), withIntermediateDirectories: true)
        } catch {
            throw PracticeError(.cannotCreate, "\(Path.directory(path)): cannot make the folder for \(kind.name)")
        }
        var config = Configuration()
        config.busyMode = .timeout(5)
        // WAL with synchronous NORMAL: a commit is in the operating system's hands at once (a
        // crash or a kill of ours loses nothing committed), and only checkpoints wait for the
        // disk; a power cut may take the last commits. FULL would sync the disk at every commit.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            return try open(path, config, version: version, create: create)
        } catch let error as DatabaseError where isBusy(error) {
            throw PracticeError(.tempFailure, "\(path): \(kind.name) is busy (another practice is making it); try again")
        } catch let error as DatabaseError {
            throw PracticeError(.dataError, "\(path): not \(kind.notOne) (\(describe(error))); \(kind.remedy)")
        } catch {
            throw PracticeError(.dataError, "\(path): cannot open \(kind.name) (\(error))")
        }
    }

    /// Opens the pool at `path` and makes its tables (`create`, which sets `PRAGMA user_version`)
    /// when it has none. The version is read again inside the (immediate) write, so two players
    /// starting together do not both make the tables; and SQLite answers "busy" without waiting
    /// while another process turns a new file into a WAL database, so that is tried again for up
    /// to five seconds. Returns the pool and whether a newer version made the file.
    public static func open(_ path: String, _ config: Configuration, version: Int,
                            create: @escaping (Database) throws -> Void) throws -> (DatabasePool, newer: Bool) {
        var attempt = 0
        while true {
            do {
                let db = try DatabasePool(path: path, configuration: config)
                let found = try db.read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
                if found > version { return (db, true) }
                if found < version {
                    try db.write { db in
                        if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < version { try create(db) }
                    }
                }
                return (db, false)
            } catch let error as DatabaseError where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && attempt < 100 {
                attempt += 1
                usleep(50_000)
            }
        }
    }

    /// What went wrong, in SQLite's words.
    public static func describe(_ error: any Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "SQLite error \(e.resultCode.rawValue)" }
        return "\(error)"
    }

    /// Whether `error` is SQLite saying another connection holds the file.
    public static func isBusy(_ error: DatabaseError) -> Bool { error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED }
}
