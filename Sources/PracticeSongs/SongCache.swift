// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// A FLO song in the cache, `$XDG_CACHE_HOME/practice/songs/<key>/`: the document as `song.json`,
/// the audio under its own name, the lyrics as `<audio name>.lrc`, the cover under its own name,
/// and `cached.json` saying which file is which.
public struct CachedSong: Sendable {
    public var folder: String
    public var document: SongDocument
    /// Paths of the files in `folder`.
    public var audio: String
    public var lyrics: String?
    public var cover: String?
    /// Whether it came from the cache rather than a fetch.
    public var fromCache: Bool
    /// What went wrong without stopping the song (a cover that could not be fetched).
    public var warnings: [String] = []
}

/// Fetches FLO songs into the cache and finds them there. A song's folder is assembled in a
/// temporary folder beside it and renamed into place only when complete, so a failure leaves
/// nothing behind (the temporary folder is removed; one left by a killed process is removed by
/// the next `open`).
public enum SongCache {
    /// `$XDG_CACHE_HOME/practice/songs` (`~/.cache/practice/songs`).
    public static var root: String { Path.appending("songs", to: XDG.cache) }

    /// The folder name for a document: the first 16 hex digits of SHA-256 of its absolute URL.
    public static func key(for location: SongLocation) -> String {
        String(SHA256.hash(data: Data(location.url.absoluteString.utf8)).hex.prefix(16))
    }

    /// File names the cache uses for itself.
    static let documentName = "song.json"
    static let manifestName = "cached.json"

    /// The song at `location` (`name`: how the user wrote it, for messages): from the cache
    /// unless `refresh`, else fetched with `fetcher`. `progress` gets the cached file name, the
    /// bytes so far and the size when known, while the audio and the cover download.
    public static func open(_ location: SongLocation, name: String, refresh: Bool = false, fetcher: Fetcher,
                            progress: @escaping @Sendable (String, Int64, Int64?) -> Void = { _, _, _ in }) async throws(PracticeError) -> CachedSong {
        let folder = root + "/" + key(for: location)
        if !refresh, let cached = cached(in: folder) { return cached }
        guard FileSystem.makeFolders(root) else { throw cannotCreate(root) }
        removeAbandoned(in: root)
        let temporary = "\(root)/.tmp-\(key(for: location))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard mkdir(temporary, 0o755) == 0 else { throw cannotCreate(root) }
        var committed = false
        defer { if !committed { try? FileManager.default.removeItem(atPath: temporary) } }

        let assembled = try await assemble(location, name: name, in: temporary, fetcher: fetcher, progress: progress)
        try commit(temporary, to: folder)
        committed = true
        guard var song = cached(in: folder) else { throw PracticeError(.ioError, "\(folder): the song vanished from the cache") }
        song.fromCache = false
        song.warnings = assembled.warnings
        return song
    }

