// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeJournal
import Glibc
import PracticeAudio
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// What a scan did.
public struct ScanReport: Sendable, Equatable {
    public var found = 0
    public var added = 0
    public var updated = 0
    public var removed = 0
    /// One line each: a folder that could not be read, tags or a sidecar that could not be read.
    public var problems: [String] = []

    /// `312 tracks: 12 new, 3 changed, 1 gone`.
    public var summary: String {
        var parts: [String] = []
        if added > 0 { parts.append("\(added) new") }
        if updated > 0 { parts.append("\(updated) changed") }
        if removed > 0 { parts.append("\(removed) gone") }
        if parts.isEmpty { parts.append("nothing changed") }
        return "\(found) track\(found == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }
}

extension LibraryIndex {
    /// The kinds of file that may hold a video (whose frame is its cover when it has none).
    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm"]

    /// Brings the index up to date with `folders` (absolute paths): tracks that are new or whose
    /// file changed (time, size or inode) are read again, as are those whose sidecar or lyrics
    /// changed; tracks no longer there are dropped; everything else is left alone. `progress` is
    /// told (done, total) as files are looked at. Files are only read, never written.
    public func scan(_ folders: [String], progress: ((Int, Int) -> Void)? = nil) throws(PracticeError) -> ScanReport {
        var report = ScanReport()
        // Tracks are kept by their real paths (a music folder may be a link), as resume points are.
        let folders = folders.map { Path.resolved($0) ?? Path.normalized($0) }
        var found: [Found] = []
        var walked: Set<String> = []
        // Only what is under a folder that could be read is dropped when gone: a drive not
        // mounted today keeps its tracks in the index.
        var roots: [String] = []
        // Folders that could not be read, under a root that could: what the index has there stays.
        var unreadable: [String] = []
        for folder in folders {
            let root = Path.normalized(folder)
            var st = stat()
            guard stat(root, &st) == 0 else {
                report.problems.append("\(root): cannot read the folder (\(systemMessage()))")
                continue
            }
            guard st.st_mode & S_IFMT == S_IFDIR else {
                report.problems.append("\(root): not a folder")
                continue
            }
            Self.walk(root, into: &found, problems: &report.problems, unreadable: &unreadable, seen: &walked)
            roots.append(root)
        }
        report.found = found.count
        // Paths are compared byte for byte: "Café" in NFC and in NFD are two files, where Swift's
        // String equality would make them one.
        let known: [PathBytes: Known]
        do {
            known = try db.read { db in
                var out = [PathBytes: Known](minimumCapacity: found.count)
                for root in roots {
                    // The paths under the root, compared as bytes (SQLite's BINARY collation):
                    // from "/root/" up to, not including, "/root0" ("0" follows "/").
                    let prefix = root == "/" ? "/" : root + "/"
                    let end = String(prefix.dropLast()) + "0"
                    let rows = try db.rows(sql: "SELECT id, path, mtime, size, inode, sidecar, sidecarMtime, lyrics, lyricsMtime, cover FROM track WHERE path >= ? AND path < ?",
                                           arguments: [prefix, end])
                    // (Each column found once, then read by place in every row.)
                    guard let first = rows.first else { continue }
                    let c = ["id", "path", "mtime", "size", "inode", "sidecar", "sidecarMtime", "lyrics", "lyricsMtime", "cover"].map(first.index(of:))
                    for row in rows {
                        out[PathBytes(row[at: c[1]] as String)] = Known(id: row[at: c[0]], mtime: row[at: c[2]], size: row[at: c[3]], inode: row[at: c[4]],
                                                                        sidecar: row[at: c[5]], sidecarMtime: row[at: c[6]],
                                                                        lyrics: row[at: c[7]], lyricsMtime: row[at: c[8]], cover: row[at: c[9]])
                    }
                }
                return out
            }
        } catch {
            throw PracticeError(.ioError, "\(path): cannot read the library's index (\(SQLiteFile.describe(error)))")
        }
        var seen = Set<PathBytes>(minimumCapacity: found.count)
        var batch: [Indexed] = []
        func flush() throws(PracticeError) {
            guard !batch.isEmpty else { return }
            let items = batch
            batch.removeAll(keepingCapacity: true)
            do { try db.write { db in for item in items { try Self.store(item, in: db) } } } catch {
                throw PracticeError(.ioError, "\(path): cannot write the library's index (\(SQLiteFile.describe(error)))")
            }
        }
        for (k, f) in found.enumerated() {
            progress?(k, found.count)
            let key = PathBytes(f.path)
            seen.insert(key)
            let old = known[key]
            // A cover taken from the file's tags whose cached picture is gone (the cache cleared):
            // the file is read again, as if it had changed.
            let cached = old?.cover.map { Artwork.isStored($0, in: covers) } ?? false
            let cacheLost = cached && !FileManager.default.fileExists(atPath: old!.cover!)
            let audioSame = !cacheLost && (old.map { $0.mtime == f.mtime && $0.size == f.size && $0.inode == f.inode } ?? false)
            let notesSame = old.map { $0.sidecar == f.sidecar && $0.sidecarMtime == f.sidecarMtime && $0.lyrics == f.lyrics && $0.lyricsMtime == f.lyricsMtime } ?? false
            // A cover embedded in the file stays; one from the folder follows the folder's images.
            let embedded = cached && !cacheLost
            let coverSame = embedded || old?.cover == f.folderCover
            if audioSame, notesSame, coverSame { continue }
            var item = Indexed(found: f, keepTags: audioSame)
            if !audioSame {
                // Without TagLib's shim nothing is read, and the scan stops here (exit 69).
                try TagLibShim.require()
                item.readTags(problems: &report.problems, covers: covers)
            } else { item.cover = embedded ? old?.cover : f.folderCover }
            item.readNotes(problems: &report.problems)
            if old == nil { report.added += 1 } else { report.updated += 1 }
            batch.append(item)
            if batch.count >= 256 { try flush() }
        }
        try flush()
        progress?(found.count, found.count)
        let kept = unreadable.map { Array(($0 == "/" ? "/" : $0 + "/").utf8) }
        let gone = known.filter { entry in !seen.contains(entry.key) && !kept.contains { entry.key.bytes.starts(with: $0) } }.map(\.value.id)
        if !gone.isEmpty {
            do {
                try db.write { db in
                    for id in gone {
                        try db.execute(sql: "DELETE FROM words WHERE rowid IN (SELECT id FROM entry WHERE trackId = ?)", arguments: [id])
                        try db.execute(sql: "DELETE FROM entry WHERE trackId = ?", arguments: [id])
                        try db.execute(sql: "DELETE FROM track WHERE id = ?", arguments: [id])
                    }
                }
            } catch {
                throw PracticeError(.ioError, "\(path): cannot write the library's index (\(SQLiteFile.describe(error)))")
            }
            report.removed = gone.count
        }
        return report
    }

