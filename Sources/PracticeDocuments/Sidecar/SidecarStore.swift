// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import Synchronization
import PracticeSystem

/// Writes a file so that readers see either the old or the new contents, never a part.
public enum AtomicFile {
    /// `write`, into a folder of the user's own (0700) made first if it is missing: the state
    /// files kept under `$XDG_STATE_HOME/practice`.
    public static func write(_ data: Data, toPrivateFolder path: String) throws(PracticeError) {
        try write(data, to: path, makingFolder: 0o700)
    }

    /// `write`, its folder (and those above it) made first with `mode` if missing.
    public static func write(_ data: Data, to path: String, makingFolder mode: mode_t) throws(PracticeError) {
        let folder = Path.directory(path)
        guard FileSystem.makeFolders(folder, mode: mode) else {
            throw PracticeError(.cannotCreate, "\(folder): cannot make the folder (\(systemMessage()))")
        }
        try write(data, to: path)
    }

    /// Writes `data` to a temporary file in the same folder, flushes it to disk, gives it the mode
    /// of the file it replaces (0644 for a new one), renames it over `path` and flushes the folder.
    public static func write(_ data: Data, to path: String) throws(PracticeError) {
        let temporary = "\(Path.folder(of: path))/.\(Path.lastComponent(path)).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var mode: mode_t = 0o644
        var st = stat()
        if stat(path, &st) == 0 { mode = st.st_mode & 0o7777 }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw PracticeError(.cannotCreate, "\(path): cannot write: \(systemMessage())") }
        FaultPoint.reach("atomic-created")
        func fail(_ what: String) -> PracticeError {
            let reason = systemMessage()
            close(fd)
            unlink(temporary)
            return PracticeError(.ioError, "\(path): \(what) failed: \(reason); the file is unchanged")
        }
        let ok = data.withUnsafeBytes { raw -> Bool in
            // In two halves, so that a fault test can stop the process between them.
            var done = 0
            for end in [raw.count / 2, raw.count] {
                while done < end {
                    let n = Glibc.write(fd, raw.baseAddress! + done, end - done)
                    if n < 0 { if errno == EINTR { continue }; return false }
                    done += n
                }
                if end < raw.count { FaultPoint.reach("atomic-half") }
            }
            return true
        }
        guard ok else { throw fail("writing") }
        fchmod(fd, mode)   // the umask may have narrowed it
        close(fd)
        FaultPoint.reach("atomic-written")
        switch commit(temporary, to: path) {
        case nil: return
        case .flush(let reason)?: throw PracticeError(.ioError, "\(path): fsync failed: \(reason); the file is unchanged")
        case .rename(let reason)?: throw PracticeError(.cannotCreate, "\(path): cannot write: \(reason)")
        }
    }

    /// Why `commit` failed, with the system's reason.
    public enum CommitFailure { case flush(String), rename(String) }

    /// Puts `temporary`, a finished file in the folder of `path`, under `path`: flushed to disk
    /// first (a crash never leaves a part under that name, and a write that fails only now is not
    /// renamed into place), renamed, then the folder flushed. On failure the temporary is removed.
    public static func commit(_ temporary: String, to path: String) -> CommitFailure? {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = systemMessage()
            if fd >= 0 { close(fd) }
            unlink(temporary)
            return .flush(reason)
        }
        close(fd)
        FaultPoint.reach("commit-flushed")
        guard rename(temporary, path) == 0 else {
            let reason = systemMessage()
            unlink(temporary)
            return .rename(reason)
        }
        FaultPoint.reach("commit-renamed")
        let dir = open(Path.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
        return nil
    }
}

