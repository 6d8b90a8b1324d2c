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
    }
}
