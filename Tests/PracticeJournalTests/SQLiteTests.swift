// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeJournal

/// The SQLite wrapper the journal and the library's index are written with: values stored and
/// read back as they were (checked with the `sqlite3` program too), transactions all or nothing,
/// and SQLite's errors in its own words.
@Suite struct SQLiteTests {
    let dir = ScratchDirectory("sqlite")

    func database(_ name: String) throws -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: dir.file(name))
        try db.write { try $0.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB)") }
        return db
    }

    /// Every connection reads its file through a memory map of up to 256 MB (a search read its
    /// index a `pread` per page), and what another connection writes (2 MB) reads back through it.
    @Test func theFileIsReadThroughAMapThatFollowsItsGrowth() throws {
        let reader = try database("mapped.sqlite")
        #expect(try reader.read { try $0.value(Int.self, sql: "PRAGMA mmap_size") } == 268_435_456)
        #expect(try reader.read { try $0.value(Int.self, sql: "SELECT count(*) FROM t") } == 0)
        let writer = try SQLiteDatabase(path: dir.file("mapped.sqlite"))
        try writer.write { db in
            for k in 0..<2_000 { try db.execute(sql: "INSERT INTO t (i, b) VALUES (?, ?)", arguments: [k, [UInt8](repeating: UInt8(k % 251), count: 1_000)]) }
        }
        let read = try reader.read { try $0.row(sql: "SELECT count(*) AS n, sum(i) AS total, sum(length(b)) AS bytes FROM t") }
        #expect(read.map { [$0["n"] as Int, $0["total"] as Int, $0["bytes"] as Int] } == [2_000, 1_999_000, 2_000_000])
    }

    /// The WAL and its index stay beside the file when the last connection closes, so that the next
    /// process does not make and delete them again; the WAL is checkpointed and cut to nothing
    /// first, so the file alone holds everything (copied without them, it reads back whole). A
    /// database deleted without them starts again from nothing beside the empty ones left.
    @Test func theWALStaysEmptyBesideTheFileWhenTheLastConnectionCloses() throws {
        let path = dir.file("kept.sqlite")
        func size(_ suffix: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? nil
        }
        do {
            let db = try database("kept.sqlite")
            try db.write { db in
                for k in 0..<3_000 { try db.execute(sql: "INSERT INTO t (i, b) VALUES (?, ?)", arguments: [k, [UInt8](repeating: 7, count: 1_000)]) }
            }
            #expect((size("-wal") ?? 0) > 1_000_000, "the rows are in the WAL while the file is open")
            #expect(size("-shm") != nil)
        }
        #expect(size("-wal") == 0 && size("-shm") != nil, "after the last close: WAL \(String(describing: size("-wal"))), index \(String(describing: size("-shm")))")
        let alone = dir.file("alone.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: alone)
        #expect(try run("/usr/bin/sqlite3", [alone, "SELECT count(*), sum(i), sum(length(b)) FROM t"]).stdout == "3000|4498500|3000000\n")
        // The next connection reads and writes as before, and leaves them the same way.
        do {
            let db = try SQLiteDatabase(path: path)
            try db.write { try $0.execute(sql: "INSERT INTO t (i) VALUES (?)", arguments: [-1]) }
            #expect(try db.read { try $0.value(Int.self, sql: "SELECT count(*) FROM t") } == 3_001)
        }
        #expect(size("-wal") == 0)
        #expect(try run("/usr/bin/sqlite3", [path, "SELECT count(*) FROM t"]).stdout == "3001\n")
        // The file deleted by hand, its empty WAL and index left: a new database, not the old rows.
        let kept = dir.file("stale.sqlite")
        do { try database("stale.sqlite").write { try $0.execute(sql: "INSERT INTO t (s) VALUES ('old')") } }
        try FileManager.default.removeItem(atPath: kept)
        #expect(FileManager.default.fileExists(atPath: kept + "-wal") && FileManager.default.fileExists(atPath: kept + "-shm"))
        let fresh = try database("stale.sqlite")
        #expect(try fresh.read { try $0.value(Int.self, sql: "SELECT count(*) FROM t") } == 0)
    }

    /// Each kind of value, the edges of each: the empty text is text (not NULL), a text with a
    /// NUL in it keeps all its bytes, the largest integers and non-ASCII text come back the same.
    @Test func valuesComeBackAsTheyWereStored() throws {
        let db = try database("values.sqlite")
        let rows: [SQLiteArguments] = [
            [Int64.max, 0.1, "", [UInt8]()] , [Int64.min, -1e300, "a\u{0}b", [0, 255]], [nil, nil, "Café — 踊り", nil],
        ]
        try db.write { db in
            for r in rows { try db.execute(sql: "INSERT INTO t (i, r, s, b) VALUES (?, ?, ?, ?)", arguments: r) }
        }
        let back = try db.read { try $0.rows(sql: "SELECT * FROM t ORDER BY id") }
        #expect(back.map { $0["i"] as Int64? } == [Int64.max, Int64.min, nil])
        #expect(back.map { $0["r"] as Double? } == [0.1, -1e300, nil])
        #expect(back.map { $0["s"] as String } == ["", "a\u{0}b", "Café — 踊り"])
        #expect(back.map { $0["s"] as String? } == ["", "a\u{0}b", "Café — 踊り"])
        #expect(back.map { $0["b"] as [UInt8]? } == [[], [0, 255], nil])
        // As SQLite itself has them.
        let shown = try run("/usr/bin/sqlite3", [dir.file("values.sqlite"), "SELECT typeof(i), typeof(r), typeof(s), length(CAST(s AS BLOB)), typeof(b), hex(b) FROM t ORDER BY id"])
        #expect(shown.stdout == "integer|real|text|0|blob|\ninteger|real|text|3|blob|00FF\nnull|null|text|16|null|\n")
    }

    /// NULL read as a plain value is SQLite's own 0 or "", never a trap; a missing column too.
    @Test func nullAndMissingColumnsReadAsSQLiteDoes() throws {
        let db = try database("null.sqlite")
        let row = try #require(try db.read { try $0.row(sql: "SELECT NULL AS n, '12' AS t, 2.9 AS r") })
        #expect(row["n"] as Int == 0 && row["n"] as String == "" && row["n"] as Double? == nil)
        #expect(row["t"] as Int == 12 && row["r"] as Int == 2 && row["gone"] as String? == nil)
        #expect(try db.read { try $0.value(Int.self, sql: "SELECT NULL") } == nil)
        // Read by place, as a listing reads many rows: the same values, a missing column NULL.
        let (n, t, r, gone) = (row.index(of: "n"), row.index(of: "t"), row.index(of: "r"), row.index(of: "gone"))
        #expect(n == 0 && t == 1 && r == 2 && gone == nil)
        #expect(row[at: n] as Int == 0 && row[at: n] as Double? == nil && row[at: t] as Int == 12 && row[at: r] as Double == 2.9)
        #expect(row[at: gone] as String == "" && row[at: gone] as String? == nil)
        #expect(try db.read { try $0.values(String.self, sql: "SELECT 'a' UNION ALL SELECT NULL UNION ALL SELECT 'b'") } == ["a", "b"])
    }

    /// A write that throws leaves nothing behind; a read sees what was committed.
    @Test func aFailedWriteLeavesNothing() throws {
        let db = try database("rollback.sqlite")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.write { db in
                try db.execute(sql: "INSERT INTO t (s) VALUES (?)", arguments: ["kept?"])
                throw Stop()
            }
        }
        #expect(try db.read { try $0.value(Int.self, sql: "SELECT count(*) FROM t") } == 0)
        // And the connection is usable after it.
        try db.write { try $0.statement(sql: "INSERT INTO t (s) VALUES (?)").execute(arguments: ["kept"]) }
        try db.write { try $0.statement(sql: "INSERT INTO t (s) VALUES (?)").execute(arguments: ["again"]) }
        #expect(try db.read { try $0.values(String.self, sql: "SELECT s FROM t ORDER BY id") } == ["kept", "again"])
        #expect(try run("/usr/bin/sqlite3", [dir.file("rollback.sqlite"), "PRAGMA journal_mode"]).stdout == "wal\n")
    }

    /// A write while another connection (another player) is writing waits for it, up to the busy
    /// timeout, instead of failing: the second write lands after the first is committed.
    @Test func aWriteWaitsForAnotherWriter() throws {
        let first = try database("busy.sqlite")
        let second = try SQLiteDatabase(path: dir.file("busy.sqlite"))
        let begun = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? first.write { db in
                try db.execute(sql: "INSERT INTO t (s) VALUES (?)", arguments: ["first"])
                begun.signal()
                usleep(300_000)   // the other player's write, held open
            }
            done.signal()
        }
        begun.wait()
        let start = DispatchTime.now()
        try second.write { try $0.execute(sql: "INSERT INTO t (s) VALUES (?)", arguments: ["second"]) }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        done.wait()
        #expect(waited > 0.2, "the second write did not wait for the first (\(waited) s)")
        #expect(try second.read { try $0.values(String.self, sql: "SELECT s FROM t ORDER BY id") } == ["first", "second"])
    }

    /// SQLite's errors in its words: a file that is not a database, wrong SQL, the wrong number
    /// of arguments, two statements where one is run with arguments.
    @Test func errorsAreSQLitesOwn() throws {
        let junk = dir.file("junk.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: junk))
        #expect { _ = try SQLiteDatabase(path: junk) } throws: { ($0 as? SQLiteError)?.message == "file is not a database" }
        let db = try database("errors.sqlite")
        #expect { try db.read { try $0.rows(sql: "SELECT missing FROM t") } } throws: { ($0 as? SQLiteError)?.message == "no such column: missing" }
        #expect { try db.write { try $0.execute(sql: "INSERT INTO t (s) VALUES (?)", arguments: ["a", "b"]) } } throws: {
            ($0 as? SQLiteError)?.message == "2 arguments for 1 places"
        }
        #expect { try db.write { try $0.execute(sql: "INSERT INTO t (s) VALUES (?); DROP TABLE t", arguments: ["a"]) } } throws: {
            ($0 as? SQLiteError)?.message == "more than one statement where one is run with arguments"
        }
        #expect(try db.read { try $0.value(Int.self, sql: "SELECT count(*) FROM t") } == 0)
    }
}
