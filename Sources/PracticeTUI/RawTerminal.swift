// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments

/// The terminal in raw mode on the alternate screen, restored however the program ends: by
/// `restore()`, or by a fatal signal (a crash), whose handler puts the terminal back with
/// async-signal-safe calls only and then hands the signal to the action that was there before.
public final class RawTerminal: @unchecked Sendable {  // the saved state is written once, before the handlers go in
    public let fd: Int32
    private var restored = false

    /// Enters raw mode and the alternate screen, hides the cursor; with `mouse`, asks for clicks
    /// (SGR mouse reporting).
    public init(fd: Int32 = STDIN_FILENO, mouse: Bool = false) throws {
        self.fd = fd
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else { throw POSIXError(.ENOTTY) }
        savedTermios = t
        savedFD = fd
        hasSaved = true
        var raw = t
        cfmakeraw(&raw)
        raw.c_oflag = t.c_oflag   // keep output processing (\n → \r\n) as it was
        tcsetattr(fd, TCSANOW, &raw)
        Terminal.writeRaw(Self.enter + (mouse ? Self.mouseOn : ""), to: STDOUT_FILENO)
        installCrashHandlers()
    }

    static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    /// Button presses reported, in the SGR form (any column).
    static let mouseOn = "\u{1B}[?1000h\u{1B}[?1006h"
    static let leave = "\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l"

    /// Leaves the alternate screen and raw mode. Safe to call twice.
    public func restore() {
        guard !restored else { return }
        restored = true
        Terminal.writeRaw(Self.leave, to: STDOUT_FILENO)
        var t = savedTermios
        tcsetattr(fd, TCSANOW, &t)
        hasSaved = false
    }

    deinit { restore() }

    /// Columns and rows of the terminal on stdout, or 80×24.
    public static func size() -> (columns: Int, rows: Int) {
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 { return (Int(ws.ws_col), Int(ws.ws_row)) }
        return (80, 24)
    }

    /// The pixels of one character cell, when the terminal says (kitty, foot, xterm and others
    /// fill in the window's pixel size); nil when it does not.
    public static func cellPixels() -> (width: Int, height: Int)? {
        var ws = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0,
              ws.ws_xpixel >= ws.ws_col, ws.ws_ypixel >= ws.ws_row else { return nil }
        return (Int(ws.ws_xpixel) / Int(ws.ws_col), Int(ws.ws_ypixel) / Int(ws.ws_row))
    }
}

// What the crash handler needs, kept where a signal handler can reach it without locks or allocation.
nonisolated(unsafe) private var savedTermios = termios()
nonisolated(unsafe) private var savedFD: Int32 = 0
nonisolated(unsafe) private var hasSaved = false
/// The actions our crash handler replaced, by signal number (allocated once, before installing).
nonisolated(unsafe) private var previousActions = UnsafeMutablePointer<sigaction>.allocate(capacity: 32)
private let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]
nonisolated(unsafe) private var handlersInstalled = false
/// `RawTerminal.leave`, allocated before any handler can run (a handler must not allocate).
nonisolated(unsafe) private var leaveBytes: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)

private func installCrashHandlers() {
    guard !handlersInstalled else { return }
    handlersInstalled = true
    let bytes = Array(RawTerminal.leave.utf8)
    leaveBytes = .allocate(capacity: bytes.count)
    _ = leaveBytes.initialize(from: bytes)
    for sig in crashSignals {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = crashHandler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(sig, &action, previousActions + Int(sig))
    }
}

/// Restores the terminal (tcsetattr and write are async-signal-safe), then re-raises the signal
/// with the previous action (the Swift runtime's backtracer, or the default).
private let crashHandler: @convention(c) (Int32) -> Void = { sig in
    if hasSaved {
        _ = write(STDOUT_FILENO, leaveBytes.baseAddress, leaveBytes.count)
        withUnsafePointer(to: &savedTermios) { _ = tcsetattr(savedFD, TCSANOW, $0) }
        hasSaved = false
    }
    sigaction(sig, previousActions + Int(sig), nil)
    raise(sig)
}