extension AtomicFile {
    /// Removes temporary files that writers of `path` left when they were killed part-way
    /// (`.NAME.tmp-PID-…` whose process is gone). Call it holding the folder's lock.
    static func removeLeftovers(of path: String) {
        let prefix = ".\(Path.lastComponent(path)).tmp-"
        removeAbandoned(in: Path.folder(of: path)) { name in
            name.hasPrefix(prefix) ? Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }) : nil
        }
    }

    /// Removes the entries of `folder` (files or folders) whose `owner` is a process that is gone:
    /// what a writer killed mid-write left behind.
    public static func removeAbandoned(in folder: String, owner: (String) -> pid_t?) {
        for name in FileSystem.names(in: folder) ?? [] {
            guard let pid = owner(name), pid != getpid(), !Spawning.isRunning(pid) else { continue }
            try? FileManager.default.removeItem(atPath: "\(folder)/\(name)")
        }
    }

}

/// A sidecar found for a track: where it was read from, where edits go, and what to tell the user.
public struct LoadedSidecar: Sendable {
    /// The file read; nil if the track has none yet.
    public var readPath: String?
    /// Where changes are written: the file given with `--markers`, else `<audio file>.practice.json`.
    public var writePath: String
    public var sidecar: Sidecar
    /// Things the user should know (identity mismatch, a newer version, a sibling's file): one line each.
    public var warnings: [String] = []
    /// Things done that the user should hear of (markers moved to match this copy): one line each.
    public var notices: [String] = []
    /// How the markers were moved onto this copy, said or not: a command says it in `notices` the
    /// first time a copy is lined up only; a screen says it at its start.
    public var alignment: String?
    /// Written by a newer practice: shown, never rewritten.
    public var isReadOnly: Bool { sidecar.version > Sidecar.currentVersion }
    /// Set when the sidecar was made on another copy of the song and its times were moved onto
    /// this one (`sidecar` then holds this copy's times).
    public var placement: Placement?

    /// A sidecar's times moved from the copy it was made on onto this one.
    public struct Placement: Sendable {
        public var map: TimeMap
        /// The sidecar as read: its times on the copy it was made on.
        public var reference: Sidecar
        /// The live markers (ids) whose audio this copy does not have: put where the cut is.
        public var missing: [String]
    }
}

/// Finds, reads and atomically updates sidecars (`Formats/practice-sidecar.md`).
public enum SidecarStore {
    public static let suffix = ".practice.json"

    /// Whether a sidecar made on another copy of the song is lined up with the track in hand
    /// (`--no-align` turns it off for the process).
    private static let aligning = Atomic<Bool>(true)
    public static var aligns: Bool {
        get { aligning.load(ordering: .relaxed) }
        set { aligning.store(newValue, ordering: .relaxed) }
    }

    /// `song.mp3` → `song.mp3.practice.json`.
    public static func ownPath(forAudio path: String) -> String { path + suffix }

    /// Sidecars written for other encodings of the same song, in the order they are tried:
    /// `song.practice.json`, then `song.<ext>.practice.json` for any other extension, by name.
    public static func siblingPaths(forAudio path: String) -> [String] {
        let name = Path.lastComponent(path)
        let stem = Path.deletingExtension(name)
        guard !stem.isEmpty else { return [] }
        // (On the strings: a relative path gives relative siblings, in the same folder.)
        var out = [Path.sibling(stem + suffix, of: path)]
        let own = name + suffix
        // Only the sidecars, then sorted: a folder of thousands of songs holds a few. The names'
        // bytes end with the suffix; `hasSuffix` asks it again of the characters, which `dropLast`
        // counts (a character that joins the one after it, as U+0600 does, would take the dot).
        let names = FileSystem.names(in: Path.folder(of: path), endingWith: suffix) ?? []
        for name in names.filter({ $0 != own && $0.hasPrefix(stem + ".") && $0.hasSuffix(suffix) }).sorted() {
            let middle = name.dropFirst(stem.count + 1).dropLast(suffix.count)
            if !middle.isEmpty, !middle.contains(".") { out.append(Path.sibling(name, of: path)) }
        }
        return out
    }

