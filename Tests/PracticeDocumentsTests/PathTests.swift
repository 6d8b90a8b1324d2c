// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeDocuments

/// Paths taken apart on their bytes (a library screen asks this of every track): the same
/// answers for slashes at the end, names with no folder, the root, and names beyond ASCII.
@Suite struct PathTests {
    @Test func theLastComponentTheFolderAndTheExtension() {
        let cases: [(path: String, last: String, folder: String, ext: String)] = [
            ("/a/b.wav", "b.wav", "/a", "wav"),
            ("/a/b.tar.gz", "b.tar.gz", "/a", "gz"),
            ("/a/dir//", "dir", "/a", ""),
            ("b.flac", "b.flac", "", "flac"),
            ("/", "/", "/", ""),
            ("//", "/", "/", ""),
            ("", "", "", ""),
            ("/a/.hidden", ".hidden", "/a", ""),
            ("/a/name.", "name.", "/a", ""),
            ("/Música/Café/é.ogg", "é.ogg", "/Música/Café", "ogg"),
            ("é/", "é", "", ""),
            ("/x/ünï.Opus/", "ünï.Opus", "/x", "Opus"),
        ]
        for c in cases {
            #expect(Path.lastComponent(c.path) == c.last, "lastComponent(\(c.path))")
            #expect(Path.directory(c.path) == c.folder, "directory(\(c.path))")
            #expect(Path.pathExtension(c.path) == c.ext, "pathExtension(\(c.path))")
        }
        #expect(Path.deletingExtension("/a/b.wav/") == "/a/b")
        #expect(Path.deletingExtension("/Música/é.ogg") == "/Música/é" && Path.deletingExtension("/a/.hidden") == "/a/.hidden")
        #expect(Path.deletingExtension("/a/b") == "/a/b" && Path.deletingExtension("b.tar.gz") == "b.tar")
    }

    /// The folder a file is in as the system opens it ("." for a bare name), and a name beside a
    /// file: relative where the file's path is, one slash at the root.
    @Test func theFolderToOpenAndANameBeside() {
        #expect(Path.folder(of: "song.mp3") == "." && Path.folder(of: "a/song.mp3") == "a" && Path.folder(of: "/song.mp3") == "/")
        #expect(Path.folder(of: "/a/b/") == "/a" && Path.folder(of: "./song.mp3") == ".")
        #expect(Path.sibling("x.json", of: "song.mp3") == "x.json" && Path.sibling("x.json", of: "./song.mp3") == "./x.json")
        #expect(Path.sibling("x.json", of: "/song.mp3") == "/x.json" && Path.sibling("x.json", of: "/a/b/song.mp3") == "/a/b/x.json")
    }

    /// A name under a folder, as URL's `appendingPathComponent` joins them (the XDG folders and
    /// config.toml's place are built this way, without URL's parser).
    @Test func aNameUnderAFolderIsJoinedWithOneSlash() {
        let cases: [(folder: String, name: String, joined: String)] = [
            ("/home/u", ".config", "/home/u/.config"),
            ("/home/u/", ".config", "/home/u/.config"),
            ("/home/u//", "practice", "/home/u/practice"),
            ("/", "practice", "/practice"),
            ("/Música", "config.toml", "/Música/config.toml"),
            ("/a/b", ".local/state", "/a/b/.local/state"),
        ]
        for c in cases {
            #expect(Path.appending(c.name, to: c.folder) == c.joined, "appending(\(c.name), to: \(c.folder))")
        }
    }

    /// A slash or a dot followed by a combining mark is one character with it, but still the
    /// byte the file system splits on: every answer comes from the bytes, as `lastComponent`'s
    /// always did (the folder and the extension were found character by character, and
    /// disagreed with it).
    @Test func aCombiningMarkAfterASlashOrADotDoesNotHideIt() {
        let path = "/a/\u{301}b.\u{301}og"
        #expect(Path.lastComponent(path) == "\u{301}b.\u{301}og")
        #expect(Path.directory(path) == "/a")
        #expect(Path.pathExtension(path) == "\u{301}og")
        #expect(Path.deletingExtension(path) == "/a/\u{301}b")
        #expect(Path.directory("/x/\u{301}/y") == "/x/\u{301}")
    }
}
