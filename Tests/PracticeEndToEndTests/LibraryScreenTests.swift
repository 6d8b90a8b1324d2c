// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// The library screen on a real terminal (tmux), its practice screen playing through the
/// real-time sink: search, open a track, drop a marker, come back, and find the track by the
/// marker's name. Part of the terminal suite's own batch.
extension TerminalTests {
    @Test func theLibraryFindsATrackByAMarkerDroppedFromIt() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("library-tui")
        try FileManager.default.createDirectory(atPath: dir.file("music/Crew/Warmups"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("music/Band"), withIntermediateDirectories: true)
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("music/Crew/Warmups/drill.wav"), tags: ["title": "Drill", "artist": "Crew", "album": "Warmups"])
        try Signals.write(Signals.sine(330, seconds: 20), to: dir.file("music/Band/song.wav"), tags: ["title": "Song", "artist": "Band"])
        let env = "XDG_CACHE_HOME=\(dir.path)/cache XDG_CONFIG_HOME=\(dir.path)/config NO_COLOR=1"
        let session = try startShell("practice-library-\(getpid())", running: "\(env) \(practiceBinary) library music --device pulse",
                                     in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        var screen = try waitFor("practice library · 2 tracks, 2 albums", in: session)
        // Today's pick is the day's: the one `practice pick` names from the same index today.
        let pick = try practice(["pick"], in: dir, environment: ["XDG_CACHE_HOME": dir.file("cache"), "XDG_CONFIG_HOME": dir.file("config")])
        let picked = try #require(pick.stdout.split(separator: "\n").first.map(String.init), "\(pick)")
        #expect(picked.hasSuffix("(not practised yet)") && screen.contains(picked), "\(picked)\n\(screen)")

        func press(_ keys: String...) throws { _ = try tmux(["send-keys", "-t", session] + keys) }
        // Space previews the selected album's first track (Band — Song, 330 Hz) through the sink; again stops it.
        try rig.startRecording()
        try press("Space")
        screen = try waitFor("Space again stops it", in: session)
        #expect(screen.contains("preview: song.wav, 15 s from its heart"), "\(screen)")
        usleep(1_500_000)
        try press("Space")
        _ = try waitFor("preview stopped", in: session)
        let heard = rig.stopRecording().samples
        let left = stride(from: 0, to: heard.count, by: 2).map { Double(heard[$0]) }
        let loud = left.drop { abs($0) < 0.01 }.prefix(22_050)
        #expect(loud.count == 22_050 && abs(Analysis.dominantFrequency(Array(loud), sampleRate: rig.sampleRate) - 330) < 3,
                "\(loud.count) frames of sound")
        try press("/")
        try press("-l", "dri")
        screen = try waitFor("1 hit", in: session)
        #expect(screen.contains("/ dri▏") && screen.contains("Crew — Drill") && screen.contains("tags"), "\(screen)")
        try press("Enter")
        try press("Enter")
        screen = try waitFor("▶ Playing", in: session)
        #expect(screen.hasPrefix("Drill\nCrew"), "the practice screen on the track:\n\(screen)")

        try press("m")
        _ = try waitFor("Marker 1", in: session)
        try press("-l", "pirouette")
        try press("Enter")
        screen = try waitFor("added marker 'pirouette'", in: session)
        #expect(screen.contains("added marker 'pirouette' at 0:0"), "\(screen)")
        let sidecar = try String(contentsOfFile: dir.file("music/Crew/Warmups/drill.wav.practice.json"), encoding: .utf8)
        #expect(sidecar.contains("\"name\": \"pirouette\""), "\(sidecar)")
        // Today's note, from the practice screen.
        try press("n")
        _ = try waitFor("Today's note", in: session)
        try press("-l", "pirouette lands now")
        try press("Enter")
        _ = try waitFor("noted in today's journal", in: session)
        try press("q")
        screen = try waitFor("practice library", in: session)
        // Back where it was: the search for "dri", its hit picked.
        #expect(screen.contains("/ dri") && screen.contains("Crew — Drill"), "\(screen)")

        try press("/")
        try press("C-u")
        try press("-l", "piro")
        screen = try waitFor("marker  pirouette", in: session)
        let hit = screen.split(separator: "\n").first { $0.contains("marker  pirouette") }.map(String.init) ?? ""
        #expect(hit.hasPrefix("Crew — Drill  0:0"), "the marker's track and time:\n\(screen)")
        try press("Escape")