    /// Reads and checks one sidecar file. An unreadable or invalid file is an error that names it
    /// (with line and column for JSON syntax); it is never rewritten.
    public static func read(_ path: String) throws(PracticeError) -> Sidecar {
        let data = try ReadableFile.contents(of: path)
        do {
            return try Sidecar.decode(data)
        } catch {
            throw located(error, in: data, path: path)
        }
    }

    /// `path:12:15: markers[3].time is …`: the error at the line and column of the field it is about.
    static func located(_ error: SidecarFormatError, in data: Data, path: String) -> PracticeError {
        var e = error
        if e.line == nil, !e.field.isEmpty, let at = JSONValue.location(of: e.field, in: data) { (e.line, e.column) = (at.line, at.column) }
        let place = e.line.map { ":\($0):\(e.column ?? 1)" } ?? ""
        let field = e.field.isEmpty ? "" : " \(e.field)"
        return PracticeError(.dataError, "\(path)\(place):\(field) \(e.message)")
    }

    /// Marker times past the track's end by more than `slack` (another copy of the song may be a
    /// little shorter) are an error at their line and column: the file is not used, nor rewritten.
    static let slack = 1.0

    static func checkTimes(_ sidecar: Sidecar, for track: some SidecarTrack, path: String) throws(PracticeError) {
        // Times belong to the copy the sidecar was made on: a longer one (this copy a radio
        // edit, say) may have markers past this copy's end, which alignment deals with.
        let end = max(track.duration, sidecar.audio?.duration ?? 0)
        for (k, m) in sidecar.markers.enumerated() where !m.deleted && m.time > end + slack {
            let data = Data(ReadableFile.wholeFile(path) ?? [])
            let which = end > track.duration ? "the end of the recording it was made for" : "the end of \(track.path)"
            throw located(SidecarFormatError(field: "markers[\(k)].time",
                                             message: "is \(JSONValue.formatMilliseconds(m.time)) s, past \(which) (\(Timecode.format(end, decimals: 3)))"),
                          in: data, path: path)
        }
    }

    /// Where a track's markers go when its folder cannot be written (a read-only folder, a shared
    /// drive): `$XDG_DATA_HOME/practice/sidecars/<file name>.<16 hex digits>.practice.json`, the
    /// digits from the decoded audio's SHA-256, so that any copy of the song in a folder that
    /// cannot be written finds it again, whatever it is called.
    public static func fallbackPath(for identity: TrackIdentity) -> String {
        let key = "." + identity.pcm.sha256.prefix(16) + suffix
        let folder = Path.appending("sidecars", to: XDG.data)
        let names = FileSystem.names(in: folder, endingWith: suffix) ?? []
        if let known = names.filter({ $0.hasSuffix(key) && !$0.hasPrefix(".") }).min() { return folder + "/" + known }
        return folder + "/" + identity.fileName + key
    }

    /// Whether files can be created in the folder that holds `path`.
    static func folderIsWritable(_ path: String) -> Bool {
        access(Path.folder(of: path), W_OK) == 0
    }

    /// Where edits of the track's markers are written: `explicit`, else beside the audio, else
    /// (a folder that cannot be written) the fallback under `$XDG_DATA_HOME`.
    static func writePath(for track: some SidecarTrack, explicit: String?) throws(PracticeError) -> String {
        if let explicit { return explicit }
        let own = ownPath(forAudio: track.path)
        return folderIsWritable(own) ? own : fallbackPath(for: try track.identity())
    }

