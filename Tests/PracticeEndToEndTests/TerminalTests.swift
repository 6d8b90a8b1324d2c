import Foundation
import Testing
import PracticeTestSupport

/// On a real terminal (tmux), paced by a real-time PulseAudio null sink: the practice screen driven
/// by keys, and (with --no-tui) one refreshing status line; both leave the terminal as it was.
@Suite(.serialized) struct TerminalTests {
    let fx = Fixtures.shared

    func tmux(_ args: [String]) throws -> String { try run("/usr/bin/tmux", args).stdout }

    /// Starts an 80×24 tmux session with a plain shell, and runs `command` in `dir` there against the
    /// rig's sound server, followed by `echo EXIT=$?`. Returns the session's name.
    func startShell(_ session: String, running command: String, in dir: String, rig: PulseRig) throws -> String {
        // Spawned, not Process: the tmux server keeps its client's output open, so reading it never ends.
        let start = try Spawned("/usr/bin/tmux", ["new-session", "-d", "-s", session, "-x", "80", "-y", "24", "bash --norc --noprofile"],
                                environment: ProcessInfo.processInfo.environment)
        try #require(start.wait() == 0)
        let line = "cd \(dir) && PS1='$ ' && clear && PULSE_SERVER=\(rig.server) XDG_RUNTIME_DIR=\(rig.runtimeDir.path) \(command); echo EXIT=$?"
        _ = try tmux(["send-keys", "-t", session, line, "Enter"])
        return session
    }

    /// Waits until the pane shows `text`; returns the screen.
    func waitFor(_ text: String, in session: String, seconds: Double = 10) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var screen = ""
        while Date() < deadline {
            screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen.contains(text) { return screen }
            usleep(100_000)
        }
        return screen
    }

    @Test func theScreenDropsAMarkerChangesSpeedJumpsAndQuits() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("tui")
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("song.wav"), tags: ["title": "Drill", "artist": "Crew"])
        let session = try startShell("practice-tui-\(getpid())",
                                     running: "XDG_CACHE_HOME=\(dir.path)/cache \(practiceBinary) song.wav --device pulse --rate 0.8",
                                     in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        var screen = try waitFor("▶ Playing   0:01", in: session)
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Drill" && lines.dropFirst().first == "Crew", "screen:\n\(screen)")
        #expect(screen.contains("Markers: none yet (m drops one where you are)"))

        _ = try tmux(["send-keys", "-t", session, "m"])
        screen = try waitFor(", name: Marker 1█", in: session)
        #expect(screen.contains(", name: Marker 1█"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "BSpace", "BSpace", "Enter"])   // "Marker 1" → "Marker" (trailing space trimmed)
        screen = try waitFor("added marker 'Marker'", in: session)
        #expect(screen.contains("added marker 'Marker' at 0:01."), "screen:\n\(screen)")
        #expect(screen.contains("▸ 1  0:01."))

        _ = try tmux(["send-keys", "-t", session, "]"])
        screen = try waitFor("speed 0.90×", in: session)
        #expect(screen.contains("speed 0.90×"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "1"])
        screen = try waitFor("Marker (0:01.", in: session)
        #expect(screen.contains("Marker (0:01."), "screen:\n\(screen)")

        // An A–B loop from here, on at once, then saved under a name.
        _ = try tmux(["send-keys", "-t", session, "a"])
        usleep(800_000)
        _ = try tmux(["send-keys", "-t", session, "b"])
        screen = try waitFor("on, pass ", in: session)
        #expect(screen.contains("on, pass 1"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "s"])
        _ = try waitFor("Save the loop as: Loop 1█", in: session)
        _ = try tmux(["send-keys", "-t", session, "Enter"])
        screen = try waitFor("saved loop 'Loop 1'", in: session)
        #expect(screen.contains("saved loop 'Loop 1' (song.wav.practice.json)"), "screen:\n\(screen)")

        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        #expect(!screen.contains("Markers"), "the practice screen is still shown:\n\(screen)")
        let loops = try run(practiceBinary, ["loops", "song.wav"], environment: ["XDG_CACHE_HOME": dir.path + "/cache"], currentDirectory: dir.path)
        #expect(loops.stdout.hasPrefix("NAME    FROM      TO        LENGTH\nLoop 1  0:01."), "\(loops.stdout)")
        let sidecar = try String(contentsOfFile: dir.file("song.wav.practice.json"), encoding: .utf8)
        #expect(sidecar.contains("\"name\": \"Marker\""))
    }

    @Test func statusLineOnATerminalAndCtrlCQuits() throws {
        let rig = try PulseRig()
        let session = try startShell("practice-test-\(getpid())", running: "\(practiceBinary) tone.wav --device pulse --rate 0.8 --no-tui",
                                     in: fx.dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
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
