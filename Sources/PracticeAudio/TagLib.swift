internal import CTagLib
import Glibc

/// An error from TagLib: the file is not one it can read.
public struct TagLibError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public var description: String { "\(path): TagLib cannot read its tags" }
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
        var p = practice_picture()
        let rc = practice_taglib_front_cover(path, &p)
        defer { practice_picture_free(&p) }
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
