import Foundation
import Testing
import PracticeTestSupport

/// On a real terminal (tmux), paced by a real-time PulseAudio null sink: one refreshing status
/// line, and Ctrl-C quits at once with exit 130 and the shell prompt back on a clean line.
@Suite(.serialized) struct TerminalTests {
    let fx = Fixtures.shared

    func tmux(_ args: [String]) throws -> String { try run("/usr/bin/tmux", args).stdout }

    @Test func statusLineOnATerminalAndCtrlCQuits() throws {
        let rig = try PulseRig()
        let session = "practice-test-\(getpid())"
        // Spawned, not Process: the tmux server keeps its client's output open, so reading it never ends.
        let start = try Spawned("/usr/bin/tmux", ["new-session", "-d", "-s", session, "-x", "80", "-y", "24", "bash --norc --noprofile"],
                                environment: ProcessInfo.processInfo.environment)
        try #require(start.wait() == 0)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        let command = "cd \(fx.dir.path) && PS1='$ ' && clear && PULSE_SERVER=\(rig.server) XDG_RUNTIME_DIR=\(rig.runtimeDir.path) "
            + "\(practiceBinary) tone.wav --device pulse --rate 0.8; echo EXIT=$?"
        _ = try tmux(["send-keys", "-t", session, command, "Enter"])
        var screen = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            usleep(200_000)
            screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen.contains("▶ Tone  0:01") { break }
        }
        let status = screen.split(separator: "\n").first { $0.hasPrefix("▶ Tone") }.map(String.init)
        #expect(status?.hasSuffix(" / 0:10.0  0.80×") == true, "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "C-c"])
        usleep(700_000)
        screen = try tmux(["capture-pane", "-p", "-t", session])
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let exit = lines.firstIndex { $0 == "EXIT=130" }
        #expect(exit != nil, "screen:\n\(screen)")
        if let exit {
            #expect(lines[exit - 1].hasPrefix("▶ Tone") || lines[exit - 1].hasPrefix("⏸ Tone") || lines[exit - 1].hasPrefix("^C"), "line: \(lines[exit - 1].debugDescription)")
            #expect(lines[exit + 1] == "$")   // the prompt, on its own line (capture-pane trims the space)
        }
    }
}
