// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// Can this file be read, and if not, why: the one place that says so, in one line naming the
/// file (sysexits 66, EX_NOINPUT): `song.lrc: no such file`, `songs: is a directory, not a
/// lyrics file`, `notes.txt: cannot read it (permission denied)`.
public enum ReadableFile {
    /// Checks that `path` is a file this user may read. `name` is how messages call it (default:
    /// the path); `noun` says what it should have been ("an audio file").
    public static func check(_ path: String, name: String? = nil, noun: String? = nil) throws(PracticeError) {
        let shown = name ?? path
        guard let kind = FileSystem.kind(path) else { throw PracticeError(.noInput, "\(shown): no such file") }
        if kind == .directory { throw PracticeError(.noInput, "\(shown): is a directory\(noun.map { ", not \($0)" } ?? "")") }
        guard FileSystem.isReadable(path) else {
            throw PracticeError(.noInput, "\(shown): cannot read it (permission denied)")
        }
    }

    /// The whole file, after `check`.
    public static func contents(of path: String, name: String? = nil, noun: String? = nil) throws(PracticeError) -> Data {
        try check(path, name: name, noun: noun)
        guard let data = wholeData(path) else {
            throw PracticeError(.noInput, "\(name ?? path): cannot read it (\(systemMessage()))")
        }
        return data
    }

    /// The whole file through open(2) and read(2); nil, with `errno` saying why, when it cannot be
    /// opened or read.
    public static func wholeFile(_ path: String) -> [UInt8]? { wholeData(path).map { Array($0) } }

    /// The same as `Data`, read in place: its room is the file's size (and one byte more, so that
    /// the end shows at once), taken zeroed from the system (calloc), so that a large sidecar's
    /// pages are touched once, by the read, and copied nowhere.
    static func wholeData(_ path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        let size = fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG ? Int(st.st_size) : 65535
        var data = Data(count: size + 1)
        var count = 0
        while true {
            if count == data.count { data.count *= 2 }
            let n = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 {
                data.count = count
                return data
            }
            count += n
        }
    }
}