    /// Finds the track's sidecar (its own, a sibling's, or `explicit`), reads it and checks that it
    /// was made for this recording. A track without one (or an `explicit` file that does not exist
    /// yet) gets an empty sidecar. Where the track's folder cannot be written, the markers live in
    /// the fallback (`fallbackPath`), which takes in the file beside the audio (a crew's shared
    /// sidecar) each time it is read, so nothing from either side is lost.
    public static func load(for track: some SidecarTrack, explicit: String? = nil) throws(PracticeError) -> LoadedSidecar {
        let own = ownPath(forAudio: track.path)
        let writePath = try self.writePath(for: track, explicit: explicit)
        var besidePath: String?
        if let explicit {
            besidePath = FileSystem.exists(explicit) ? explicit : nil
        } else if FileSystem.exists(own) {
            besidePath = own
        } else {
            besidePath = siblingPaths(forAudio: track.path).first(where: FileSystem.exists)
        }
        // A song renamed (`mv song.ogg "Song (dance edit).ogg"`): a sidecar in the folder whose
        // song is gone, made for this very recording, is this song's. Only when there are such
        // orphans is the track's identity needed (decoded once, then kept in the cache).
        var renamedFrom: String?
        if explicit == nil, besidePath == nil, let orphan = try renamedSidecar(for: track) {
            besidePath = orphan
            renamedFrom = orphan
        }
        let fallback = explicit == nil && writePath != own
        let fallbackExists = fallback && FileSystem.exists(writePath)
        guard let readPath = fallbackExists ? writePath : besidePath else {
            var loaded = LoadedSidecar(readPath: nil, writePath: writePath, sidecar: Sidecar())
            if fallback { loaded.warnings.append(fallbackNotice(for: track, at: writePath)) }
            if let explicit { loaded.warnings.append(notYet(explicit)) }
            return loaded
        }
        var sidecar = try read(readPath)
        try checkTimes(sidecar, for: track, path: readPath)
        var loaded = LoadedSidecar(readPath: readPath, writePath: writePath, sidecar: sidecar)
        if let renamedFrom {
            loaded.notices.append("using \(renamedFrom), made for this recording under another name (\(sidecar.audio?.fileName ?? "?")); edits go there")
        }
        if fallbackExists, let besidePath {
            // The crew's file beside the song: taken in when it can be; when not, your markers
            // still show, and you are told why theirs do not.
            do throws(PracticeError) {
                let shared = try read(besidePath)
                try checkTimes(shared, for: track, path: besidePath)
                if shared.version <= Sidecar.currentVersion {
                    _ = sidecar.merge(shared)
                    loaded.sidecar = sidecar
                } else {
                    loaded.warnings.append("\(besidePath) was written by a newer practice (format version \(shared.version)); its markers are not shown with yours")
                }
            } catch {
                loaded.warnings.append("\(error.message); showing your markers without that file's")
            }
        }
        if sidecar.version > Sidecar.currentVersion {
            loaded.warnings.append("\(readPath) was written by a newer practice (format version \(sidecar.version)); showing what this version understands, read-only")
        }
        let linedUp = try lineUp(sidecar, readFrom: readPath, on: track)
        loaded.sidecar = linedUp.sidecar
        loaded.placement = linedUp.placement
        loaded.warnings += linedUp.warnings
        loaded.notices += linedUp.notices
        loaded.alignment = linedUp.alignment
        // The only sidecar beside the song is another copy's (the crew's `song.ogg.practice.json`
        // beside your `song.mp3`) or a renamed song's: edits go into it, moved onto its timeline
        // where it was lined up, so the shared file is not forked. Not where it could not be
        // lined up (its times are another recording's), nor where it cannot be written.
        if explicit == nil, !fallback, readPath == besidePath, readPath != own, isWritable(readPath),
           linedUp.placement != nil || sidecar.audio.map({ (try? track.identity()).map($0.differences) == .some(nil) }) ?? true {
            loaded.writePath = readPath
        }
        if fallback && !fallbackExists {
            loaded.warnings.append(fallbackNotice(for: track, at: writePath))
        } else if readPath != loaded.writePath {
            loaded.warnings.append("using \(readPath) (made for another file of the same song); changes go to \(loaded.writePath)")
        }
        return loaded
    }

