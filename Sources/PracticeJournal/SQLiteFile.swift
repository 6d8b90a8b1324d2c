import GRDB
import Glibc

/// Opening one of our SQLite files (the journal, the library's index) safely when several
/// players start at once.
public enum SQLiteFile {
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

    /// Whether `error` is SQLite saying another connection holds the file.
    public static func isBusy(_ error: DatabaseError) -> Bool { error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED }
}
