// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Whether a file changed since it was last looked at, without reading it: its inode, size and
/// modification time, as one string to keep and compare. Empty when it is not there.
public enum FileStamp {
    public static func of(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "" }
        return "\(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// The file's size in bytes; nil when it is not there.
    public static func size(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }
}