    /// A file found under the folders, with the files beside it that go with it.
    struct Found {
        var path: String
        var mtime: Double
        var size: Int64
        var inode: Int64
        var sidecar: String?
        var sidecarMtime: Double = 0
        var lyrics: String?
        var lyricsMtime: Double = 0
        var folderCover: String?
    }

    struct Known {
        var id: Int64, mtime: Double, size: Int64, inode: Int64
        var sidecar: String?, sidecarMtime: Double, lyrics: String?, lyricsMtime: Double, cover: String?
    }

    /// A path or a name as the file system has it, compared by its bytes ("Café" in NFC and in
    /// NFD are two files, where Swift's String equality would make them one), and hashed in one
    /// call (an array of bytes is hashed byte by byte: a tenth of a rescan of 10,000 tracks).
    struct PathBytes: Hashable {
        let bytes: [UInt8]
        init(_ path: String) { bytes = Array(path.utf8) }
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    /// Every audio file under `folder`, depth first in name order. Hidden files and folders are
    /// skipped; a folder reached twice (through a link) is walked once. Each name is looked up
    /// in the open folder (`fstatat`, one component, not the whole path again), and only what may
    /// be a track is: the folder's listing says which names are folders and which plain files
    /// (a plain file named like no track, a cover or a sidecar, needs no look), and a link or a
    /// name of a kind it does not say is looked up to see what it reaches.
    static func walk(_ folder: String, into found: inout [Found], problems: inout [String], unreadable: inout [String], seen: inout Set<String>) {
        var st = stat()
        guard stat(folder, &st) == 0 else { return }
        guard seen.insert("\(st.st_dev):\(st.st_ino)").inserted else { return }
        guard let dir = opendir(folder) else {
            problems.append("\(folder): cannot read the folder (\(systemMessage()))")
            unreadable.append(folder)
            return
        }
        let fd = dirfd(dir)
        var entries: [(name: String, type: UInt8)] = []
        while let entry = readdir(dir) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                // A name in another encoding (an old Latin-1 rip) cannot be told apart from others
                // once decoded: said, not indexed, and nothing under it counts as gone.
                let shown = String(decoding: bytes, as: UTF8.self)
                problems.append("\(folder)/\(shown): the name is not UTF-8; not indexed (rename it)")
                unreadable.append(folder)
                continue
            }
            if !name.hasPrefix(".") { entries.append((name, entry.pointee.d_type)) }
        }
        entries.sort { $0.name < $1.name }
        let names = entries.map(\.name)
        // The sidecars and lyrics here, by bytes, as the file system names them (a name is taken
        // by its bytes' ending: to String's hasSuffix, which compares characters, "\u{600}.lrc"
        // does not end in ".lrc").
        func endsIn(_ name: String, _ suffix: String) -> Bool { name.utf8.reversed().starts(with: suffix.utf8.reversed()) }
        let notes = Set(names.filter { endsIn($0, SidecarStore.suffix) || endsIn($0, ".lrc") }.map(PathBytes.init))
        func exists(_ name: String) -> Bool { !notes.isEmpty && notes.contains(PathBytes(name)) }
        let cover = CoverArt.best(among: names).map { folder + "/" + $0 }
        // Sidecars named after another copy of a song (song.flac.practice.json beside song.mp3), by
        // the song's name without extension: found once per folder, not once per file.
        var otherCopies: [PathBytes: [String]] = [:]
        for n in names where n.hasSuffix(SidecarStore.suffix) {
            let base = String(n.dropLast(SidecarStore.suffix.count))
            let stem = Path.deletingExtension(base)
            if stem != base { otherCopies[PathBytes(stem), default: []].append(n) }
        }
        /// When `name` in this folder was last changed (0 when it cannot be looked up).
        func modified(_ name: String) -> Double {
            var st = stat()
            return fstatat(fd, name, &st, 0) == 0 ? st.st_mtim.seconds : 0
        }
        var subfolders: [String] = []
        for (name, type) in entries {
            let full = folder == "/" ? "/" + name : folder + "/" + name
            if type == UInt8(DT_DIR) { subfolders.append(full); continue }
            let isTrackName = Track.fileExtensions.contains(Path.pathExtension(name).lowercased())
            if type == UInt8(DT_REG) && !isTrackName { continue }
            // (A link is followed: a link to a folder is walked, one to a track is a track.)
            guard fstatat(fd, name, &st, 0) == 0 else { continue }
            if st.st_mode & S_IFMT == S_IFDIR { subfolders.append(full); continue }
            guard st.st_mode & S_IFMT == S_IFREG, isTrackName else { continue }
            var f = Found(path: full, mtime: st.st_mtim.seconds,
                          size: Int64(st.st_size), inode: Int64(bitPattern: UInt64(st.st_ino)), folderCover: cover)
            // The sidecar and lyrics the player would read: song.mp3.practice.json, else song.practice.json, …
            let stem = Path.deletingExtension(name)
            let sidecars = [name + SidecarStore.suffix, stem + SidecarStore.suffix]
                + (otherCopies[PathBytes(stem)] ?? []).filter { $0 != name + SidecarStore.suffix }
            if let s = sidecars.first(where: exists) {
                f.sidecar = folder + "/" + s
                f.sidecarMtime = modified(s)
            }
            if let l = [name + ".lrc", stem + ".lrc"].first(where: exists) {
                f.lyrics = folder + "/" + l
                f.lyricsMtime = modified(l)
            }
            found.append(f)
        }
        closedir(dir)
        for sub in subfolders { walk(sub, into: &found, problems: &problems, unreadable: &unreadable, seen: &seen) }
    }

