// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A temporary folder removed when the value goes away, or when the test process exits (a
/// suite's `static let` folder never goes away: the generated library and the beat corpus left
/// 8 and 138 MB in /tmp at each run).
public final class ScratchDirectory: @unchecked Sendable {  // immutable after init
    public let path: String
    public init(_ name: String = "practice-test") {
        path = NSTemporaryDirectory() + "\(name)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        removeAtExit(path)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    public func file(_ name: String) -> String { path + "/" + name }
}

/// The result of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var seconds: Double
}

/// Runs a program to completion, capturing stdout and stderr.
/// Where players started by tests keep their journal (unless a test gives its own): a folder of
/// the test process's, never the person's `~/.local/share`.
public let testDataHome: String = {
    let path = NSTemporaryDirectory() + "practice-tests-data-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    removeAtExit(path)
    return path
}()

/// The folders the test process made, removed by an `atexit` handler (those already gone are skipped).
nonisolated(unsafe) private var foldersToRemove: [String] = []
private let foldersLock = NSLock()
private let removalRegistered: Void = {
    atexit {
        foldersLock.lock()
        let folders = foldersToRemove
        foldersLock.unlock()
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
    }
}()

func removeAtExit(_ path: String) {
    _ = removalRegistered
    foldersLock.lock()
    foldersToRemove.append(path)
    foldersLock.unlock()
}

public func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                currentDirectory: String? = nil) throws -> ProcessResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["SWIFT_BACKTRACE"] = "enable=no"
    // Players started by tests stay off the desktop's session bus (no MPRIS, no notifications)
    // unless a test gives them a private one.
    env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/practice-tests-bus"
    // Nor do they write in the person's practice journal.
    env["XDG_DATA_HOME"] = testDataHome
    for (k, v) in environment { env[k] = v }
    p.environment = env
    if let currentDirectory { p.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    let start = Date()
    try p.run()
    // Read both pipes while the process runs so neither fills up.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    p.waitUntilExit()
    return ProcessResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self), seconds: Date().timeIntervalSince(start))
}

/// An ALSA configuration that adds a `capture` PCM: ALSA's `file` plugin over `null`, writing
/// exactly what the player sends to `$PRACTICE_CAPTURE` (raw, in the format the player opened);
/// and `capture48k`, the same at 48 kHz only (the player turns ALSA's own resampling off).
public enum ALSACapture {
    public static let config = """
        pcm.capture {
            type file
            slave.pcm { type null }
            file { @func getenv vars [ PRACTICE_CAPTURE ] default "capture.raw" }
            format "raw"
            perm 0644
        }
        pcm.capture48k {
            type plug
            slave { pcm "capture"; rate 48000 }
        }

        """

    /// Environment for a player process that should play into `capture` and write `rawPath`.
    public static func environment(in dir: ScratchDirectory, rawPath: String) -> [String: String] {
        let conf = dir.file("asound.conf")
        if !FileManager.default.fileExists(atPath: conf) { try! config.write(toFile: conf, atomically: true, encoding: .utf8) }
        return ["ALSA_CONFIG_PATH": "/usr/share/alsa/alsa.conf:\(conf)", "PRACTICE_CAPTURE": rawPath]
    }
}