        // A file deleted after the scan: Enter says so, and it is gone once the library looks again.
        try FileManager.default.removeItem(atPath: dir.file("music/Band/song.wav"))
        try press("/")
        try press("-l", "song")
        _ = try waitFor("1 hit", in: session)
        try press("Enter")
        try press("Enter")
        screen = try waitFor("no longer there", in: session)
        #expect(screen.contains("\(dir.file("music/Band/song.wav")): no longer there"), "\(screen)")
        screen = try waitFor("0 hits", in: session)
        #expect(screen.contains("practice library · 1 track, 1 album"), "\(screen)")
        try press("Escape")
        try press("q")
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0") && !screen.contains("practice library ·"), "\(screen)")
        // The session on the practice screen is in the journal, with its marker and the note.
        let journal = try run(practiceBinary, ["journal", "today", "--json"], environment: ["XDG_DATA_HOME": dir.file("data")])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(journal.stdout.utf8)) as? [String: Any], "\(journal)")
        #expect((report["songs"] as? [[String: Any]])?.first?["song"] as? String == "Crew — Drill", "\(report)")
        #expect((report["notes"] as? [[String: Any]])?.first?["text"] as? String == "pirouette lands now", "\(report)")
        let config = try String(contentsOfFile: dir.file("config/practice/config.toml"), encoding: .utf8)
        #expect(config == "[library]\n# The music folders 'practice library' scans.\nfolders = [\(JSONString(dir.file("music")))]\n", "\(config)")
    }
}

extension TerminalTests {
    /// SIGTERM while the library screen is up: the terminal given back (no alternate screen, not
    /// raw), exit 143.
    @Test func aSignalEndsTheLibraryScreenCleanly() throws {
        let dir = ScratchDirectory("library-signal")
        try FileManager.default.createDirectory(atPath: dir.file("music"), withIntermediateDirectories: true)
        try Signals.write(Signals.sine(440, seconds: 0.5), to: dir.file("music/a.wav"), tags: ["title": "Alone"])
        let png = "import struct, sys, zlib\n" +
            "raw = b''.join(b'\\0' + bytes(255 * ((x // 8 + y // 8) % 2) for x in range(64) for _ in range(3)) for y in range(64))\n" +
            "chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)\n" +
            "open(sys.argv[1], 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 64, 64, 8, 2, 0, 0, 0))" +
            " + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))\n"
        #expect(try run("/usr/bin/python3", ["-c", png, dir.file("music/cover.png")]).status == 0)
        let session = "practice-library-signal-\(getpid())"
        try #require(try Tmux.newSession(session, width: 80, height: 24) == 0)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        let line = "cd \(dir.path) && PS1='$ ' && clear && XDG_CACHE_HOME=\(dir.path)/cache XDG_CONFIG_HOME=\(dir.path)/config XDG_DATA_HOME=\(dir.path)/data env -u NO_COLOR \(practiceBinary) library music; echo EXIT=$?; stty -a | grep -o -- '-icanon\\|icanon' | head -1"
        _ = try tmux(["send-keys", "-t", session, line, "Enter"])
        _ = try waitFor("practice library · 1 track", in: session)
        // The folder's cover (a checkerboard) is decoded beside the screen and then drawn in blocks
        // (`swift test` runs with NO_COLOR=1, which would ask for text only).
        var blocks = false
        for _ in 0..<100 where !blocks {
            blocks = try tmux(["capture-pane", "-p", "-t", session]).unicodeScalars.contains { (0x2580...0x259F).contains($0.value) }
            if !blocks { usleep(50_000) }
        }
        let shown = try tmux(["capture-pane", "-p", "-t", session])
        #expect(blocks, "the cover is drawn:\n\(shown)")
        // This session's screen: the shell's child (another process's suite may show a library
        // screen of its own at the same moment, TerminalTests' other half in `Tests/run.sh`).
        let shell = try tmux(["display-message", "-p", "-t", session, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try run("/usr/bin/pgrep", ["-P", shell, "-f", "^\(practiceBinary) library music"]).stdout.split(separator: "\n").first.flatMap { Int32($0) }
        kill(try #require(pid), SIGTERM)
        let screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=143") && !screen.contains("practice library ·"), "\(screen)")
        #expect(try waitFor("icanon", in: session).split(separator: "\n").contains("icanon"), "the terminal is cooked again")
        #expect(try tmux(["display-message", "-p", "-t", session, "#{alternate_on}"]) == "0\n")
    }
}

/// `"…"`, as JSON and TOML write a string.
func JSONString(_ s: String) -> String {
    String(data: try! JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes]), encoding: .utf8)!.dropFirst().dropLast().description
}
