// SPDX-License-Identifier: GPL-3.0-or-later
internal import CTagLib
import Glibc
import PracticeDocuments
import PracticeSystem

/// An error from TagLib: the file is not one it can read (or TagLib's shim is missing).
public struct TagLibError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public var description: String { "\(path): TagLib cannot read its tags" }
}

/// TagLib's shim, libpractice-taglib.so (Sources/CTagLibShim), opened with dlopen at the first
/// tag read: beside the program (the build folder), else in `../lib/practice/` from it (where
/// `make install` puts it).
enum TagLibShim {
    static let fileName = "libpractice-taglib.so"

    /// Where it is looked for, in order.
    static var places: [String] {
        let folder = Path.directory(Path.executable)
        return [folder + "/" + fileName, Path.normalized(folder + "/../lib/practice/" + fileName)]
    }

    /// The opened shim, or why it could not be opened. Written once, then only read.
    nonisolated(unsafe) private static let api: Result<UnsafeMutablePointer<practice_taglib_api>, PracticeError> = {
        let places = Self.places
        guard let found = places.first(where: { access($0, F_OK) == 0 }) else {
            return .failure(problem("\(fileName) is in neither \(Path.directory(places[0])) nor \(Path.directory(places[1]))"))
        }
        return DynamicLibrary.load(practice_taglib_api()) { practice_taglib_load($0, found) }.mapError { problem($0.message) }
    }()

    private static func problem(_ message: String) -> PracticeError {
        PracticeError(.unavailable, "cannot read tags: \(message.terminalSafe) (install practice again: 'make install')")
    }

    /// The shim's functions, or the error a scan stops with (exit 69) when it cannot be opened.
    static func functions() throws(PracticeError) -> practice_taglib_api { try api.get().pointee }

    /// Throws (exit 69) unless the shim can be opened: a scan asks before it reads its first file.
    static func require() throws(PracticeError) { _ = try functions() }
}

/// A picture embedded in an audio file's tags.
public struct EmbeddedPicture: Sendable, Equatable {
    public var bytes: [UInt8]
    /// As the tag gives it (`image/jpeg`); empty when it gives none.
    public var mime: String

    /// The file's front cover, else its first picture, through TagLib: ID3v2 in MP3, WAV and
    /// AIFF, FLAC pictures, METADATA_BLOCK_PICTURE in Ogg Vorbis and Opus, `covr` in MP4. Nil
    /// when it has none.
    public static func frontCover(of path: String) throws(TagLibError) -> EmbeddedPicture? {
        guard let tagLib = try? TagLibShim.functions() else { throw TagLibError(path: path) }
        var p = practice_picture()
        let rc = tagLib.front_cover(path, &p)
        defer { tagLib.picture_free(&p) }
        if rc < 0 { throw TagLibError(path: path) }
        guard rc > 0, let data = p.data else { return nil }
        let mime = withUnsafeBytes(of: p.mime) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return EmbeddedPicture(bytes: Array(UnsafeBufferPointer(start: data, count: p.size)), mime: mime)
    }

    /// The image's kind from its first bytes (the tag's MIME type is often wrong or missing):
    /// `jpg`, `png`, `gif`, `webp`, or nil for none of these.
    public var fileExtension: String? {
        let b = bytes
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if b.starts(with: Array("GIF8".utf8)) { return "gif" }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return "webp" }
        return nil
    }
}

/// A file's tags, read with TagLib: what the library shows and searches.
public struct TrackTags: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var albumArtist: String?
    public var genre: String?
    /// 0 when absent, as are `track` and `disc`.
    public var year = 0
    public var track = 0
    public var disc = 0
    /// From the file's headers (seconds; 0 when unknown).
    public var duration: Double = 0
    /// The front cover (else the first picture) embedded in the tags.
    public var cover: EmbeddedPicture?

    public init() {}

    /// The tags of `path` (and its embedded cover when `withCover`); nil for a kind of file we do
    /// not play (by its extension). Throws when TagLib cannot read the file.
    public static func read(_ path: String, withCover: Bool = true) throws(TagLibError) -> TrackTags? {
        guard let tagLib = try? TagLibShim.functions() else { throw TagLibError(path: path) }
        var t = practice_tags()
        var p = practice_picture()
        let rc = withCover ? tagLib.tags(path, &t, &p) : tagLib.tags(path, &t, nil)
        defer { tagLib.tags_free(&t); tagLib.picture_free(&p) }
        if rc < 0 { throw TagLibError(path: path) }
        guard rc > 0 else { return nil }
        func text(_ s: UnsafeMutablePointer<CChar>?) -> String? {
            guard let s else { return nil }
            let v = String(decoding: UnsafeRawBufferPointer(start: s, count: strlen(s)), as: UTF8.self)
            return v.allSatisfy(\.isWhitespace) ? nil : v
        }
        var out = TrackTags()
        out.title = text(t.title); out.artist = text(t.artist); out.album = text(t.album)
        out.albumArtist = text(t.album_artist); out.genre = text(t.genre)
        out.year = Int(t.year); out.track = Int(t.track); out.disc = Int(t.disc)
        out.duration = Double(t.length_ms) / 1000
        if let data = p.data, p.size > 0 {
            let mime = withUnsafeBytes(of: p.mime) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            out.cover = EmbeddedPicture(bytes: Array(UnsafeBufferPointer(start: data, count: p.size)), mime: mime)
        }
        return out
    }
}
