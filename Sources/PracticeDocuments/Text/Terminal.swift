// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// Small facts about the terminal, per stream.
public enum Terminal {
    public static func isTTY(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Columns of the terminal on `fd`, or 80.
    public static func width(_ fd: Int32) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Writes lines of text to a file descriptor: control characters and escape sequences in it
    /// (from tags, names, lyrics, the network) are shown as `\u{1b}`, never obeyed; line breaks and
    /// tabs stay.
    public static func write(_ text: String, to fd: Int32) {
        writeRaw(text.terminalSafe(keepingLayout: true), to: fd)
    }

    /// Writes bytes as they are, unbuffered (C `stdout` is not usable from Swift 6): for our own
    /// escape sequences (the screen, a redrawn status line), whose data parts were made safe.
    public static func writeRaw(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }

    /// Carriage return, the line, clear to the end of the line.
    public static func redraw(_ line: String) -> String { "\r\(line)\u{1B}[K" }
}
