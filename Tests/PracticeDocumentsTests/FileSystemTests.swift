// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Testing
import PracticeDocuments
import PracticeTestSupport

/// The file system as a command sees it on its way to work (stat, access, readdir, mkdir -p), on
/// real files in a folder of the test's own: what FileManager answered before, links and names
/// beyond UTF-8 included.
@Suite struct FileSystemTests {
    static func touch(_ path: String, mode: mode_t = 0o644) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot create \(path)")
        close(fd)
    }

    @Test func whatIsAtAPathLinksFollowed() {
        let scratch = ScratchDirectory("practice-fs"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        Self.touch(dir + "/song.flac")
        mkdir(dir + "/sub", 0o755)
        symlink(dir + "/song.flac", dir + "/to-song")
        symlink(dir + "/sub", dir + "/to-sub")
        symlink(dir + "/gone", dir + "/dangling")
        #expect(FileSystem.kind(dir + "/song.flac") == .other)
        #expect(FileSystem.kind(dir + "/sub") == .directory)
        #expect(FileSystem.kind(dir + "/to-song") == .other)
        #expect(FileSystem.kind(dir + "/to-sub") == .directory)
        #expect(FileSystem.kind(dir + "/dangling") == nil, "a link that leads nowhere is nothing")
        #expect(FileSystem.kind(dir + "/missing") == nil)
        #expect(FileSystem.exists(dir + "/song.flac") && FileSystem.exists(dir + "/sub/"))
        #expect(!FileSystem.exists(dir + "/song.flac/x"))
        #expect(!FileSystem.exists(""))
    }

    @Test func readableIsWhatThisProcessMayRead() {
        let scratch = ScratchDirectory("practice-fs"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        Self.touch(dir + "/open.json")
        Self.touch(dir + "/closed.json", mode: 0o000)
        #expect(FileSystem.isReadable(dir + "/open.json"))
        // root reads anything (access(2) says so, as FileManager did).
        #expect(FileSystem.isReadable(dir + "/closed.json") == (geteuid() == 0))
        #expect(!FileSystem.isReadable(dir + "/missing.json"))
    }

    /// Every name but "." and "..", hidden ones too; a name that is not UTF-8 comes with its bad
    /// bytes replaced, once; an unreadable folder is nil with errno set.
    @Test func aFoldersNames() {
        let scratch = ScratchDirectory("practice-fs"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        for name in ["a.flac", ".hidden", "Café é.ogg", "song.flac.practice.json"] { Self.touch(dir + "/" + name) }
        mkdir(dir + "/sub", 0o755)
        let latin1: [CChar] = Array((dir + "/caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9), 0]
        #expect(open(latin1, O_WRONLY | O_CREAT, 0o644) >= 0)
        let names = FileSystem.names(in: dir)
        #expect(names?.sorted() == [".hidden", "Café é.ogg", "a.flac", "caf\u{FFFD}", "song.flac.practice.json", "sub"])
        #expect(FileSystem.names(in: dir + "/sub") == [])
        errno = 0
        #expect(FileSystem.names(in: dir + "/missing") == nil)
        #expect(errno == ENOENT)
        #expect(FileSystem.names(in: dir + "/a.flac") == nil)
        #expect(errno == ENOTDIR)
    }

    /// Only the names that end with a suffix (a sidecar's look through a folder of songs): on the
    /// bytes, so a name that is not UTF-8 before it is still found, repaired as above; the suffix
    /// alone is a name that ends with it; "." and ".." never, even where the suffix is "." or "".
    @Test func aFoldersNamesEndingWithASuffix() {
        let scratch = ScratchDirectory("practice-fs"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        for name in ["a.flac", "a.flac.practice.json", ".practice.json", "practice.json", "b.practice.json.bak", "Café é.ogg.practice.json"] {
            Self.touch(dir + "/" + name)
        }
        let latin1: [CChar] = Array((dir + "/caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".practice.json".utf8CString)
        #expect(open(latin1, O_WRONLY | O_CREAT, 0o644) >= 0)
        #expect(FileSystem.names(in: dir, endingWith: ".practice.json")?.sorted()
                == [".practice.json", "Café é.ogg.practice.json", "a.flac.practice.json", "caf\u{FFFD}.practice.json"])
        #expect(FileSystem.names(in: dir, endingWith: ".flac") == ["a.flac"])
        #expect(FileSystem.names(in: dir, endingWith: ".")?.isEmpty == true)
        #expect(FileSystem.names(in: dir, endingWith: "")?.count == 7)
        #expect(FileSystem.names(in: dir + "/missing", endingWith: ".practice.json") == nil)
    }

    /// `mkdir -p`: each missing folder made with the mode asked for; a folder already there (or
    /// "") is fine; a file in the way is not, with errno saying so; a slash at the end is a folder.
    @Test func foldersAreMadeWithTheirParents() {
        let scratch = ScratchDirectory("practice-fs"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        #expect(FileSystem.makeFolders(dir + "/a/b/c", mode: 0o700))
        var st = stat()
        for path in [dir + "/a", dir + "/a/b", dir + "/a/b/c"] {
            #expect(stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR && st.st_mode & 0o777 == 0o700, "\(path)")
        }
        #expect(FileSystem.makeFolders(dir + "/a/b/c"), "already there")
        #expect(FileSystem.makeFolders(dir + "/a//d/"), "doubled and trailing slashes")
        #expect(FileSystem.kind(dir + "/a/d") == .directory)
        #expect(FileSystem.makeFolders(""))
        Self.touch(dir + "/file")
        errno = 0
        #expect(!FileSystem.makeFolders(dir + "/file/sub"))
        #expect(errno == ENOTDIR)
        #expect(!FileSystem.makeFolders(dir + "/file"))
        #expect(errno == ENOTDIR)
        chmod(dir + "/a", 0o500)
        defer { chmod(dir + "/a", 0o700) }
        if geteuid() != 0 {
            #expect(!FileSystem.makeFolders(dir + "/a/new"))
            #expect(errno == EACCES)
        }
    }

    /// The whole file, read in place whatever its size (none, less than the first guess, more),
    /// and nil with errno for what cannot be read.
    @Test func aWholeFile() {
        let scratch = ScratchDirectory("practice-fs"), dir = scratch.path
        defer { withExtendedLifetime(scratch) {} }
        for size in [0, 1, 65535, 65536, 65537, 300_001] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
            let fd = open(dir + "/f", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == size)
            close(fd)
            #expect(ReadableFile.wholeFile(dir + "/f") == bytes, "\(size) bytes")
        }
        errno = 0
        #expect(ReadableFile.wholeFile(dir + "/missing") == nil)
        #expect(errno == ENOENT)
        #expect(ReadableFile.wholeFile(dir) == nil, "a folder")
        // Not a regular file: no size to go by, read to its end all the same.
        #expect(ReadableFile.wholeFile("/proc/self/stat").map { !$0.isEmpty && $0.last == UInt8(ascii: "\n") } == true)
    }
}
