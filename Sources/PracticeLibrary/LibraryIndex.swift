// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeJournal

/// One track in the library: where it is, its tags, and what practice knows of it.
public struct LibraryTrack: Sendable, Equatable {
    public var id: Int64
    /// Absolute.
    public var path: String
    public var title: String?
    public var artist: String?
    public var album: String?
    public var albumArtist: String?
    public var genre: String?
    /// 0 when the tags do not say, as for `trackNumber` and `discNumber`.
    public var year: Int
    public var trackNumber: Int
    public var discNumber: Int
    /// Seconds, from the file's headers (0 when unknown).
    public var duration: Double
    /// The cover's image file: the embedded picture written into the cache, else the folder's image.
    public var cover: String?
    public var markerCount: Int
    public var loopCount: Int
    public var hasLyrics: Bool
    /// Why the tags or the sidecar could not be read, when they could not (one line).
    public var problem: String?

    public init(id: Int64, path: String, title: String? = nil, artist: String? = nil, album: String? = nil, albumArtist: String? = nil,
                genre: String? = nil, year: Int = 0, trackNumber: Int = 0, discNumber: Int = 0, duration: Double = 0, cover: String? = nil,
                markerCount: Int = 0, loopCount: Int = 0, hasLyrics: Bool = false, problem: String? = nil) {
        self.id = id; self.path = path; self.title = title; self.artist = artist; self.album = album; self.albumArtist = albumArtist
        self.genre = genre; self.year = year; self.trackNumber = trackNumber; self.discNumber = discNumber; self.duration = duration
        self.cover = cover; self.markerCount = markerCount; self.loopCount = loopCount; self.hasLyrics = hasLyrics; self.problem = problem
    }

    /// Where a result's columns are, found once for all its rows: looked up by name in every
    /// row, they were a twentieth of a search's work.
    struct Columns {
        private(set) var id, path, title, artist, album, albumArtist, genre, year, trackNumber, discNumber, duration, cover,
            markerCount, loopCount, hasLyrics, problem: Int?

        /// Each column a track is made of, and where `Columns` keeps its place: the one list the
        /// queries' SELECT and the look-ups both come from.
        private static let fields: [(name: String, place: any WritableKeyPath<Columns, Int?> & Sendable)] = [
            ("id", \.id), ("path", \.path), ("title", \.title), ("artist", \.artist), ("album", \.album),
            ("albumArtist", \.albumArtist), ("genre", \.genre), ("year", \.year), ("trackNumber", \.trackNumber),
            ("discNumber", \.discNumber), ("duration", \.duration), ("cover", \.cover), ("markerCount", \.markerCount),
            ("loopCount", \.loopCount), ("hasLyrics", \.hasLyrics), ("problem", \.problem)]

        /// Those columns, `table`'s, for a query's SELECT: only what a track is made of (not the
        /// scan's mtimes, sizes and sidecar paths), so SQLite sorts and hands over less.
        static func selected(from table: String) -> String {
            fields.map { "\(table).\($0.name)" }.joined(separator: ", ")
        }

        init(_ row: SQLiteRow) {
            for field in Self.fields { self[keyPath: field.place] = row.index(of: field.name) }
        }
    }

    init(row: SQLiteRow, columns c: Columns) {
        id = row[at: c.id]; path = row[at: c.path]
        title = row[at: c.title]; artist = row[at: c.artist]; album = row[at: c.album]; albumArtist = row[at: c.albumArtist]
        genre = row[at: c.genre]; year = row[at: c.year]; trackNumber = row[at: c.trackNumber]; discNumber = row[at: c.discNumber]
        duration = row[at: c.duration]; cover = row[at: c.cover]; markerCount = row[at: c.markerCount]; loopCount = row[at: c.loopCount]
        hasLyrics = row[at: c.hasLyrics]; problem = row[at: c.problem]
    }

    /// The tracks of a result's rows (every row of one statement has its columns in one place).
    static func all(_ rows: [SQLiteRow]) -> [LibraryTrack] {
        guard let first = rows.first else { return [] }
        let columns = Columns(first)
        return rows.map { LibraryTrack(row: $0, columns: columns) }
    }

