// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeDocuments

/// Tells when some files change, with inotify: another window's edit, a `git pull`, a friend's
/// copy merged in. Writers replace a sidecar by renaming a new file over it, so the folders are
/// watched (for files written, moved in, created or removed there) and events are kept for the
/// names asked about.
final class FolderWatcher {
    /// Readable when something happened (for `poll`).
    let fd: Int32
    private var folders: [Int32: String] = [:]
    private let names: Set<String>

    /// Watches the folders of `paths`; nil when inotify is not available (then nothing reloads by itself).
    init?(paths: [String]) {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        names = Set(paths.map(Path.lastComponent))
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
        for folder in Set(paths.map { Path.folder(of: $0) }) {
            let wd = inotify_add_watch(fd, folder, mask)
            if wd >= 0 { folders[wd] = folder }
        }
        if folders.isEmpty { close(fd); return nil }
    }

    deinit { close(fd) }

    /// Reads what happened since the last call: whether any of the watched files changed.
    func drain() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return changed }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (length, name) = buffer.withUnsafeBytes { raw -> (Int, String) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let bytes = raw[start..<min(start + Int(event.len), n)].prefix { $0 != 0 }
                    return (Int(event.len), String(decoding: bytes, as: UTF8.self))
                }
                if names.contains(name) { changed = true }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
    }

    /// Waits up to `milliseconds` for a change of a watched file (for tests and callers without a loop).
    func wait(milliseconds: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = monotonicMilliseconds() + Int64(milliseconds)
        while true {
            let left = deadline - monotonicMilliseconds()
            guard left > 0, poll(&pfd, 1, Int32(left)) > 0 else { return false }
            if drain() { return true }
        }
    }

    private func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
