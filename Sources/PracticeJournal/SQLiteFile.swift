// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
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
    public static func open(_ path: String, kind: Kind, version: Int, create: @escaping (SQLiteConnection) throws -> Void) throws(PracticeError) -> (SQLiteDatabase, newer: Bool) {
        guard FileSystem.makeFolders(Path.directory(path)) else {
            throw PracticeError(.cannotCreate, "\(Path.directory(path)): cannot make the folder for \(kind.name)")
        }
        // WAL with synchronous NORMAL (`SQLiteDatabase`): a commit is in the operating system's
        // hands at once (a crash or a kill of ours loses nothing committed), and only checkpoints
        // wait for the disk; a power cut may take the last commits. FULL would sync the disk at
        // every commit.
        do {
            return try open(path, version: version, create: create)
        } catch let error as SQLiteError where error.isBusy {
            throw PracticeError(.tempFailure, "\(path): \(kind.name) is busy (another practice is making it); try again")
        } catch let error as SQLiteError {
            throw PracticeError(.dataError, "\(path): not \(kind.notOne) (\(error.message)); \(kind.remedy)")
        } catch {
            throw PracticeError(.dataError, "\(path): cannot open \(kind.name) (\(error))")
        }
    }

    /// Opens the file at `path` and makes its tables (`create`, which sets `PRAGMA user_version`)
    /// when it has none. The version is read again inside the (immediate) write, so two players
    /// starting together do not both make the tables; and SQLite answers "busy" without waiting
    /// while another process turns a new file into a WAL database, so that is tried again for up
    /// to five seconds. Returns the database and whether a newer version made the file.
    static func open(_ path: String, version: Int, create: @escaping (SQLiteConnection) throws -> Void) throws -> (SQLiteDatabase, newer: Bool) {
        var attempt = 0
        while true {
            do {
                let db = try SQLiteDatabase(path: path)
                let found = try db.read { try $0.value(Int.self, sql: "PRAGMA user_version") ?? 0 }
                if found > version { return (db, true) }
                if found < version {
                    try db.write { db in
                        if try db.value(Int.self, sql: "PRAGMA user_version") ?? 0 < version { try create(db) }
                    }
                }
                return (db, false)
            } catch let error as SQLiteError where error.isBusy && attempt < 100 {
                attempt += 1
                usleep(50_000)
            }
        }
    }

    /// What went wrong, in SQLite's words.
    public static func describe(_ error: any Error) -> String {
        (error as? SQLiteError)?.message ?? "\(error)"
    }
}