    /// The title, else the file's name without its extension.
    public var displayTitle: String { title ?? Path.deletingExtension(Path.lastComponent(path)) }
    /// The artist, else the album's artist, else "Unknown artist".
    public var displayArtist: String { artist ?? albumArtist ?? "Unknown artist" }
    /// `3 markers, 1 loop, lyrics`: what practice knows of the track.
    public var has: String {
        var parts: [String] = []
        if markerCount > 0 { parts.append("\(markerCount) marker\(markerCount == 1 ? "" : "s")") }
        if loopCount > 0 { parts.append("\(loopCount) loop\(loopCount == 1 ? "" : "s")") }
        if hasLyrics { parts.append("lyrics") }
        return parts.joined(separator: ", ")
    }

    /// The folder the file is in.
    public var folder: String { Path.directory(path) }

    /// A format's name, by the file's extension (lower case).
    private static let formatNames = ["flac": "FLAC", "ogg": "Ogg", "oga": "Ogg", "opus": "Opus", "mp3": "MP3", "wav": "WAV",
                                      "aif": "AIFF", "aiff": "AIFF", "m4a": "M4A", "webm": "WebM"]

    /// What tells apart the tracks among `tracks` that would show alike (the same artist and
    /// title: the FLAC and the Ogg of one song): their format (`FLAC`), and where that is the same
    /// too, their folder's name as well. Keyed by path; tracks that show alone have none.
    public static func distinctions(among tracks: [LibraryTrack]) -> [String: String] {
        var groups: [String: [LibraryTrack]] = [:]
        for t in tracks { groups["\(t.displayArtist.lowercased())\u{0}\(t.displayTitle.lowercased())", default: []].append(t) }
        var out: [String: String] = [:]
        for group in groups.values where group.count > 1 {   // (a song alone needs no set of its paths)
            let paths = Set(group.map { FileName($0.path) })
            guard paths.count > 1 else { continue }
            let formats = group.map { t in
                let ext = Path.pathExtension(t.path).lowercased()
                return Self.formatNames[ext] ?? ext.uppercased()
            }
            var byFormat: [String: Set<FileName>] = [:]
            for (t, f) in zip(group, formats) { byFormat[f, default: []].insert(FileName(t.path)) }
            for (t, f) in zip(group, formats) {
                out[t.path] = byFormat[f]!.count > 1 ? "\(f), \(Path.lastComponent(t.folder))" : f
            }
        }
        return out
    }

    /// A path as the file system tells files apart: by its bytes. (A `String` is hashed and compared
    /// as Unicode text, canonical equivalents alike, and a path with accents or kana is normalised
    /// each time: telling apart the bench's 33 copies of each song hashed 20,000 that way.)
    struct FileName: Hashable {
        let path: String
        init(_ path: String) { self.path = path }
        static func == (a: FileName, b: FileName) -> Bool { a.path.utf8.elementsEqual(b.path.utf8) }
        func hash(into hasher: inout Hasher) {
            var bytes = path
            bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// The title, with what tells it apart from `distinctions` (`Drill (FLAC)`).
    public func displayTitle(_ distinctions: [String: String]) -> String {
        distinctions[path].map { "\(displayTitle) (\($0))" } ?? displayTitle
    }
}

/// Where a search found something: in a track's tags, a marker, a loop or a lyric line.
public struct LibraryHit: Sendable, Equatable {
    public enum Kind: String, Sendable { case tags, marker, loop, lyric }
    public var track: LibraryTrack
    public var kind: Kind
    /// The marker's or loop's name.
    public var name: String?
    /// The marker's or loop's name (and note), the lyric line, or the tags that matched.
    public var text: String
    /// Where in the track, for a marker, loop or lyric line.
    public var time: Double?