    /// A track as it goes into the index.
    struct Indexed {
        var found: Found
        /// The file itself did not change: only its sidecar or lyrics are read again.
        var keepTags: Bool
        var tags = TrackTags()
        var cover: String?
        var problem: String?
        var entries: [(kind: LibraryHit.Kind, name: String?, text: String, time: Double?)] = []
        var markerCount = 0, loopCount = 0, hasLyrics = false

        mutating func readTags(problems: inout [String], covers: String) {
            do {
                if let read = try TrackTags.read(found.path) {
                    tags = read
                } else {
                    // What TagLib does not read (Matroska, WebM, AC-3): the container's own tags
                    // and length, from FFmpeg.
                    let file = try SoundFile(path: found.path)
                    let t = file.tags
                    tags.title = t["title"]; tags.artist = t["artist"]; tags.album = t["album"]; tags.genre = t["genre"]
                    tags.year = t["date"].flatMap { Int($0.prefix(4)) } ?? 0
                    tags.track = t["tracknumber"].flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
                    tags.duration = file.info.seconds
                }
            } catch let error as AudioFileError {
                problem = "cannot be decoded (\(error.message))"
                problems.append("\(found.path): \(problem!)")
            } catch {
                problem = "TagLib cannot read its tags"
                problems.append("\(found.path): \(problem!)")
            }
            // A video with no cover in its tags: a frame a tenth of the way in.
            if tags.cover == nil, problem == nil, LibraryIndex.videoExtensions.contains(Path.pathExtension(found.path).lowercased()) {
                tags.cover = VideoFrame.jpeg(of: found.path).map { EmbeddedPicture(bytes: $0, mime: "image/jpeg") }
            }
            if let picture = tags.cover { cover = Artwork.store(picture, in: covers) }
            tags.cover = nil
            if cover == nil { cover = found.folderCover }
        }