    /// A sidecar (read from `path`) on `track`: as it is when it was made for this recording (or
    /// says nothing of one); moved onto it when it was made on another copy that lines up (with a
    /// notice of what moved); as it is with a warning saying why when it does not line up, has no
    /// fingerprint, or `aligns` is off.
    public static func lineUp(_ sidecar: Sidecar, readFrom path: String, on track: some SidecarTrack) throws(PracticeError) -> LinedUp {
        var out = LinedUp(sidecar: sidecar)
        guard let recorded = sidecar.audio else { return out }
        let here = try track.identity()
        guard let diff = recorded.differences(from: here) else { return out }
        let made = "\(path) was made for \(recorded.fileName == here.fileName ? "another recording of \(recorded.fileName)" : recorded.fileName): \(diff)"
        guard aligns else {
            out.warnings = ["\(made); not lined up with this copy (--no-align): times may be off"]
            return out
        }
        guard recorded.chromaprint != nil else {
            out.warnings = ["\(made); it has no fingerprint to line it up with this copy by: times may be off"]
            return out
        }
        let found = try track.alignment(to: recorded)
        guard let map = found, map.isConfident else {
            out.warnings = ["\(made); it does not line up with this copy (\(found?.verdict ?? "no match")), so times are as made there and may be off"]
            return out
        }
        let (placed, missing) = sidecar.placed(by: map)
        out.sidecar = placed
        out.placement = LoadedSidecar.Placement(map: map, reference: sidecar, missing: missing)
        // Said when this copy is first lined up, not at every command after (the map is kept).
        out.alignment = placedNotice(map, placed: placed, missing: missing)
        out.notices = map.kept ? [] : [out.alignment!]
        return out
    }

    /// A sidecar on a track (`lineUp`): its times on this copy, how they were moved, and what to say.
    public struct LinedUp: Sendable {
        public var sidecar: Sidecar
        public var placement: LoadedSidecar.Placement?
        public var warnings: [String] = []
        public var notices: [String] = []
        /// How the times were moved (in `notices` too unless the map was kept from an earlier open).
        public var alignment: String?
    }

    /// "markers moved +1.250 s to match this recording (match 96 %)", and which are in audio this copy lacks.
    public static func placedNotice(_ map: TimeMap, placed: Sidecar, missing: [String], whose: String = "markers", match: String = "this recording") -> String {
        var line = map.isIdentity ? "\(whose) line up with \(match) (\(map.score))"
                                  : "\(whose) moved \(map.summary) to match \(match) (\(map.score))"
        if !missing.isEmpty {
            let names = placed.markers.filter { missing.contains($0.id) }.map { "'\($0.name)'" }
            line += "; not in this copy: \(names.joined(separator: ", "))"
        }
        return line
    }

    /// Whether we may write the file at `path`: the system allows it, and its mode says it may be
    /// written (a file made read-only by its owner stays so, even for root).
    static func isWritable(_ path: String) -> Bool {
        var st = stat()
        return access(path, W_OK) == 0 && stat(path, &st) == 0 && st.st_mode & 0o222 != 0
    }

    /// The sidecar in the track's folder whose song is gone (no file of its name) and that was
    /// made for this recording (the same decoded audio), if there is one: the track was renamed.
    static func renamedSidecar(for track: some SidecarTrack) throws(PracticeError) -> String? {
        // (`hasSuffix` again on the characters, which `dropLast` counts: see `siblingPaths`.)
        let names = FileSystem.names(in: Path.folder(of: track.path), endingWith: suffix) ?? []
        let orphans = names.filter { name in
            name.hasSuffix(suffix) && !name.hasPrefix(".") && name.count > suffix.count
                && !FileSystem.exists(Path.sibling(String(name.dropLast(suffix.count)), of: track.path))
        }.sorted().map { Path.sibling($0, of: track.path) }
        guard !orphans.isEmpty else { return nil }
        let here = try track.identity()
        return orphans.first { path in
            guard let s = try? read(path), let audio = s.audio else { return false }
            return audio.pcm.sha256 == here.pcm.sha256
        }
    }

    /// A `--markers PATH` that does not exist: a typo, or a new sidecar to start.
    static func notYet(_ path: String) -> String { "\(path) does not exist yet: it is created at the first edit" }