    public init(track: LibraryTrack, kind: Kind, name: String? = nil, text: String, time: Double? = nil) {
        self.track = track; self.kind = kind; self.name = name; self.text = text; self.time = time
    }
}

/// An album in the grid: the tracks that share an album title and album artist (or, without an
/// album artist, a folder), in disc and track order.
public struct LibraryAlbum: Sendable, Equatable {
    /// What makes it one album (title and album artist or folder): the same across rescans.
    public var key: String
    public var title: String
    public var artist: String
    public var year: Int
    public var cover: String?
    public var tracks: [LibraryTrack]
}

/// The library's index: `$XDG_CACHE_HOME/practice/library.sqlite`, an SQLite database (through
/// `SQLiteDatabase`) of the tracks under the music folders, their tags, covers, markers, loops and lyrics, and
/// a full-text index (FTS5) over all of their words. It is a cache: it can always be made again
/// from the folders, and it never writes to them.
public final class LibraryIndex: Sendable {
    public let path: String
    /// Where pictures taken from the files' tags are written (`Artwork.folder`, in the cache).
    public let covers: String
    let db: SQLiteDatabase
    static let schemaVersion = 2

    /// `$XDG_CACHE_HOME/practice/library.sqlite`.
    public static var standardPath: String { Path.appending("library.sqlite", to: XDG.cache) }

    /// Opens the index at `path`, made when missing. A file that is not such an index, or one a
    /// newer version made, is an error naming it (it is left as it is).
    public init(path: String = LibraryIndex.standardPath, covers: String = Artwork.folder) throws(PracticeError) {
        self.path = path
        self.covers = covers
        let newer: Bool
        (db, newer) = try SQLiteFile.open(path, kind: .init(name: "the library's index", notOne: "a library index", remedy: "delete it and scan again"),
                                          version: Self.schemaVersion, create: Self.create)
        if newer {
            let version = (try? db.read { try $0.value(Int.self, sql: "PRAGMA user_version") }) ?? nil
            throw PracticeError(.dataError, "\(path): made by a newer version of practice (index version \(version ?? 0)); delete it to start again with this one")
        }
    }

    static func create(_ db: SQLiteConnection) throws {
        // Version 2 adds the day's pick to an index of version 1.
        if try db.value(Int.self, sql: "PRAGMA user_version") == 1 {
            try db.execute(sql: "CREATE TABLE pick (day TEXT PRIMARY KEY, path TEXT NOT NULL); PRAGMA user_version = 2;")
            return
        }
        try db.execute(sql: """
            CREATE TABLE track (
                id INTEGER PRIMARY KEY,
                path TEXT NOT NULL UNIQUE,
                mtime REAL NOT NULL, size INTEGER NOT NULL, inode INTEGER NOT NULL,
                title TEXT, artist TEXT, album TEXT, albumArtist TEXT, genre TEXT,
                year INTEGER NOT NULL DEFAULT 0, trackNumber INTEGER NOT NULL DEFAULT 0, discNumber INTEGER NOT NULL DEFAULT 0,
                duration REAL NOT NULL DEFAULT 0,
                cover TEXT,
                sidecar TEXT, sidecarMtime REAL NOT NULL DEFAULT 0,
                lyrics TEXT, lyricsMtime REAL NOT NULL DEFAULT 0,
                markerCount INTEGER NOT NULL DEFAULT 0, loopCount INTEGER NOT NULL DEFAULT 0,
                hasLyrics INTEGER NOT NULL DEFAULT 0,
                problem TEXT
            );
            CREATE TABLE entry (
                id INTEGER PRIMARY KEY,
                trackId INTEGER NOT NULL REFERENCES track(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                name TEXT,
                text TEXT NOT NULL,
                time REAL
            );
            CREATE INDEX entryByTrack ON entry(trackId);
            CREATE VIRTUAL TABLE words USING fts5(text, tokenize='unicode61 remove_diacritics 2');
            CREATE TABLE pick (day TEXT PRIMARY KEY, path TEXT NOT NULL);
            PRAGMA user_version = 2;
            """)
    }

    // MARK: Reading

    /// Every track, by album artist, album, disc, track number and path.
    public func tracks() throws(PracticeError) -> [LibraryTrack] {
        try reading { db in
            LibraryTrack.all(try db.rows(sql: "SELECT \(LibraryTrack.Columns.selected(from: "track")) FROM track ORDER BY coalesce(albumArtist, artist, ''), coalesce(album, ''), discNumber, trackNumber, path"))
        }
    }

