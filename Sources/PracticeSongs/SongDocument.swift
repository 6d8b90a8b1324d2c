// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// A FLO song document (formats.md, "FLO song JSON"): a song's tags, where its audio and cover
/// are, and its synced lyrics. Only `file` is required; every other field, when present and not
/// null, must have its type.
public struct SongDocument: Sendable, Equatable {
    public var title: String?
    public var singer: String?
    public var album: String?
    /// Whole seconds, as the document says (not checked against the audio).
    public var duration: Int?
    /// The cover's URL as written, relative to the document or absolute; nil or empty: no cover.
    public var image: String?
    /// The audio's URL as written, relative to the document or absolute.
    public var file: String
    /// One string of `[mm:ss:SSS]text` lines separated by `\n`.
    public var lyrics: String?

    public init(title: String? = nil, singer: String? = nil, album: String? = nil, duration: Int? = nil,
                image: String? = nil, file: String, lyrics: String? = nil) {
        self.title = title; self.singer = singer; self.album = album; self.duration = duration
        self.image = image; self.file = file; self.lyrics = lyrics
    }

    /// The largest document we read: FLO documents are a few kilobytes.
    public static let maximumBytes = 4 << 20   // 4 MiB

    /// Reads a document; `name` (the path or URL the user gave) starts every error.
    public static func parse(_ data: Data, name: String) throws(PracticeError) -> SongDocument {
        let root: JSONValue
        do { root = try JSONValue.parse(data) } catch {
            throw PracticeError(.dataError, "\(name): not a JSON document (line \(error.line), column \(error.column): \(error.message))")
        }
        guard let fields = root.object else {
            throw PracticeError(.dataError, "\(name): not a song document (it is \(root.kindName), not an object)")
        }
        func string(_ key: String) throws(PracticeError) -> String? {
            guard let value = fields[key], value != .null else { return nil }
            guard let s = value.string else { throw PracticeError(.dataError, "\(name): '\(key)' must be a string (got \(shown(value)))") }
            return s
        }
        guard fields["file"] != nil else { throw PracticeError(.dataError, "\(name): 'file' is missing") }
        guard let file = try string("file"), !file.isEmpty else {
            throw PracticeError(.dataError, "\(name): 'file' must be the audio's URL (got \(shown(fields["file"] ?? .null)))")
        }
        var duration: Int?
        if let value = fields["duration"], value != .null {
            guard let seconds = value.int, seconds >= 0 else {
                throw PracticeError(.dataError, "\(name): 'duration' must be a whole number of seconds (got \(shown(value)))")
            }
            duration = seconds
        }
        return SongDocument(title: try string("title"), singer: try string("singer"), album: try string("album"),
                            duration: duration, image: try string("image"), file: file, lyrics: try string("lyrics"))
    }

    /// A value as an error message shows it: scalars as written, lists and objects by kind.
    private static func shown(_ value: JSONValue) -> String {
        switch value {
        case .array, .object: value.kindName
        default: value.compact()
        }
    }

    /// Tags for the player's views: title, artist (the singer) and album, where the document has them.
    public var tags: [String: String] {
        var tags: [String: String] = [:]
        for (key, value) in [("title", title), ("artist", singer), ("album", album)] {
            if let value, !value.isEmpty { tags[key] = value }
        }
        return tags
    }

    /// The lyrics as an LRC file: `[ti:]`, `[ar:]` and `[al:]` from the document, then its lines
    /// as given (FLO's `[mm:ss:SSS]` stamps included; our LRC reader accepts them). Nil without lyrics.
    public var lrc: String? {
        guard let lyrics, !lyrics.isEmpty else { return nil }
        var out = ""
        for (tag, value) in [("ti", title), ("ar", singer), ("al", album)] {
            // A header tag is one line.
            if let value, !value.isEmpty {
                out += "[\(tag):\(value.replacing("\r", with: " ").replacing("\n", with: " "))]\n"
            }
        }
        var lines = lyrics.replacing("\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for line in lines { out += line + "\n" }
        return out
    }
}
