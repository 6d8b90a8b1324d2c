// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSQLite
import Glibc
import PracticeSystem

// SQLite is linked into the program from Debian's libsqlite3.a (PracticeJournal's linker settings)
// and called directly: opened with `dlopen`, it bound 1,629 of its own symbols in every process
// that read the journal or the index (a fifth of a search's time: README, issue 34).

/// What SQLite said went wrong: its result code and its message (`file is not a database`).
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY_RECOVERY`); `code & 0xff` is the primary one.
    public let code: Int32
    public let message: String

    /// Another connection (another player) holds the file.
    public var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
    public var description: String { message }

    init(code: Int32, message: String) { self.code = code; self.message = message }

    /// SQLite's words for a result code (`database is locked`).
    static func describe(_ code: Int32) -> String {
        sqlite3_errstr(code).map { String(cString: $0) } ?? "error \(code)"
    }

    init(_ code: Int32, _ handle: OpaquePointer?) {
        self.code = handle.map { sqlite3_extended_errcode($0) } ?? code
        message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? Self.describe(code)
    }
}

/// A value in a column, or bound to a statement's `?`.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type stored in a column. Reading converts as SQLite's own `sqlite3_column_*` do (NULL
/// is 0 or "", text read as a number is its number or 0), so a row never traps; an optional
/// reads NULL as nil.
public protocol SQLiteConvertible {
    var sqliteValue: SQLiteValue { get }
    init(sqliteValue: SQLiteValue)
}

extension SQLiteConvertible {
    /// `value` read as this type, nil for NULL. (Inlinable, as the row's subscripts are: a
    /// module reading rows gets them specialized for its types, not a generic call for each of
    /// the library's 10,000 tracks' 16 columns.)
    @inlinable init?(unlessNull value: SQLiteValue) {
        if case .null = value { return nil }
        self.init(sqliteValue: value)
    }
}

extension Int64: SQLiteConvertible {
    public var sqliteValue: SQLiteValue { .integer(self) }
    public init(sqliteValue v: SQLiteValue) {
        switch v {
        case .integer(let i): self = i
        case .real(let d): self = d.isFinite && abs(d) < 9.2e18 ? Int64(d) : 0
        case .text(let s): self = Int64(s) ?? Double(s).map { Int64(sqliteValue: .real($0)) } ?? 0
        case .null, .blob: self = 0
        }
    }
}

extension Int: SQLiteConvertible {
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    public init(sqliteValue v: SQLiteValue) { self = Int(Int64(sqliteValue: v)) }
}

extension Bool: SQLiteConvertible {
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
    public init(sqliteValue v: SQLiteValue) { self = Int64(sqliteValue: v) != 0 }
}

extension Double: SQLiteConvertible {
    public var sqliteValue: SQLiteValue { .real(self) }
    public init(sqliteValue v: SQLiteValue) {
        switch v {
        case .integer(let i): self = Double(i)
        case .real(let d): self = d
        case .text(let s): self = Double(s) ?? 0
        case .null, .blob: self = 0
        }
    }
}

extension String: SQLiteConvertible {
    public var sqliteValue: SQLiteValue { .text(self) }
    public init(sqliteValue v: SQLiteValue) {
        switch v {
        case .integer(let i): self = String(i)
        case .real(let d): self = String(d)
        case .text(let s): self = s
        case .blob(let b): self = String(decoding: b, as: UTF8.self)
        case .null: self = ""
        }
    }
}

extension [UInt8]: SQLiteConvertible {
    public var sqliteValue: SQLiteValue { .blob(self) }
    public init(sqliteValue v: SQLiteValue) {
        switch v {
        case .blob(let b): self = b
        case .text(let s): self = Array(s.utf8)
        case .integer, .real: self = Array(String(sqliteValue: v).utf8)
        case .null: self = []
        }
    }
}

/// What a statement's `?` are bound to, in order; nil is NULL.
public typealias SQLiteArguments = [(any SQLiteConvertible)?]

/// One row of a result, its columns read by name (the first of that name, for `track.*` joined
/// with more).
public struct SQLiteRow {
    let names: [String: Int]
    @usableFromInline let values: [SQLiteValue]

    public subscript<T: SQLiteConvertible>(_ column: String) -> T { self[at: names[column]] }

    public subscript<T: SQLiteConvertible>(_ column: String) -> T? { self[at: names[column]] }

    /// Where `column` is in this result, for reading many rows by place (`subscript(at:)`)
    /// instead of looking each name up in each row.
    public func index(of column: String) -> Int? { names[column] }

    /// The column at `index` (from `index(of:)`; nil reads as NULL).
    @inlinable public subscript<T: SQLiteConvertible>(at index: Int?) -> T {
        guard let index else { return T(sqliteValue: .null) }
        return T(sqliteValue: values[index])
    }

    @inlinable public subscript<T: SQLiteConvertible>(at index: Int?) -> T? {
        guard let index else { return nil }
        return T(unlessNull: values[index])
    }
}

/// A prepared statement, kept by its connection (`SQLiteConnection.statement`) and run again
/// with other arguments.
public final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    /// The result's column names, by index (first wins).
    private lazy var names: [String: Int] = Dictionary(
        (0..<sqlite3_column_count(handle)).map { (sqlite3_column_name(handle, $0).map { String(cString: $0) } ?? "", Int($0)) },
        uniquingKeysWith: { first, _ in first })

    init(_ sql: String, in connection: SQLiteConnection, persistent: Bool) throws(SQLiteError) {
        self.connection = connection
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { sqlite3_prepare_v3(connection.handle, $0, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &statement, &tail) }
        guard code == SQLITE_OK, let statement else { throw SQLiteError(code, connection.handle) }
        // (Checked before `handle` is set: once it is, a throw would finalize it again in deinit.)
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) {
            _ = sqlite3_finalize(statement)
            throw SQLiteError(code: SQLITE_MISUSE, message: "more than one statement where one is run with arguments")
        }
        handle = statement
    }

    deinit { _ = sqlite3_finalize(handle) }

    /// Runs the statement with `arguments` to its end.
    public func execute(arguments: SQLiteArguments = []) throws(SQLiteError) {
        try run(arguments)
    }

    /// The rows the statement gives with `arguments`.
    func rows(_ arguments: SQLiteArguments, limit: Int = .max) throws(SQLiteError) -> [SQLiteRow] {
        var out: [SQLiteRow] = []
        try run(arguments) {
            out.append(SQLiteRow(names: names, values: (0..<sqlite3_column_count(handle)).map(column)))
            return out.count < limit
        }
        return out
    }

    /// Binds `arguments` and steps through the rows, each handed to `row` until it returns false.
    private func run(_ arguments: SQLiteArguments, row: () -> Bool = { true }) throws(SQLiteError) {
        defer { _ = sqlite3_reset(handle); _ = sqlite3_clear_bindings(handle) }
        try bind(arguments)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw SQLiteError(code, connection.handle) }
            guard row() else { return }
        }
    }

    private func bind(_ arguments: SQLiteArguments) throws(SQLiteError) {
        guard arguments.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(arguments.count) arguments for \(sqlite3_bind_parameter_count(handle)) places")
        }
        for (i, argument) in arguments.enumerated() {
            let place = Int32(i + 1)
            let code: Int32
            switch argument?.sqliteValue ?? .null {
            case .null: code = sqlite3_bind_null(handle, place)
            case .integer(let v): code = sqlite3_bind_int64(handle, place, v)
            case .real(let v): code = sqlite3_bind_double(handle, place, v)
            case .text(var s):
                // By length, not up to a NUL; SQLite copies the bytes (SQLITE_TRANSIENT).
                // (An empty one bound so, not as a null pointer, which would be NULL.)
                code = s.isEmpty ? sqlite3_bind_text(handle, place, "", 0, Self.transient)
                    : s.withUTF8 { b in b.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(handle, place, $0.baseAddress, Int32($0.count), Self.transient) } }
            case .blob(let b):
                code = b.isEmpty ? sqlite3_bind_zeroblob(handle, place, 0)
                    : b.withUnsafeBytes { sqlite3_bind_blob(handle, place, $0.baseAddress, Int32($0.count), Self.transient) }
            }
            guard code == SQLITE_OK else { throw SQLiteError(code, connection.handle) }
        }
    }

    private func column(_ i: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT:
            let bytes = UnsafeBufferPointer(start: sqlite3_column_text(handle, i), count: Int(sqlite3_column_bytes(handle, i)))
            return .text(String(decoding: bytes, as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard count > 0, let start = sqlite3_column_blob(handle, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: start, count: count)))
        default: return .null
        }
    }

    /// SQLite's SQLITE_TRANSIENT (a macro Swift cannot import): copy the bytes before returning.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// One open SQLite file, as the closures given to `SQLiteDatabase.read` and `write` see it
/// (inside a transaction, holding the database's lock).
public final class SQLiteConnection {
    let handle: OpaquePointer
    private var cache: [String: SQLiteStatement] = [:]

    init(path: String) throws(SQLiteError) {
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError(code, db)
            _ = sqlite3_close_v2(db)
            throw error
        }
        handle = db
        _ = sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        cache.removeAll()
        _ = sqlite3_close_v2(handle)
    }

    /// Runs `sql`: with `arguments`, one statement; without, any number of them (a schema).
    public func execute(sql: String, arguments: SQLiteArguments = []) throws(SQLiteError) {
        if arguments.isEmpty {
            var message: UnsafeMutablePointer<CChar>?
            let code = sqlite3_exec(handle, sql, nil, nil, &message)
            defer { sqlite3_free(message) }
            guard code == SQLITE_OK else {
                throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message.map { String(cString: $0) } ?? SQLiteError.describe(code))
            }
        } else {
            try SQLiteStatement(sql, in: self, persistent: false).execute(arguments: arguments)
        }
    }

    /// The statement for `sql`, prepared once and kept (for what is run again and again).
    public func statement(sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let kept = cache[sql] { return kept }
        let statement = try SQLiteStatement(sql, in: self, persistent: true)
        cache[sql] = statement
        return statement
    }

    /// Every row `sql` gives.
    public func rows(sql: String, arguments: SQLiteArguments = []) throws(SQLiteError) -> [SQLiteRow] {
        try SQLiteStatement(sql, in: self, persistent: false).rows(arguments)
    }

    /// The first row `sql` gives, if any.
    public func row(sql: String, arguments: SQLiteArguments = []) throws(SQLiteError) -> SQLiteRow? {
        try SQLiteStatement(sql, in: self, persistent: false).rows(arguments, limit: 1).first
    }

    /// The first column of the first row, nil when there is no row or it is NULL.
    public func value<T: SQLiteConvertible>(_ type: T.Type, sql: String, arguments: SQLiteArguments = []) throws(SQLiteError) -> T? {
        try SQLiteStatement(sql, in: self, persistent: false).rows(arguments, limit: 1).first?.values.first.flatMap(T.init(unlessNull:))
    }

    /// The first column of every row, NULLs left out.
    public func values<T: SQLiteConvertible>(_ type: T.Type, sql: String, arguments: SQLiteArguments = []) throws(SQLiteError) -> [T] {
        try SQLiteStatement(sql, in: self, persistent: false).rows(arguments).compactMap { $0.values.first.flatMap(T.init(unlessNull:)) }
    }

    /// The rows the last INSERT, UPDATE or DELETE changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// The row id of the last INSERT.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }
}

/// An SQLite file shared by several threads and several processes: one connection behind a lock,
/// in WAL mode (readers in other processes do not wait for a writer), waiting up to five seconds
/// for another process's write. `read` and `write` run their closure inside a transaction: a
/// read sees one moment of the file; a write (BEGIN IMMEDIATE) is all or nothing.
public final class SQLiteDatabase: Sendable {
    private let connection: Locked<SQLiteConnection>

    /// Opens (makes) the file at `path`: WAL, `synchronous = NORMAL` (see `SQLiteFile`), foreign keys
    /// on, and the file read through a memory map of up to 256 MB rather than a `pread` per page (a
    /// search of 10,000 tracks read 610 pages one call at a time). Only SQLite writes these files, and
    /// it never shrinks them (no VACUUM), so a mapped page is never cut from under a reader.
    ///
    /// The WAL and its index (`-wal`, `-shm`) stay beside the file when the last connection closes
    /// (`SQLITE_FCNTL_PERSIST_WAL`), the WAL checkpointed and cut to nothing (`journal_size_limit`,
    /// which also keeps it to 4 MB while open). Otherwise every process that opens the file, a
    /// search or a play, makes both files and deletes them again as it ends: two creations, eight
    /// writes and two deletions in the kernel, 0.35 ms of a search's 9 ms (bench/library, README).
    public init(path: String) throws(SQLiteError) {
        let c = try SQLiteConnection(path: path)
        _ = sqlite3_busy_timeout(c.handle, 5000)
        var persist: Int32 = 1
        _ = sqlite3_file_control(c.handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        try c.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA mmap_size = 268435456; PRAGMA journal_size_limit = 4194304")
        connection = Locked(c)
    }

    public func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try transaction("BEGIN DEFERRED", body)
    }

    public func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try transaction("BEGIN IMMEDIATE", body)
    }

    private func transaction<T>(_ begin: String, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { c in
            try c.execute(sql: begin)
            do {
                let result = try body(c)
                try c.execute(sql: "COMMIT")
                return result
            } catch {
                if sqlite3_get_autocommit(c.handle) == 0 { try? c.execute(sql: "ROLLBACK") }
                throw error
            }
        }
    }
}