    /// Said until the fallback sidecar exists (so, once: at the first edit it does).
    static func fallbackNotice(for track: some SidecarTrack, at path: String) -> String {
        let folder = Path.directory(track.path)
        return "\(folder.isEmpty ? "this folder" : folder) cannot be written: markers for \(Path.lastComponent(track.path)) are kept in \(path)"
    }

    /// Locks the sidecar's folder, reads the sidecar afresh, applies `edit` and writes the result
    /// atomically, so two processes editing at once lose nothing. Nothing is written when `edit`
    /// throws or leaves the sidecar as it was.
    @discardableResult
    public static func update<R>(for track: some SidecarTrack, explicit: String? = nil,
                                 _ edit: (inout Sidecar) throws(PracticeError) -> R) throws(PracticeError) -> (result: R, loaded: LoadedSidecar) {
        let identity = try track.identity()       // outside the lock: decoding takes a while
        let lockPath = try self.writePath(for: track, explicit: explicit)
        if explicit == nil, lockPath != ownPath(forAudio: track.path) {
            guard FileSystem.makeFolders(Path.directory(lockPath)) else {
                throw PracticeError(.cannotCreate, "\(Path.directory(lockPath)): cannot create the folder for markers of songs in read-only folders: \(systemMessage())")
            }
        }
        let lock = try FolderLock(for: lockPath)
        defer { lock.release() }
        FaultPoint.reach("sidecar-locked")
        var loaded = try load(for: track, explicit: explicit)
        // Where the edit goes: beside the song (its own file, or the one other copy's it shares;
        // the same folder, under the same lock), else `explicit` or the fallback.
        let writePath = loaded.writePath
        AtomicFile.removeLeftovers(of: writePath)
        if let explicit { loaded.warnings.removeAll { $0 == notYet(explicit) } }   // this edit creates it
        if loaded.isReadOnly {
            throw PracticeError(.dataError, "\(loaded.readPath ?? writePath): written by a newer practice (format version \(loaded.sidecar.version)); not changed")
        }
        let before = loaded.sidecar
        var sidecar = before
        // A sidecar lined up from another copy keeps that copy's identity: its times stay there.
        if sidecar.audio == nil || loaded.placement == nil && loaded.readPath != loaded.writePath && explicit == nil { sidecar.audio = identity }
        let result = try edit(&sidecar)
        if sidecar != before || loaded.readPath == nil || loaded.readPath != writePath {
            // Edits made on this copy go back onto the timeline of the copy the sidecar was made on.
            var written = sidecar
            // (An edit that gives the sidecar another identity puts it on this copy's timeline.)
            if let placement = loaded.placement, sidecar.audio == before.audio {
                written = placement.reference.unplaced(sidecar, placed: before, by: placement.map)
            }
            // Never write what we could not read back.
            let data = written.encoded()
            do { LeftForExit.process.keep(try Sidecar.decode(data)) } catch {
                throw PracticeError(.software, "\(writePath): not changed: the new version would not read back (\(error.field) \(error.message))")
            }
            try AtomicFile.write(data, to: writePath)
            LeftForExit.process.keep(written)
        }
        loaded.sidecar = sidecar
        // A one-shot command's process frees none of these one by one (LeftForExit).
        LeftForExit.process.keep(before)
        return (result, loaded)
    }
}

/// An exclusive `flock` on the folder that holds a file, so that read-modify-write cycles of
/// sidecars in that folder take turns. (Locking the file itself would not do: each write renames
/// a new file over it.)
struct FolderLock {
    private let fd: Int32

    init(for path: String) throws(PracticeError) {
        fd = open(Path.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw PracticeError(.cannotCreate, "\(path): cannot open its folder: \(systemMessage())") }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let reason = systemMessage()
            close(fd)
            throw PracticeError(.ioError, "\(path): cannot lock its folder: \(reason)")
        }
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
