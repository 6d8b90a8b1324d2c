// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// File-path arithmetic on plain strings, as NSString did it: the last component, the folder,
/// the extension. Only `resolved` and `executable` look at the file system.
public enum Path {
    /// This program's own file, every link resolved (`/proc/self/exe`), else how it was called:
    /// what the reminder's units run, and where the library looks for TagLib's shim beside it.
    public static var executable: String { resolved("/proc/self/exe") ?? CommandLine.arguments[0] }

    /// The absolute path with every symbolic link, "." and ".." resolved (realpath(3)); nil for a
    /// path that does not exist.
    public static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The last component: "/a/b.wav" → "b.wav", "/a/b/" → "b", "/" → "/".
    public static func lastComponent(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return trimmed }
        return String(trimmed[trimmed.utf8.index(after: slash)...])
    }

    /// `component` under `folder`, as URL's `appendingPathComponent` joins them: "/a/" and "b" →
    /// "/a/b", "/" and "b" → "/b".
    public static func appending(_ component: String, to folder: String) -> String {
        let trimmed = withoutTrailingSlashes(folder)
        return (trimmed == "/" ? "" : trimmed) + "/" + component
    }

    /// The folder: "/a/b.wav" → "/a", "/a" → "/", "b.wav" → "", "/" → "/".
    public static func directory(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        let folder = withoutTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// The folder `path` is in, as the system opens it: `directory`, or "." for a bare name.
    public static func folder(of path: String) -> String {
        let folder = directory(path)
        return folder.isEmpty ? "." : folder
    }

    /// `name` in the folder `path` is in: relative, as `path` is, for a bare name.
    public static func sibling(_ name: String, of path: String) -> String {
        let folder = directory(path)
        return folder.isEmpty ? name : appending(name, to: folder)
    }

    /// The extension of the last component, without its dot: "a/b.tar.gz" → "gz"; "" if none
    /// (".hidden" and "name." have none). A dot is a dot whatever follows it (a combining mark
    /// makes one character of the two, but not one byte), as for NSString and the file system.
    public static func pathExtension(_ path: String) -> String {
        let last = lastComponent(path)
        guard let dot = last.utf8.lastIndex(of: UInt8(ascii: ".")), dot != last.startIndex else { return "" }
        return String(last[last.utf8.index(after: dot)...])
    }

    /// The path without the extension of its last component: "/a/b.wav" → "/a/b".
    public static func deletingExtension(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        let ext = pathExtension(trimmed)
        guard !ext.isEmpty else { return trimmed }
        return String(trimmed[..<trimmed.utf8.index(trimmed.utf8.endIndex, offsetBy: -(ext.utf8.count + 1))])
    }

    /// `path` from the working folder when it is relative.
    public static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    /// An absolute path with "." and ".." components and doubled slashes taken out
    /// ("/a/./b/../c" → "/a/c"); ".." above the root stays at the root.
    public static func normalized(_ absolute: String) -> String {
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        // On the bytes: a library screen asks this of every track's path and folder.
        let bytes = path.utf8
        var end = bytes.endIndex
        while bytes.distance(from: bytes.startIndex, to: end) > 1, bytes[bytes.index(before: end)] == UInt8(ascii: "/") {
            end = bytes.index(before: end)
        }
        return end == bytes.endIndex ? path : String(path[..<end])
    }
}