    /// Fetches the document, its audio (checked with libsndfile), its cover (a failure is a
    /// warning) and writes the lyrics and the manifest, all into `folder`.
    static func assemble(_ location: SongLocation, name: String, in folder: String, fetcher: Fetcher,
                         progress: @escaping @Sendable (String, Int64, Int64?) -> Void) async throws(PracticeError) -> CachedSong {
        let documentPath = folder + "/" + documentName
        let fetched = try await fetcher.fetch(location, name: name, to: documentPath, limit: Int64(SongDocument.maximumBytes))
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: documentPath)) } catch {
            throw PracticeError(.ioError, "\(documentPath): cannot read: \(systemMessage(for: error))")
        }
        let document = try SongDocument.parse(data, name: name)

        // Both links are checked before anything is downloaded.
        let audio = try fetched.location.resolve(document.file, field: "file", in: name)
        var audioName = try audio.cacheName(field: "file", in: name)
        if [documentName, manifestName].contains(audioName) { audioName = "audio-" + audioName }
        var cover: (location: SongLocation, name: String)?
        if let image = document.image, !image.isEmpty {
            let location = try fetched.location.resolve(image, field: "image", in: name)
            var coverName = try location.cacheName(field: "image", in: name)
            if [documentName, manifestName, audioName, audioName + ".lrc"].contains(coverName) { coverName = "cover-" + coverName }
            cover = (location, coverName)
        }

        let audioPath = folder + "/" + audioName
        _ = try await fetcher.fetch(audio, name: audio.description, to: audioPath) { [audioName] in progress(audioName, $0, $1) }
        do { _ = try Track.open(audioPath) } catch {
            // Name the URL, not the temporary file.
            let message = error.message.hasPrefix(audioPath) ? audio.description + error.message.dropFirst(audioPath.count) : error.message
            throw PracticeError(error.kind, message)
        }

        var song = CachedSong(folder: folder, document: document, audio: audioPath, fromCache: false)
        if let cover {
            let path = folder + "/" + cover.name
            do {
                _ = try await fetcher.fetch(cover.location, name: cover.location.description, to: path) { progress(cover.name, $0, $1) }
                song.cover = path
            } catch {
                try? FileManager.default.removeItem(atPath: path)
                // Interrupted (a signal), the song is not complete: nothing is kept.
                if Task.isCancelled { throw error }
                song.warnings.append("\(error.message); going on without the cover")
            }
        }
        if let lrc = document.lrc {
            let path = audioPath + ".lrc"
            try write(Data(lrc.utf8), to: path)
            song.lyrics = path
        }
        var manifest: [String: JSONValue] = ["version": .integer(1), "source": .string(location.url.absoluteString),
                                             "document": .string(fetched.location.url.absoluteString), "audio": .string(audioName)]
        if let p = song.lyrics { manifest["lyrics"] = .string(Path.lastComponent(p)) }
        if let p = song.cover { manifest["cover"] = .string(Path.lastComponent(p)) }
        try write(Data(JSONValue.object(manifest).pretty().utf8), to: folder + "/" + manifestName)
        return song
    }

    /// The complete song in `folder`, or nil if there is none (or it is not whole).
    static func cached(in folder: String) -> CachedSong? {
        let fm = FileManager.default
        guard let data = fm.contents(atPath: folder + "/" + manifestName), let manifest = try? JSONValue.parse(data).object,
              let audio = manifest["audio"]?.string, fm.fileExists(atPath: folder + "/" + audio),
              let documentData = fm.contents(atPath: folder + "/" + documentName),
              let document = try? SongDocument.parse(documentData, name: folder + "/" + documentName) else { return nil }
        func file(_ key: String) -> String? {
            manifest[key]?.string.map { folder + "/" + $0 }.flatMap { fm.fileExists(atPath: $0) ? $0 : nil }
        }
        return CachedSong(folder: folder, document: document, audio: folder + "/" + audio, lyrics: file("lyrics"),
                          cover: file("cover"), fromCache: true)
    }

    /// Renames the assembled `temporary` folder to `folder`. A folder already there is replaced,
    /// keeping the files someone added to it (a sidecar of markers); if another process put the
    /// same song there meanwhile, its copy is kept.
    static func commit(_ temporary: String, to folder: String) throws(PracticeError) {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder) {
            let ours = Set(((fm.contents(atPath: folder + "/" + manifestName)).flatMap { try? JSONValue.parse($0).object } ?? [:])
                .values.compactMap(\.string) + [documentName, manifestName])
            for entry in (try? fm.contentsOfDirectory(atPath: folder)) ?? []
            where !ours.contains(entry) && !fm.fileExists(atPath: temporary + "/" + entry) {
                rename(folder + "/" + entry, temporary + "/" + entry)
            }
            let old = temporary.replacing("/.tmp-", with: "/.old-")
            guard rename(folder, old) == 0 else { throw cannotCreate(folder) }
            guard rename(temporary, folder) == 0 else {
                let error = cannotCreate(folder)
                rename(old, folder)
                throw error
            }
            try? fm.removeItem(atPath: old)
        } else if rename(temporary, folder) != 0 {
            let code = errno
            guard code == EEXIST || code == ENOTEMPTY, cached(in: folder) != nil else {
                throw PracticeError(.cannotCreate, "\(folder): cannot create: \(systemMessage(code))")
            }
            try? fm.removeItem(atPath: temporary)
        }
    }

    /// Removes the temporary folders of processes that are gone (killed while fetching).
    static func removeAbandoned(in root: String) {
        AtomicFile.removeAbandoned(in: root) { entry in
            let parts = entry.split(separator: "-")   // .tmp-KEY-PID-RANDOM, .old-KEY-PID-RANDOM
            guard entry.hasPrefix(".tmp-") || entry.hasPrefix(".old-"), parts.count == 4 else { return nil }
            return pid_t(parts[2])
        }
    }

    /// "cannot create" with the reason in `errno`.
    static func cannotCreate(_ path: String) -> PracticeError {
        PracticeError(.cannotCreate, "\(path): cannot create: \(systemMessage())")
    }

    static func write(_ data: Data, to path: String) throws(PracticeError) {
        guard FileManager.default.createFile(atPath: path, contents: data) else { throw cannotCreate(path) }
    }
}
