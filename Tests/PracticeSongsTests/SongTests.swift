// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeSongs
import PracticeEngine
import PracticeDocuments

/// FLO song documents: reading and checking them, resolving their links to cache file names
/// that cannot leave the cache folder, the LRC written from them, and the player showing their tags.
@Suite struct SongTests {
    static let warmup = #"""
        {"singer": "Ana", "album": "Drills", "title": "Warm-up", "duration": 198,
         "image": "cover.jpg", "file": "warmup.mp3",
         "lyrics": "[00:16:200]first line\n[00:18:300]second line\n[01:29:800]"}
        """#

    @Test func readsEveryField() throws {
        let doc = try SongDocument.parse(Data(Self.warmup.utf8), name: "song.json")
        #expect(doc == SongDocument(title: "Warm-up", singer: "Ana", album: "Drills", duration: 198, image: "cover.jpg",
                                    file: "warmup.mp3", lyrics: "[00:16:200]first line\n[00:18:300]second line\n[01:29:800]"))
        #expect(doc.tags == ["title": "Warm-up", "artist": "Ana", "album": "Drills"])
        #expect(doc.lrc == "[ti:Warm-up]\n[ar:Ana]\n[al:Drills]\n[00:16:200]first line\n[00:18:300]second line\n[01:29:800]\n")
    }

    @Test func onlyFileIsRequired() throws {
        let doc = try SongDocument.parse(Data(#"{"file": "a.wav", "image": null, "lyrics": "", "duration": 3.0}"#.utf8), name: "s.json")
        #expect(doc == SongDocument(duration: 3, file: "a.wav", lyrics: ""))
        #expect(doc.tags.isEmpty && doc.lrc == nil)
        // Windows line ends and a final newline; a header value keeps to one line.
        let crlf = SongDocument(title: "Two\nlines", file: "a.wav", lyrics: "[00:01:000]a\r\n[00:02:000]b\r\n")
        #expect(crlf.lrc == "[ti:Two lines]\n[00:01:000]a\n[00:02:000]b\n")
    }

    @Test(arguments: [
        (#"{"title": "x"}"#, "song.json: 'file' is missing"),
        (#"{"file": 3}"#, "song.json: 'file' must be a string (got 3)"),
        (#"{"file": ""}"#, #"song.json: 'file' must be the audio's URL (got "")"#),
        (#"{"file": "a.wav", "duration": "3:18"}"#, #"song.json: 'duration' must be a whole number of seconds (got "3:18")"#),
        (#"{"file": "a.wav", "duration": 198.5}"#, "song.json: 'duration' must be a whole number of seconds (got 198.5)"),
        (#"{"file": "a.wav", "duration": -1}"#, "song.json: 'duration' must be a whole number of seconds (got -1)"),
        (#"{"file": "a.wav", "singer": ["Ana"]}"#, "song.json: 'singer' must be a string (got a list)"),
        (#"{"file": "a.wav", "lyrics": true}"#, "song.json: 'lyrics' must be a string (got true)"),
        (#"[{"file": "a.wav"}]"#, "song.json: not a song document (it is a list, not an object)"),
        ("<html></html>", "song.json: not a JSON document (line 1, column 1: unexpected '<'; expected a value)"),
        ("{\"file\": \"a.wav\",\n", "song.json: not a JSON document (line 2, column 1: unexpected end of file; expected a key in double quotes)"),
        ("", "song.json: not a JSON document (line 1, column 1: the file is empty; expected a JSON object)"),
    ])
    func badDocumentsAreOneLineErrors(json: String, message: String) {
        #expect(throws: PracticeError(.dataError, message)) { try SongDocument.parse(Data(json.utf8), name: "song.json") }
    }

    @Test func sourcesArePathsOrHTTPURLs() {
        #expect(SongLocation(source: "https://example.com/a/song.json") == .remote(URL(string: "https://example.com/a/song.json")!))
        #expect(SongLocation(source: "file:///tmp/a%20b.json") == .local("/tmp/a b.json"))
        #expect(SongLocation(source: "/tmp/x/../song.json") == .local("/tmp/song.json"))
        #expect(SongLocation(source: "song.json") == .local(FileManager.default.currentDirectoryPath + "/song.json"))
        #expect(SongLocation(source: "ftp://example.com/song.json") == nil)
        #expect(SongLocation(source: "http:///song.json") == nil)
    }

    static let remoteBase = SongLocation.remote(URL(string: "http://127.0.0.1:8000/songs/song.json")!)

    /// Links resolve as a browser's would; the cache name is the last segment, percent-decoded.
    @Test(arguments: [
        ("warm%20up.wav", "http://127.0.0.1:8000/songs/warm%20up.wav", "warm up.wav"),
        ("audio/a.mp3?token=1#t", "http://127.0.0.1:8000/songs/audio/a.mp3?token=1#t", "a.mp3"),
        ("/media/b.flac", "http://127.0.0.1:8000/media/b.flac", "b.flac"),
        ("https://cdn.example.com/x/c.ogg", "https://cdn.example.com/x/c.ogg", "c.ogg"),
        ("a%01b.wav", "http://127.0.0.1:8000/songs/a%01b.wav", "a_b.wav"),
    ])
    func linksResolveAgainstTheDocument(link: String, resolved: String, name: String) throws {
        let location = try Self.remoteBase.resolve(link, field: "file", in: "song.json")
        #expect(location.description == resolved)
        #expect(try location.cacheName(field: "file", in: "song.json") == name)
    }

    @Test func aLocalDocumentsLinksArePathsOrURLs() throws {
        let base = SongLocation.local("/tmp/my songs/song.json")
        let spaced = try base.resolve("warm up.wav", field: "file", in: "song.json")
        #expect(spaced == .local("/tmp/my songs/warm up.wav"))
        #expect(try spaced.cacheName(field: "file", in: "song.json") == "warm up.wav")
        #expect(try base.resolve("/srv/a.wav", field: "file", in: "song.json") == .local("/srv/a.wav"))
        #expect(try base.resolve("http://127.0.0.1:8000/a.wav", field: "file", in: "song.json") == .remote(URL(string: "http://127.0.0.1:8000/a.wav")!))
    }

    /// Nothing a document says can name a file outside the song's cache folder.
    @Test(arguments: [
        ("../../escape.wav", #"song.json: 'file' would escape the cache folder (got "../../escape.wav")"#),
        ("%2e%2e%2fescape.wav", #"song.json: 'file' would escape the cache folder (got "%2e%2e%2fescape.wav")"#),
        ("a/%2E%2E/b.wav", #"song.json: 'file' would escape the cache folder (got "a/%2E%2E/b.wav")"#),
        ("..%2Fescape.wav", #"song.json: 'file' would escape the cache folder (got "..%2Fescape.wav")"#),
        ("http://127.0.0.1:8000/a/../../b.wav", #"song.json: 'file' would escape the cache folder (got "http://127.0.0.1:8000/a/../../b.wav")"#),
        ("/", #"song.json: 'file' names no file (got "http://127.0.0.1:8000/")"#),
        ("ftp://example.com/a.wav", #"song.json: 'file' must be an http(s) URL or a path (got "ftp://example.com/a.wav")"#),
        ("mailto:ana@example.com", #"song.json: 'file' must be an http(s) URL or a path (got "mailto:ana@example.com")"#),
        ("file:///tmp/local.wav", #"song.json: 'file' points at a local file from a web document (got "file:///tmp/local.wav")"#),
    ])
    func linksThatEscapeAreRefused(link: String, message: String) {
        #expect(throws: PracticeError(.dataError, message)) {
            try Self.remoteBase.resolve(link, field: "file", in: "song.json").cacheName(field: "file", in: "song.json")
        }
    }

    @Test func theCacheKeyIsAShortHashOfTheAbsoluteURL() {
        let a = SongCache.key(for: .remote(URL(string: "http://127.0.0.1:8000/songs/song.json")!))
        #expect(a.count == 16 && a.allSatisfy(\.isHexDigit))
        #expect(a == SongCache.key(for: .remote(URL(string: "http://127.0.0.1:8000/songs/song.json")!)))
        #expect(a != SongCache.key(for: .remote(URL(string: "http://127.0.0.1:8000/songs/other.json")!)))
        #expect(SongCache.key(for: .local("/tmp/song.json")) == SongCache.key(for: SongLocation(source: "file:///tmp/song.json")!))
    }

    /// The document's tags win over the file's own, on `null`.
    @Test func thePlayerShowsTheDocumentsTags() throws {
        let dir = ScratchDirectory("song-tags")
        let path = dir.file("tone.wav")
        try Signals.write(Signals.sine(440, seconds: 1), to: path, tags: ["title": "Tone", "artist": "Test"])
        var options = PlayerOptions()
        options.device = "null"
        options.startPlaying = false
        options.tags = ["title": "Warm-up", "album": "Drills"]
        let player = try Player(path: path, options: options)
        #expect(player.state.title == "Warm-up")
        #expect(player.state.tags == ["title": "Warm-up", "artist": "Test", "album": "Drills"])
        player.stop()
        options.tags = [:]
        let plain = try Player(path: path, options: options)
        #expect(plain.state.title == "Tone" && plain.state.tags == ["title": "Tone", "artist": "Test"])
        plain.stop()
    }
}
