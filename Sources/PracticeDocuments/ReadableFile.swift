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
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PracticeError(.noInput, "\(shown): no such file")
        }
        if isDirectory { throw PracticeError(.noInput, "\(shown): is a directory\(noun.map { ", not \($0)" } ?? "")") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw PracticeError(.noInput, "\(shown): cannot read it (permission denied)")
        }
    }

    /// The whole file, after `check`.
    public static func contents(of path: String, name: String? = nil, noun: String? = nil) throws(PracticeError) -> Data {
        try check(path, name: name, noun: noun)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PracticeError(.noInput, "\(name ?? path): cannot read it (\(systemMessage()))")
        }
        return data
    }

    /// The whole file through open(2) and read(2); nil, with `errno` saying why, when it cannot be
    /// opened or read.
    public static func wholeFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
    }
}