        mutating func readNotes(problems: inout [String]) {
            if let path = found.sidecar {
                do {
                    let sidecar = try SidecarStore.read(path)
                    for m in sidecar.liveMarkers {
                        entries.append((.marker, m.name, [m.name, m.note].compactMap { $0 }.joined(separator: " — "), m.time))
                    }
                    let ends = sidecar.loopEnds
                    for l in sidecar.liveLoops {
                        entries.append((.loop, l.name, [l.name, l.note].compactMap { $0 }.joined(separator: " — "), ends.time(of: l.start)))
                    }
                    markerCount = sidecar.liveMarkers.count
                    loopCount = sidecar.liveLoops.count
                } catch {
                    problems.append(error.message)
                    if problem == nil { problem = "its sidecar cannot be read" }
                }
            }
            if let path = found.lyrics, let (lyrics, _) = try? LyricsFile.load(path) {
                hasLyrics = !lyrics.lines.isEmpty
                for line in lyrics.lines where !line.text.allSatisfy(\.isBlank) { entries.append((.lyric, nil, line.text, line.time)) }
            }
        }
    }

    static func store(_ item: Indexed, in db: SQLiteConnection) throws {
        let f = item.found
        // The row is found by its path again, inside this write: another scan (another player)
        // may have added the file, or dropped it, since this one read the index.
        var row = try db.value(Int64.self, sql: "SELECT id FROM track WHERE path = ?", arguments: [f.path])
        if row == nil {
            guard !item.keepTags else { return }   // dropped meanwhile: the next scan reads it whole
            try db.execute(sql: "INSERT INTO track (path, mtime, size, inode) VALUES (?, 0, 0, 0)", arguments: [f.path])
            row = db.lastInsertedRowID
        }
        let id = row!
        // The tags' words stay when only the sidecar or lyrics changed.
        let which = item.keepTags ? "trackId = ? AND kind != 'tags'" : "trackId = ?"
        try db.execute(sql: "DELETE FROM words WHERE rowid IN (SELECT id FROM entry WHERE \(which))", arguments: [id])
        try db.execute(sql: "DELETE FROM entry WHERE \(which)", arguments: [id])
        if item.keepTags {
            try db.execute(sql: """
                UPDATE track SET sidecar = ?, sidecarMtime = ?, lyrics = ?, lyricsMtime = ?, markerCount = ?, loopCount = ?,
                hasLyrics = ?, cover = ? WHERE id = ?
                """, arguments: [f.sidecar, f.sidecarMtime, f.lyrics, f.lyricsMtime, item.markerCount, item.loopCount, item.hasLyrics,
                                 item.cover, id])
            try db.execute(sql: "UPDATE track SET problem = ? WHERE id = ? AND (problem IS NULL OR problem = 'its sidecar cannot be read')",
                           arguments: [item.problem, id])
        }
        if !item.keepTags {
            let t = item.tags
            try db.execute(sql: """
                UPDATE track SET mtime = ?, size = ?, inode = ?, title = ?, artist = ?, album = ?, albumArtist = ?, genre = ?,
                year = ?, trackNumber = ?, discNumber = ?, duration = ?, cover = ?, sidecar = ?, sidecarMtime = ?, lyrics = ?,
                lyricsMtime = ?, markerCount = ?, loopCount = ?, hasLyrics = ?, problem = ? WHERE id = ?
                """, arguments: [f.mtime, f.size, f.inode, t.title, t.artist, t.album, t.albumArtist, t.genre, t.year, t.track, t.disc,
                                 t.duration, item.cover, f.sidecar, f.sidecarMtime, f.lyrics, f.lyricsMtime, item.markerCount,
                                 item.loopCount, item.hasLyrics, item.problem, id])
        }
        // The words of the tags (and the file's name) are one entry; each marker, loop and lyric line another.
        var words = item.entries
        if !item.keepTags {
            let t = item.tags
            let tagText = [t.title, t.artist, t.album, t.albumArtist, t.genre, t.year > 0 ? String(t.year) : nil,
                           Path.deletingExtension(Path.lastComponent(f.path))].compactMap { $0 }.joined(separator: " · ")
            words.insert((.tags, nil, tagText, nil), at: 0)
        }
        for (kind, name, text, time) in words {
            try db.execute(sql: "INSERT INTO entry (trackId, kind, name, text, time) VALUES (?, ?, ?, ?, ?)", arguments: [id, kind.rawValue, name, text, time])
            try db.execute(sql: "INSERT INTO words (rowid, text) VALUES (?, ?)", arguments: [db.lastInsertedRowID, text])
        }
    }
}