    /// The tracks grouped into albums, by artist then title.
    public func albums() throws(PracticeError) -> [LibraryAlbum] {
        Self.albums(of: try tracks())
    }

    /// Groups `tracks` into albums: the same album title and album artist, or without an album
    /// artist the same album title in the same folder (a compilation without album artist tags
    /// stays one album); tracks without an album tag make one album per folder, named after it.
    public static func albums(of tracks: [LibraryTrack]) -> [LibraryAlbum] {
        var order: [String] = []
        var groups: [String: [LibraryTrack]] = [:]
        for t in tracks {
            let key = t.album.map { "\($0)\u{0}\(t.albumArtist ?? t.folder)" } ?? "\u{0}\(t.folder)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(t)
        }
        var albums = order.map { key -> LibraryAlbum in
            let members = groups[key]!.sorted { ($0.discNumber, $0.trackNumber, $0.path) < ($1.discNumber, $1.trackNumber, $1.path) }
            let first = members[0]
            let artists = Set(members.map(\.displayArtist))
            let artist = first.albumArtist ?? (artists.count == 1 ? first.displayArtist : "Various artists")
            return LibraryAlbum(key: key, title: first.album ?? Path.lastComponent(first.folder), artist: artist,
                                year: members.map(\.year).max() ?? 0, cover: members.lazy.compactMap(\.cover).first, tracks: members)
        }
        albums.sort { ($0.artist.lowercased(), $0.title.lowercased()) < ($1.artist.lowercased(), $1.title.lowercased()) }
        return albums
    }

    /// The tracks and places matching `text`: every word of it (as the start of a word, accents
    /// and case ignored) in one track's tags or file name, or in one marker's or loop's name and
    /// note, or one lyric line. Best matches first, at most `limit` (nil: all).
    public func search(_ text: String, limit: Int? = nil) throws(PracticeError) -> [LibraryHit] {
        guard let query = Self.ftsQuery(text) else { return [] }
        return try reading { db in
            let rows = try db.rows(sql: """
                SELECT \(LibraryTrack.Columns.selected(from: "track")), entry.kind AS hitKind, entry.name AS hitName, entry.text AS hitText, entry.time AS hitTime
                FROM words JOIN entry ON entry.id = words.rowid JOIN track ON track.id = entry.trackId
                WHERE words MATCH ? ORDER BY words.rank, track.path, entry.time LIMIT ?
                """, arguments: [query, limit ?? -1])
            guard let first = rows.first else { return [] }
            let track = LibraryTrack.Columns(first)
            let (kind, name, text, time) = (first.index(of: "hitKind"), first.index(of: "hitName"), first.index(of: "hitText"), first.index(of: "hitTime"))
            return rows.map { row in
                LibraryHit(track: LibraryTrack(row: row, columns: track), kind: LibraryHit.Kind(rawValue: row[at: kind]) ?? .tags,
                           name: row[at: name], text: row[at: text], time: row[at: time])
            }
        }
    }

    /// `turn at` → `"turn"* "at"*`: each word a prefix, all of them needed; nil when there are no words.
    /// Quotes go by scalar: one carrying a combining mark is still a quote (left in a word, it
    /// would end the phrase early, and SQLite would refuse the query).
    static func ftsQuery(_ text: String) -> String? {
        var unquoted = String.UnicodeScalarView()
        for u in text.unicodeScalars { unquoted.append(u == "\"" ? " " : u) }
        let words = String(unquoted).split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0)\"*" }.joined(separator: " ")
    }

    /// How many tracks the index holds.
    public func count() throws(PracticeError) -> Int {
        try reading { try $0.value(Int.self, sql: "SELECT count(*) FROM track") ?? 0 }
    }

    func reading<T>(_ body: (SQLiteConnection) throws -> T) throws(PracticeError) -> T {
        do { return try db.read(body) } catch {
            throw PracticeError(.ioError, "\(path): cannot read the library's index (\(SQLiteFile.describe(error)))")
        }
    }

}
