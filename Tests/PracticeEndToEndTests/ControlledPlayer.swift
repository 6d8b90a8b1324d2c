// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeTestSupport

/// `practice … --control stdin` driven as a script drives it: command lines written to its stdin,
/// its events (one JSON object a line, Formats/README.md) read from its stdout as they come.
final class ControlledPlayer {
    private let process = Process()
    private let input = Pipe(), output = Pipe(), error = Pipe()
    private var pending = ""
    /// Every line printed so far, in order (events and error answers alike).
    private(set) var printed: [String] = []

    struct NoSuchEvent: Error, CustomStringConvertible {
        let lastPrinted: String
        var description: String { "no such event; last printed: \(lastPrinted)" }
    }

    /// Starts `practice` with `arguments` (which must hold `--control stdin`) in `directory`, with
    /// the tests' usual environment (as `run`) plus `environment`.
    init(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws {
        precondition(arguments.contains("stdin"), "a ControlledPlayer is driven through --control stdin")
        process.executableURL = URL(fileURLWithPath: practiceBinary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.merging([
            "SWIFT_BACKTRACE": "enable=no",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/practice-tests-bus",
            "XDG_DATA_HOME": testDataHome,
        ]) { $1 }.merging(environment) { $1 }
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, error)
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    /// The player's process.
    var pid: pid_t { process.processIdentifier }

    /// Writes one command line.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next event (of kind `event`, if given) that `wanted` takes, within `seconds`; lines
    /// before it are passed over (and kept in `printed`).
    @discardableResult
    func next(_ event: String? = nil, within seconds: Double = 15,
              where wanted: ([String: Any]) -> Bool = { _ in true }) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            while let end = pending.firstIndex(of: "\n") {
                let line = String(pending[..<end])
                pending.removeSubrange(...end)
                printed.append(line)
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                   event == nil || object["event"] as? String == event, wanted(object) {
                    return object
                }
            }
            // Waits for output no later than the deadline (a player that hangs fails the test).
            var ready = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(deadline.timeIntervalSinceNow, 0) * 1000) + 1) == 1 else { continue }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            pending += String(decoding: chunk, as: UTF8.self)
        }
        throw NoSuchEvent(lastPrinted: printed.last ?? "nothing")
    }

    private var errorPending = ""
    /// Everything read from stderr so far.
    private(set) var stderrSoFar = ""

    /// Stderr up to the first line containing `text`, read as it comes, within `seconds`.
    @discardableResult
    func stderrLine(containing text: String, within seconds: Double = 15) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let line = errorPending.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first(where: { $0.contains(text) }) {
                let end = errorPending.range(of: String(line))!.upperBound
                errorPending.removeSubrange(..<end)
                return String(line)
            }
            guard Date() < deadline else { throw NoSuchEvent(lastPrinted: "stderr so far: \(stderrSoFar)") }
            var ready = pollfd(fd: error.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(deadline.timeIntervalSinceNow, 0) * 1000) + 1) == 1 else { continue }
            let chunk = String(decoding: error.fileHandleForReading.availableData, as: UTF8.self)
            if chunk.isEmpty { throw NoSuchEvent(lastPrinted: "stderr closed; so far: \(stderrSoFar)") }
            errorPending += chunk
            stderrSoFar += chunk
        }
    }

    /// Sends `quit`, closes stdin and waits for the exit: its status, every line printed (the
    /// ones `next` passed over included) and all of stderr.
    func quit() throws -> (status: Int32, printed: [String], stderr: String) {
        send(#"{"cmd":"quit"}"#)
        try input.fileHandleForWriting.close()
        let rest = pending + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        pending = ""
        printed += rest.split(separator: "\n").map(String.init)
        let stderr = stderrSoFar + String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, printed, stderr)
    }
}
