// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
import PracticeAudio

/// On a real terminal (tmux), paced by a real-time PulseAudio null sink: the practice screen driven
/// by keys, and (with --no-tui) one refreshing status line; both leave the terminal as it was.
@Suite(.serialized) struct TerminalTests {
    let fx = Fixtures.shared

    func tmux(_ args: [String]) throws -> String { try Tmux.run(args) }

    /// Starts an 80×24 tmux session with a plain shell, and runs `command` in `dir` there against the
    /// rig's sound server, followed by `echo EXIT=$?`. Returns the session's name.
    func startShell(_ session: String, running command: String, in dir: String, rig: PulseRig) throws -> String {
        try #require(try Tmux.newSession(session, width: 80, height: 24) == 0)
        // Each test's own state folder: where a track was left is remembered per person.
        let line = "cd \(dir) && PS1='$ ' && clear && export XDG_STATE_HOME=\(dir)/state XDG_DATA_HOME=\(dir)/data DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/practice-tests-bus && PULSE_SERVER=\(rig.server) XDG_RUNTIME_DIR=\(rig.runtimeDir.path) \(command); echo EXIT=$?"
        _ = try tmux(["send-keys", "-t", session, line, "Enter"])
        return session
    }

    /// Starts the rig's recorder, then in tmux plays a short warm-up clip (a fresh server's first
    /// stream loses its head: audio-testing.md) and opens `song.wav` of `dir` on the practice screen.
    func startRecordedScreen(_ session: String, in dir: ScratchDirectory, rig: PulseRig, environment: String = "", arguments: String = "") throws -> String {
        try Signals.write(Signals.sine(100, seconds: 0.3, amplitude: 0.1), to: dir.file("warm.wav"))
        try rig.startRecording()
        return try startShell(session, running: "\(environment) XDG_CACHE_HOME=\(dir.path)/cache bash -c '\(practiceBinary) warm.wav --no-tui --device pulse >/dev/null; "
                                + "exec \(practiceBinary) song.wav --device pulse \(arguments)'", in: dir.path, rig: rig)
    }

    /// Waits until the pane shows `text`; returns the screen (throws, with it, after `seconds`).
    func waitFor(_ text: String, in session: String, seconds: Double = 10) throws -> String {
        try Tmux.waitFor(text, in: session, seconds: seconds)
    }

    /// The position (m:ss.s) on the screen's line that starts with `prefix` ("▶ Playing   ").
    func position(after prefix: String, in screen: String) -> Double? {
        guard let line = screen.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        let parts = line.dropFirst(prefix.count).prefix { $0 != " " }.split(separator: ":")
        guard parts.count == 2, let m = Double(parts[0]), let s = Double(parts[1]) else { return nil }
        return m * 60 + s
    }

    /// `m` then Enter (the suggested name, "Marker 1"); returns the screen once it shows `text`.
    func dropMarker(in session: String, then text: String) throws -> String {
        _ = try tmux(["send-keys", "-t", session, "m"])
        _ = try waitFor("Marker 1", in: session)
        _ = try tmux(["send-keys", "-t", session, "Enter"])
        return try waitFor(text, in: session)
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
        screen = try waitFor("Marker 1", in: session)
        #expect(screen.contains(", name: Marker 1█") || screen.contains(", name: ‹Marker 1›█"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "-l", "Intro riff"])   // typing replaces the suggested name
        _ = try tmux(["send-keys", "-t", session, "Enter"])
        screen = try waitFor("added marker 'Intro riff'", in: session)
        #expect(screen.contains("added marker 'Intro riff' at 0:01."), "screen:\n\(screen)")
        #expect(screen.contains("▸ 1  0:01."))

        _ = try tmux(["send-keys", "-t", session, "]"])
        screen = try waitFor("speed 0.90×", in: session)
        #expect(screen.contains("speed 0.90×"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "1"])
        screen = try waitFor("Intro riff (0:01.", in: session)
        #expect(screen.contains("Intro riff (0:01."), "screen:\n\(screen)")

        // An A–B loop from here, on at once, then saved under a name. Two seconds long: its first
        // pass outlasts a slow look at the screen (0.7 s was once seen already on its second).
        _ = try tmux(["send-keys", "-t", session, "a"])
        usleep(2_000_000)
        _ = try tmux(["send-keys", "-t", session, "b"])
        screen = try waitFor("on, pass ", in: session)
        #expect(screen.contains("on, pass 1"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "s"])
        _ = try waitFor("Save the loop as: ‹Loop 1›█", in: session)
        _ = try tmux(["send-keys", "-t", session, "Enter"])
        screen = try waitFor("saved loop 'Loop 1'", in: session)
        #expect(screen.contains("saved loop 'Loop 1' (song.wav.practice.json)"), "screen:\n\(screen)")

        // The screen asks for clicks (SGR mouse); a click (the bytes a terminal sends) in the middle
        // of the seek bar goes to the middle of the song.
        #expect(try tmux(["display-message", "-p", "-t", session, "#{mouse_sgr_flag} #{mouse_standard_flag}"]) == "1 1\n")
        _ = try tmux(["send-keys", "-t", session, "l"])   // loop off, so the click is heard where it lands
        _ = try waitFor("off (l turns it on)", in: session)
        _ = try tmux(["send-keys", "-t", session, "-H"] + Array("\u{1B}[<0;41;5M".utf8).map { String($0, radix: 16) })
        screen = try waitFor("at 0:10.", in: session)
        #expect(screen.contains("at 0:10.") && screen.contains("▶ Playing   0:1"), "a click at the middle of the bar:\n\(screen)")

        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        #expect(!screen.contains("Markers"), "the practice screen is still shown:\n\(screen)")
        #expect(try tmux(["display-message", "-p", "-t", session, "#{mouse_sgr_flag} #{mouse_standard_flag}"]) == "0 0\n", "clicks given back to the terminal")
        let loops = try run(practiceBinary, ["loops", "song.wav"], environment: ["XDG_CACHE_HOME": dir.path + "/cache"], currentDirectory: dir.path)
        #expect(loops.stdout.hasPrefix("NAME    FROM      TO        LENGTH\nLoop 1  0:01."), "\(loops.stdout)")
        let sidecar = try String(contentsOfFile: dir.file("song.wav.practice.json"), encoding: .utf8)
        #expect(sidecar.contains("\"name\": \"Intro riff\""))
    }

    /// At 1.0× the output is the source, sample for sample, and the source is a counter whose every
    /// frame says where it is: the capture shows where each key's jump landed, and what was heard
    /// when `m` was pressed. Both within 20 ms.
    @Test func theCapturedAudioJumpsWhereTheKeysSay() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("tui-jumps")
        let env = ["XDG_CACHE_HOME": dir.path + "/cache"]
        try Signals.write(Signals.counter(frames: 12 * 44_100), to: dir.file("song.wav"), format: .float)
        _ = try run(practiceBinary, ["markers", "add", "song.wav", "Far", "9"], environment: env, currentDirectory: dir.path)
        let session = try startRecordedScreen("practice-jumps-\(getpid())", in: dir, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        var screen = try waitFor("▶ Playing   0:01", in: session)
        usleep(500_000)
        let pressedM = Double(monotonicNanoseconds())
        _ = try tmux(["send-keys", "-t", session, "m"])
        _ = try waitFor(", name: ‹Marker 2›█", in: session)
        _ = try tmux(["send-keys", "-t", session, "Enter"])
        screen = try waitFor("added marker 'Marker 2'", in: session)
        #expect(screen.contains("added marker 'Marker 2'"), "screen:\n\(screen)")
        usleep(1_000_000)
        _ = try tmux(["send-keys", "-t", session, "1"])    // back to Marker 2
        usleep(1_000_000)
        _ = try tmux(["send-keys", "-t", session, "2"])    // on to Far, at 9 s
        usleep(1_000_000)
        // A loop from here, its end nudged twice by +10 ms, its start (Tab) by −100 ms.
        _ = try tmux(["send-keys", "-t", session, "a"])
        usleep(600_000)
        _ = try tmux(["send-keys", "-t", session, "b"])
        let before = try loopEnds(try waitFor("on, pass 1", in: session))
        _ = try tmux(["send-keys", "-t", session, "Up", "Up"])
        _ = try waitFor("loop end", in: session)
        _ = try tmux(["send-keys", "-t", session, "Tab", "S-Down"])
        let after = try loopEnds(try waitFor("loop start", in: session))
        #expect(abs(after.a - (before.a - 0.1)) < 0.0005 && abs(after.b - (before.b + 0.02)) < 0.0005, "loop \(before) → \(after)")
        usleep(1_800_000)   // two passes or more of the nudged loop
        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        let (captured, timeOfFrame) = rig.stopRecording()

        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("song.wav.practice.json")))) as! [String: Any]
        let times = Dictionary(uniqueKeysWithValues: (sidecar["markers"] as! [[String: Any]]).map { ($0["name"] as! String, $0["time"] as! Double) })
        let marker = try #require(times["Marker 2"])

        let runs = Self.counterRuns(captured)
        func error(_ frame: Int, _ seconds: Double) -> Double {   // ms between a frame (mod 65,536) and a time
            var d = (frame - Int((seconds * 44_100).rounded())) % 65_536
            if d >= 32_768 { d -= 65_536 } else if d < -32_768 { d += 65_536 }
            return Double(d) / 44.1
        }
        // Where a run begins, counted back to the end of the run before (the 5 ms fades between
        // them, not an underrun's silence).
        func landing(_ n: Int) -> Int { Self.landing(runs, n, in: captured) }
        try #require(runs.count >= 3, "runs: \(runs)")
        #expect(abs(error(landing(1), marker)) <= 20, "1 landed \(error(landing(1), marker)) ms from Marker 2")
        #expect(abs(error(landing(2), 9)) <= 20, "2 landed \(error(landing(2), 9)) ms from Far")
        // What was heard as m was pressed: the first run's frame at that moment.
        let heard = try #require((runs[0].first...runs[0].last).first { timeOfFrame($0) >= pressedM })
        let offset = error((runs[0].source + heard - runs[0].first) & 0xFFFF, marker)
        #expect(abs(offset) <= 20, "the marker is \(-offset) ms from what was heard when m was pressed")
        // The loop turns in the audio: the last pass begins at the nudged A, and the pass before it
        // runs from its 10 ms seam to B.
        let last = runs.count - 1
        try #require(last >= 4, "runs: \(runs)")
        #expect(abs(error(landing(last), after.a)) <= 20, "the last pass began \(error(landing(last), after.a)) ms from A")
        let pass = Double(Self.heard(runs[last - 1]) + 441) / 44.1
        #expect(abs(pass - (after.b - after.a) * 1000) <= 20, "a pass lasted \(pass) ms, the loop \((after.b - after.a) * 1000)")
        print("jumps: \(error(landing(1), marker)) ms, \(error(landing(2), 9)) ms; marker vs heard: \(-offset) ms")
    }

    /// The study's task, typed as a person would on a fresh song: go to 1:00, mark "Chorus" and
    /// "Chorus end" while it plays, loop that section, 0.8×, count-in on (the tempo tapped), five
    /// passes. 14 keys besides the two names and the taps (`Self.taskKeys`; README). The capture
    /// shows a count-in of four clicks, then a pass of (B − A) ÷ 0.8, five times, starting at the
    /// step of the source where A is and ending at B's; then silence, paused at A.
    /// Types the study's 14 keys into `session` (playing, before 1:00): go to 1:00, mark
    /// "Chorus", `between` µs later "Chorus end", loop it, 0.8×, count-in, 5 passes; each step
    /// waits for the screen to show it. Returns the screen as the count-in was turned on.
    func typeTheStudysTask(in session: String, between: UInt32) throws -> String {
        func press(_ k: String) throws { _ = try tmux(["send-keys", "-t", session, k]) }
        let keys = Self.taskKeys
        var k = 0
        func next(_ n: Int) throws { for _ in 0..<n { try press(keys[k]); k += 1; usleep(60_000) } }
        try next(4)                                          // g 6 0 Enter
        _ = try waitFor("▶ Playing   1:00", in: session)
        try next(1)                                          // m
        _ = try tmux(["send-keys", "-t", session, "-l", "Chorus"])
        try next(1)                                          // Enter
        _ = try waitFor("added marker 'Chorus'", in: session)
        usleep(between)
        try next(1)                                          // m
        _ = try tmux(["send-keys", "-t", session, "-l", "Chorus end"])
        try next(1)                                          // Enter
        _ = try waitFor("added marker 'Chorus end'", in: session)
        try next(1)                                          // o
        _ = try waitFor("loop 'Chorus' → 'Chorus end'", in: session)
        try next(2)                                          // [ [
        _ = try waitFor("speed 0.80×", in: session)
        try next(1)                                          // c
        let screen = try waitFor("count-in: 4 clicks", in: session)
        try next(2)                                          // p 5
        #expect(k == keys.count && keys.count <= 15)
        return screen
    }

    static let taskKeys = ["g", "6", "0", "Enter", "m", "Enter", "m", "Enter", "o", "[", "[", "c", "p", "5"]

    /// The study's drill on a real song (Debian's wesnoth `frantic.ogg`, 2:42, its beats found
    /// first with `practice beats`, whose tempo the count-in takes): the same 14 keys, the markers
    /// where they were pressed, five passes; then, paused, a go-to stays paused and the marker
    /// after it lands exactly where it went (a go-to used to start playback: ¾ of a beat late).
    @Test func theStudysTaskOnARealSong() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("tui-real-task")
        let made = try run("/usr/bin/sox", ["/usr/share/games/wesnoth/1.16/data/core/music/frantic.ogg", dir.file("song.wav")])
        try #require(made.status == 0, "\(made)")
        let beats = try run(practiceBinary, ["beats", "song.wav"], environment: ["XDG_CACHE_HOME": dir.file("cache")], currentDirectory: dir.path)
        try #require(beats.status == 0, "\(beats)")
        let session = try startRecordedScreen("practice-real-task-\(getpid())", in: dir, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        func press(_ k: String) throws { _ = try tmux(["send-keys", "-t", session, k]) }
        _ = try waitFor("▶ Playing   0:00", in: session)
        var screen = try typeTheStudysTask(in: session, between: 2_000_000)
        let sidecar = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("song.wav.practice.json")))) as? [String: Any])
        let tempo = try #require((sidecar["beats"] as? [String: Any])?["tempo"] as? Double)
        #expect(screen.contains("count-in: 4 clicks at \(Int(tempo))"), "the grid's tempo, \(tempo): \(screen)")
        screen = try waitFor("5 passes done: paused at the loop's start", in: session, seconds: 60)
        #expect(screen.contains("5 passes done"), "screen:\n\(screen)")
        // Paused: a go-to stays paused, and the marker after it is exactly there.
        for key in ["g", "3", "0", "Enter"] { try press(key); usleep(60_000) }
        screen = try waitFor("⏸ Paused   0:30", in: session)
        #expect(screen.contains("⏸ Paused   0:30.0"), "screen:\n\(screen)")
        try press("m")
        _ = try tmux(["send-keys", "-t", session, "-l", "Here"])
        try press("Enter")
        _ = try waitFor("added marker 'Here'", in: session)
        try press("q")
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        _ = rig.stopRecording()
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("song.wav.practice.json")))) as! [String: Any]
        let times = Dictionary(uniqueKeysWithValues: (doc["markers"] as! [[String: Any]]).map { ($0["name"] as! String, $0["time"] as! Double) })
        let a = try #require(times["Chorus"]), b = try #require(times["Chorus end"])
        #expect(a >= 60 && a < 61 && b > a + 1, "markers at \(a), \(b)")
        #expect(times["Here"] == 30, "the marker after a paused go-to: \(times)")
    }

    @Test func theStudysTaskInFourteenKeys() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("tui-task")
        // 70 s whose pitch steps every 250 ms (300…750 Hz, below the clicks' 1 and 1.5 kHz), so a
        // moment of audio says where in the song it is.
        func step(_ t: Double) -> Double { 300 + 30 * Double(Int(t / 0.25) % 16) }
        var samples = [Float](repeating: 0, count: 70 * 44_100 * 2)
        var phase = 0.0
        for i in 0..<(70 * 44_100) {
            phase += 2 * .pi * step(Double(i) / 44_100) / 44_100
            samples[2 * i] = Float(0.4 * sin(phase)); samples[2 * i + 1] = samples[2 * i]
        }
        try Signals.write(samples, to: dir.file("song.wav"))
        let session = try startRecordedScreen("practice-task-\(getpid())", in: dir, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        func press(_ k: String) throws { _ = try tmux(["send-keys", "-t", session, k]) }
        _ = try waitFor("▶ Playing   0:00", in: session)
        for _ in 0..<4 { try press("t"); usleep(500_000) }   // the taps: 120 bpm, less what tmux takes
        let tapped = try waitFor("bpm from", in: session)
        // The tempo the taps gave (tmux's own time between them makes it 116 to 120; their span
        // read 12 ms short beside the quiet part's other players made it 121.0 once): the count-in's.
        let bpm = try #require(tapped.firstMatch(of: /tempo ([0-9.]+) bpm from 4 taps/).flatMap { Double($0.1) }, "screen:\n\(tapped)")
        #expect(bpm > 110 && bpm <= 122, "tapped \(bpm) bpm")
        _ = try typeTheStudysTask(in: session, between: 1_200_000)
        var screen = try waitFor("5 passes done: paused at the loop's start", in: session, seconds: 40)
        #expect(screen.contains("5 passes done"), "screen:\n\(screen)")
        usleep(1_000_000)
        try press("q")
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        let (captured, _) = rig.stopRecording()

        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("song.wav.practice.json")))) as! [String: Any]
        let times = Dictionary(uniqueKeysWithValues: (doc["markers"] as! [[String: Any]]).map { ($0["name"] as! String, $0["time"] as! Double) })
        let a = try #require(times["Chorus"]), b = try #require(times["Chorus end"])
        #expect(a >= 60 && a < 61 && b > a + 0.5, "markers at \(a), \(b)")

        // Sound in 10 ms windows, told apart by how often it crosses zero: the song's tone (≤ 750 Hz:
        // about 15 crossings a window) or a click (1 kHz and up: 20 or more).
        let left = stride(from: 0, to: captured.count, by: 2).map { Double(captured[$0]) }
        let window = 441
        let kinds: [Character] = stride(from: 0, to: left.count - window, by: window).map { w in
            let x = left[w..<(w + window)]
            guard x.reduce(0, { $0 + $1 * $1 }) / Double(window) > 0.0004 else { return " " }
            let crossings = zip(x, x.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
            return crossings <= 17 ? "t" : "c"
        }
        // Runs of one kind, in windows: one odd window inside is bridged, and for the tone silence
        // too (an underrun's, in a slow hour of CI: the song goes on after it where it stopped),
        // counted in `silent`.
        func runs(of kind: Character) -> [(start: Int, end: Int, silent: Int)] {
            var out: [(start: Int, end: Int, silent: Int)] = []
            var w = 0
            while w < kinds.count {
                guard kinds[w] == kind else { w += 1; continue }
                var e = w, silent = 0
                while e + 1 < kinds.count {
                    if kinds[e + 1] == kind || (e + 2 < kinds.count && kinds[e + 2] == kind) { e += 1; continue }
                    guard kind == "t", let resumes = kinds[(e + 1)...].firstIndex(where: { $0 != " " }), kinds[resumes] == kind else { break }
                    silent += resumes - e - 1
                    e = resumes
                }
                out.append((w, e, silent))
                w = e + 1
            }
            return out
        }
        let tones = runs(of: "t"), clicks = runs(of: "c")
        let passes = tones.filter { $0.end - $0.start - $0.silent >= 50 }.suffix(5)   // ≥ 0.5 s of tone
        try #require(passes.count == 5, "tones: \(tones)")
        let expected = (b - a) / 0.8
        // The count-in: four beats at 0.8× of the tapped tempo (about 2.5 s), and 0.1 s to spare;
        // before the second pass and on, all that lies since the pass before (an underrun there
        // makes it longer).
        let countIn = Int((4 * 60 / bpm / 0.8 + 0.1) * 44_100) / window
        for (n, p) in passes.enumerated() {
            let seconds = Double(p.end - p.start + 1 - p.silent) * Double(window) / 44_100
            #expect(abs(seconds - expected) <= 0.03, "pass \(n + 1) lasted \(seconds) s; (B − A) ÷ 0.8 is \(expected) s")
            // Four clicks in the count-in before it, nothing else.
            let from = n == 0 ? p.start - countIn : passes[passes.index(passes.startIndex, offsetBy: n - 1)].end + 1
            let before = clicks.filter { $0.end < p.start && $0.start >= from }
            #expect(before.count == 4 && before.allSatisfy { $0.end - $0.start < 6 }, "clicks before pass \(n + 1) (windows \(p.start)…\(p.end); the count-in from window \(from)): \(before); all clicks before it: \(clicks.filter { $0.start < p.start }.suffix(8))")
            // (A click's first window, half silence, may count as one window of tone.)
            let stray = tones.filter { $0.start > from && $0.end < p.start && $0.end - $0.start > $0.silent }
            #expect(stray.isEmpty, "only clicks before pass \(n + 1) (\(p)): \(stray)")
            // It starts where A is in the song and ends where B is (the steps say where).
            let first = Array(left[(p.start * window + 441)..<(p.start * window + 441 + 2_048)])
            let last = Array(left[((p.end + 1) * window - 441 - 2_048)..<((p.end + 1) * window - 441)])
            #expect(abs(Analysis.dominantFrequency(first, sampleRate: 44_100) - step(a + 0.02)) < 10, "pass \(n + 1) starts away from A")
            #expect(abs(Analysis.dominantFrequency(last, sampleRate: 44_100) - step(b - 0.02)) < 10, "pass \(n + 1) ends away from B")
        }
        // After the fifth pass: quiet (paused at A), nothing more.
        let last = try #require(passes.last)
        let afterwards = String(kinds[last.end...]).replacingOccurrences(of: " ", with: ".")
        #expect(!(tones + clicks).contains { $0.start > last.end + 2 },
                "after the last pass (it ended at window \(last.end) of \(kinds.count)): \((tones + clicks).filter { $0.start > last.end + 2 }); the windows from its end: \(afterwards)")
    }

    /// The marker list (rename, nudge, delete with a confirm), a key moved in keys.conf, tap tempo
    /// and the count-in, on ALSA's null device (it plays to the end at once, then waits at the start).
    @Test func theMarkerListKeysConfAndTapTempo() throws {
        let dir = ScratchDirectory("tui-edit")
        let env = ["XDG_CACHE_HOME": dir.path + "/cache"]
        try Signals.write(Signals.sine(440, seconds: 8), to: dir.file("song.wav"))
        for (name, time) in [("Verse", "2"), ("Chorus", "5")] {
            _ = try run(practiceBinary, ["markers", "add", "song.wav", name, time], environment: env, currentDirectory: dir.path)
        }
        try FileManager.default.createDirectory(atPath: dir.path + "/config/practice", withIntermediateDirectories: true)
        try "# markers with x, not m\nx add-marker\nm ignore\n".write(toFile: dir.path + "/config/practice/keys.conf", atomically: true, encoding: .utf8)
        let rig = try PulseRig()   // unused by `null`; startShell wants one
        let session = try startShell("practice-edit-\(getpid())",
                                     running: "XDG_CONFIG_HOME=\(dir.path)/config XDG_CACHE_HOME=\(dir.path)/cache \(practiceBinary) song.wav --device null",
                                     in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        func keys(_ k: String..., then text: String) throws -> String {
            _ = try tmux(["send-keys", "-t", session] + k)
            let screen = try waitFor(text, in: session)
            #expect(screen.contains(text), "after \(k), screen:\n\(screen)")
            return screen
        }
        _ = try waitFor("the end: back to the start", in: session)
        _ = try tmux(["send-keys", "-t", session, "m"])   // unbound now
        _ = try keys("x", then: ", name: ‹Marker 3›█")
        _ = try keys("Enter", then: "added marker 'Marker 3' at 0:00.000")

        // M: the list, on the marker where we are (Marker 3 at 0); down to Verse, nudged +10 +10 +100 ms.
        _ = try keys("M", then: "Markers (editing)")
        _ = try keys("Down", "Right", then: "'Verse' at 0:02.010 (+10 ms)")
        _ = try keys("Right", then: "'Verse' at 0:02.020 (+10 ms)")
        var screen = try keys("S-Right", then: "'Verse' at 0:02.120 (+100 ms)")
        #expect(screen.contains("› 2  0:02.120  Verse"), "screen:\n\(screen)")
        _ = try keys("r", then: "Rename 'Verse' to: ‹Verse›█")
        _ = try keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "B", "r", "i", "d", "g", "e", "Enter", then: "renamed 'Verse' to 'Bridge'")
        _ = try keys("Down", "d", then: "Delete the marker 'Chorus'? y deletes it, any other key keeps it")
        _ = try keys("n", then: "kept 'Chorus'")
        _ = try keys("d", then: "Delete the marker 'Chorus'?")
        screen = try keys("y", then: "deleted the marker 'Chorus'")
        #expect(!screen.contains("Chorus  "), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "Escape"])
        screen = try waitFor("space play", in: session)
        #expect(screen.contains("Markers\n") && !screen.contains("(editing)"), "screen:\n\(screen)")

        // Tap tempo: five taps half a second apart are 120 bpm; c then counts in at that tempo.
        _ = try keys("c", then: "a count-in needs the song's tempo: tap it with t")
        for _ in 0..<5 {
            _ = try tmux(["send-keys", "-t", session, "t"])
            usleep(500_000)
        }
        screen = try waitFor("from 5 taps (saved)", in: session)
        let tapped = try #require(screen.split(separator: "\n").first { $0.hasPrefix("tempo ") }.map { String($0.dropFirst(6).prefix { $0 != " " }) })
        _ = try keys("c", then: "count-in: 4 clicks at \(tapped) bpm before each pass")
        _ = try keys("q", then: "EXIT=0")

        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("song.wav.practice.json")))) as! [String: Any]
        let live = (sidecar["markers"] as! [[String: Any]]).filter { $0["deleted"] == nil }
        #expect(live.map { $0["name"] as! String } == ["Marker 3", "Bridge"])
        #expect(live.map { $0["time"] as! Double } == [0, 2.12])
        let bpm = try #require((sidecar["settings"] as? [String: Any])?["bpm"] as? Double)
        #expect(abs(bpm - 120) < 6, "tapped \(bpm) bpm")
        #expect(Double(tapped) == bpm, "the screen said \(tapped) bpm, the sidecar \(bpm)")
    }

    /// The sound server dies mid-play: the screen gives the terminal back, one line names the
    /// device and says what happened, the exit code is 74 (EX_IOERR), and the marker dropped just
    /// before is in the sidecar.
    @Test func aSoundServerThatDiesEndsTheSessionCleanly() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("server-dies")
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("song.wav"))
        let session = try startShell("practice-dies-\(getpid())", running: "XDG_CACHE_HOME=\(dir.path)/cache \(practiceBinary) song.wav --device pulse",
                                     in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        _ = try waitFor("▶ Playing   0:01", in: session)
        _ = try dropMarker(in: session, then: "added marker 'Marker 1'")
        rig.killServer()
        _ = try waitFor("EXIT=", in: session)
        let screen = try tmux(["capture-pane", "-p", "-J", "-t", session])   // -J: wrapped lines joined
        #expect(screen.contains("EXIT=74"), "screen:\n\(screen)")
        #expect(screen.contains("practice: audio device 'pulse' went away (the sound server stopped or the card was unplugged; ALSA: ")
                && screen.contains("); your markers and loops are saved"), "screen:\n\(screen)")
        #expect(!screen.contains("Markers"), "the practice screen is still shown:\n\(screen)")
        #expect(try String(contentsOfFile: dir.file("song.wav.practice.json"), encoding: .utf8).contains("\"name\": \"Marker 1\""))
    }

    /// `--reconnect`: the sound server dies mid-play and the screen stays, says so in one line and
    /// holds the position; a marker dropped meanwhile is saved; when the server is back, playing
    /// goes on from the heard position, measured in the sound (a chirp: its pitch tells the time).
    @Test func withReconnectPlayingGoesOnWhenTheSoundServerIsBack() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("server-back")
        let rate = 44_100.0
        // 300 Hz rising 40 Hz a second: the frequency heard says where in the track it is.
        let chirp = (0..<Int(20 * rate)).flatMap { i -> [Float] in
            let t = Double(i) / rate
            let v = Float(0.5 * sin(2 * Double.pi * (300 * t + 20 * t * t)))
            return [v, v]
        }
        try Signals.write(chirp, to: dir.file("song.wav"))
        let session = try startShell("practice-back-\(getpid())", running: "XDG_CACHE_HOME=\(dir.path)/cache \(practiceBinary) song.wav --device pulse --reconnect",
                                     in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        var screen = try waitFor("▶ Playing   0:03", in: session)
        let playing = try #require(position(after: "▶ Playing   ", in: screen), "screen:\n\(screen)")
        rig.killServer()
        screen = try waitFor("⏸ No sound", in: session)
        #expect(screen.split(separator: "\n").contains("waiting for audio device 'pulse' to come back"), "screen:\n\(screen)")
        func shown(_ screen: String) -> Double? { position(after: "⏸ No sound   ", in: screen) }
        let lost = try #require(shown(screen), "screen:\n\(screen)")
        // Held where it was heard when the server died: just after what was shown playing.
        #expect(lost >= playing && lost - playing < 0.5, "held at \(lost) s, shown playing at \(playing) s before the kill")
        screen = try dropMarker(in: session, then: "added marker 'Marker 1'")
        // The screen shows the held position cut to tenths, the marker is it rounded to the
        // millisecond: 3.0996 s shows 0:03.0 and is marked at 0:03.100.
        let marked = try #require(position(after: "added marker 'Marker 1' at ", in: screen), "screen:\n\(screen)")
        #expect(marked >= lost && marked <= lost + 0.1 + 1e-9, "marked at \(marked) s, held at \(lost) s:\n\(screen)")
        usleep(1_000_000)
        screen = try tmux(["capture-pane", "-p", "-t", session])
        #expect(shown(screen) == lost, "the position holds while the server is gone:\n\(screen)")

        try rig.restartServer()
        try rig.startRecording()
        screen = try waitFor("the audio device is back: playing on at ", in: session)
        // From where it was held: the message cuts to tenths as the screen does, and the marker
        // says the held place to the millisecond, so the message shows the tenth of a place within
        // 1.5 ms of the marker (held at 3.0996 s, the screen showed 0:03.0, the marker 0:03.100
        // and the message, a fraction of a millisecond on, 0:03.1).
        let back = try #require(position(after: "the audio device is back: playing on at ", in: screen), "screen:\n\(screen)")
        let tenths = [marked - 0.0015, marked + 0.0015].map { ($0 * 10 + 1e-6).rounded(.down) / 10 }
        #expect(tenths.contains { abs($0 - back) < 1e-6 }, "playing on at \(back) s, held at \(lost) s (marked at \(marked) s):\n\(screen)")
        _ = try waitFor("▶ Playing   0:0\(Int(lost) + 1)", in: session)
        let (samples, _) = rig.stopRecording()
        let left = Signals.channel(samples, 0, of: 2)
        let onset = try #require(Analysis.onset(left, threshold: 0.1), "sound after the server came back")
        #expect(left.count - onset > 8_192)
        let f = Analysis.dominantFrequency(Array(left[onset..<(onset + 8_192)]), sampleRate: 44_100)
        let heardAt = (f - 300) / 40 - 4_096 / rate   // the window's start
        #expect(abs(heardAt - lost) < 0.25, "went on at \(heardAt) s (\(f) Hz), lost at \(lost) s")
        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        let sidecar = try String(contentsOfFile: dir.file("song.wav.practice.json"), encoding: .utf8)
        #expect(sidecar.contains("\"name\": \"Marker 1\""))
    }

    /// A track in a folder nobody can write (a read-only mount), with `$XDG_DATA_HOME` read-only
    /// too: a marker is refused in one line on the screen, and playing goes on.
    @Test(.enabled(if: getuid() == 0, "mounting a read-only tmpfs needs root"))
    func aReadOnlyFolderRefusesAnEditAndPlaysOn() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("read-only-screen")
        var mounts: [String] = []
        defer { for m in mounts { _ = try? run("/bin/umount", ["-l", m]) } }
        for name in ["music", "data"] {
            let path = dir.file(name)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try #require(try run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", path]).status == 0)
            mounts.append(path)
        }
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("music/song.wav"))
        for m in mounts { try #require(try run("/bin/mount", ["-o", "remount,ro", m]).status == 0) }
        let session = try startShell("practice-ro-\(getpid())", running: "XDG_DATA_HOME=\(dir.path)/data XDG_CACHE_HOME=\(dir.path)/cache \(practiceBinary) music/song.wav --device pulse",
                                     in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        _ = try waitFor("▶ Playing   0:01", in: session)
        var screen = try dropMarker(in: session, then: "Read-only file system")
        #expect(screen.contains("Read-only file system"), "screen:\n\(screen)")
        let refusedAt = try #require(position(after: "▶ Playing   ", in: screen), "screen:\n\(screen)")
        usleep(1_200_000)
        screen = try tmux(["capture-pane", "-p", "-t", session])
        let later = try #require(position(after: "▶ Playing   ", in: screen), "screen:\n\(screen)")
        #expect(later - refusedAt > 0.9, "still playing: \(refusedAt) s, then \(later) s 1.2 s later")
        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
    }

    /// `--reconnect` under `--control stdin` (what a script or a remote reads): while the server is
    /// gone the events carry `deviceLost`, naming the device, with `playing` false and the position
    /// held; when it is back they play on from there (Formats/README.md).
    @Test func withReconnectTheEventsSayTheDeviceIsLost() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("server-back-events")
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("song.wav"))
        let player = try ControlledPlayer([dir.file("song.wav"), "--device", "pulse", "--reconnect", "--control", "stdin", "--no-journal", "--fresh"],
                                          in: dir.path, environment: rig.environment.merging(["XDG_DATA_HOME": testDataHome, "XDG_CACHE_HOME": dir.file("cache")]) { $1 })
        func next(_ wanted: ([String: Any]) -> Bool) throws -> [String: Any] { try player.next("state", where: wanted) }
        func position(_ o: [String: Any]) -> Double { o["position"] as? Double ?? -1 }
        let before = try next { $0["playing"] as? Bool == true && position($0) >= 2 }
        rig.killServer()
        let lost = try next { $0["deviceLost"] != nil }
        let message = try #require(lost["deviceLost"] as? String)
        #expect(message.hasPrefix("waiting for audio device 'pulse' to come back: it went away (the sound server stopped or the card was unplugged; ALSA: "), "\(message)")
        #expect(lost["playing"] as? Bool == false)
        #expect(position(lost) >= position(before) && position(lost) - position(before) < 0.5, "held at \(position(lost)), last heard \(position(before))")
        usleep(700_000)
        try rig.restartServer()
        let back = try next { $0["deviceLost"] == nil }
        #expect(position(back) == position(lost), "on from the held position: \(back)")
        let playing = try next { $0["playing"] as? Bool == true && position($0) > position(lost) + 1 }
        #expect(playing["deviceLost"] == nil)
        #expect(try player.quit().status == 0)
    }

    /// `--reconnect` without the screen: one line on stderr when the device goes, one when it is back.
    @Test func withReconnectAPlainPlayerSaysWhenTheDeviceGoesAndComesBack() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("server-back-plain")
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("song.wav"))
        let session = try startShell("practice-back-plain-\(getpid())", running: "\(practiceBinary) song.wav --device pulse --reconnect --no-tui",
                                     in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        _ = try waitFor("▶ song.wav  0:02", in: session)
        rig.killServer()
        _ = try waitFor("practice: waiting for audio device 'pulse' to come back", in: session)
        var screen = try tmux(["capture-pane", "-p", "-J", "-t", session])   // -J: the wrapped line joined
        #expect(screen.contains("practice: waiting for audio device 'pulse' to come back: it went away (the sound server stopped or the card was unplugged; ALSA: "), "screen:\n\(screen)")
        #expect(screen.contains("⏸ song.wav  0:02"), "the status line holds:\n\(screen)")
        try rig.restartServer()
        screen = try waitFor("practice: the audio device is back: playing on at 0:02", in: session)
        #expect(screen.contains("practice: the audio device is back: playing on at 0:02"), "screen:\n\(screen)")
        _ = try waitFor("▶ song.wav  0:04", in: session)   // playing on, from 0:02
        _ = try tmux(["send-keys", "-t", session, "C-c"])
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=130"), "screen:\n\(screen)")
    }

    /// `practice song.wav` comes back where it was left: position, speed and the loop (kept in
    /// `$XDG_STATE_HOME/practice/resume.json`, not in the shared sidecar), and says so; `--fresh`
    /// starts at the beginning at 1.0×.
    @Test func aTrackResumesWhereItWasLeft() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("resume")
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("song.wav"))
        let run = "XDG_CACHE_HOME=\(dir.path)/cache \(practiceBinary) song.wav --device pulse"
        var session = try startShell("practice-resume-\(getpid())", running: run, in: dir.path, rig: rig)
        var screen = try waitFor("▶ Playing   0:01", in: session)
        _ = try tmux(["send-keys", "-t", session, "["])
        _ = try waitFor("speed 0.90×", in: session)
        _ = try tmux(["send-keys", "-t", session, "a"])
        usleep(700_000)
        _ = try tmux(["send-keys", "-t", session, "b"])
        _ = try waitFor("on, pass 1", in: session)
        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=0", in: session)
        _ = try tmux(["kill-session", "-t", session])
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("state/practice/resume.json")))) as? [String: Any]
        let point = try #require((saved?["tracks"] as? [String: Any])?[dir.file("song.wav")] as? [String: Any], "\(String(describing: saved))")
        let loop = try #require(point["loop"] as? [String: Any])
        let (a, b) = (try #require(loop["start"] as? Double), try #require(loop["end"] as? Double))
        #expect(point["rate"] as? Double == 0.9 && loop["on"] as? Bool == true && b - a > 0.5 && b - a < 1.5, "\(point)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("song.wav.practice.json")), "nothing went into the shared sidecar")

        session = try startShell("practice-resume2-\(getpid())", running: run, in: dir.path, rig: rig)
        screen = try waitFor("resumed at", in: session)
        #expect(screen.contains("resumed at 0:0") && screen.contains(", 0.90×, loop 0:0") && screen.contains("(--fresh starts at the beginning)"),
                "screen:\n\(screen)")
        #expect(screen.contains("speed 0.90×") && screen.contains("on, pass 1"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "q"])
        _ = try waitFor("EXIT=0", in: session)
        _ = try tmux(["kill-session", "-t", session])

        session = try startShell("practice-resume3-\(getpid())", running: run + " --fresh", in: dir.path, rig: rig)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        screen = try waitFor("▶ Playing   0:00", in: session)
        #expect(screen.contains("speed 1.00×") && screen.contains("Loop: none") && !screen.contains("resumed"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "q"])
        _ = try waitFor("EXIT=0", in: session)
    }

    /// A run of captured frames that follow `Signals.counter` frame by frame: its first and last
    /// capture frames, the source frame at its first (mod 65,536), and the frames inside it that
    /// are not the source's (an underrun's silence, bridged).
    typealias CounterRun = (first: Int, last: Int, source: Int, silent: Int)

    /// Runs of captured frames that follow `Signals.counter` frame by frame, 50 ms or longer. Frames
    /// that go on exactly where the run before stopped (an underrun under load put silence between
    /// them, the source skipped nothing) are the same run, that silence counted in `silent`.
    static func counterRuns(_ captured: [Float]) -> [CounterRun] {
        func sourceFrame(_ k: Int) -> Int? { Signals.counterFrame(left: captured[2 * k], right: captured[2 * k + 1]) }
        var runs: [CounterRun] = []
        var k = 0
        let frames = captured.count / 2
        while k < frames {
            guard let i = sourceFrame(k) else { k += 1; continue }
            var j = k + 1
            while j < frames, let n = sourceFrame(j), n == (i + j - k) & 0xFFFF { j += 1 }
            if let prev = runs.last, (prev.source + heard(prev)) & 0xFFFF == i {
                runs[runs.count - 1].silent += k - prev.last - 1
                runs[runs.count - 1].last = j - 1
            } else if j - k >= 2_205 {
                runs.append((k, j - 1, i, 0))
            }
            k = j
        }
        return runs
    }

    /// The source frames `run` played: its length less the silence inside it.
    static func heard(_ run: CounterRun) -> Int { run.last - run.first + 1 - run.silent }

    /// Where run `n` (not the first) began in the source, mod 65,536: its first frame counted back
    /// over the frames between it and the run before that are not silence (the fades between the
    /// two; silence there is an underrun's, which moved nothing in the source: in a slow hour of
    /// CI one put 0.4 s of it before a jump's first frame).
    static func landing(_ runs: [CounterRun], _ n: Int, in captured: [Float]) -> Int {
        let sounding = (runs[n - 1].last + 1..<runs[n].first).count { captured[2 * $0] != 0 || captured[2 * $0 + 1] != 0 }
        return (runs[n].source - sounding) & 0xFFFF
    }

    /// The full-lyrics view against the real-time sink: it follows the heard line, ↑↓ pick,
    /// Enter jumps (seek mode) or closes (Tab), Esc closes; opening and closing leave playback
    /// alone (the capture is one unbroken run of the source but for the one jump).
    @Test func theLyricsViewFollowsJumpsAndClosesWithoutTouchingPlayback() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("tui-lyrics")
        try Signals.write(Signals.counter(frames: 14 * 44_100), to: dir.file("song.wav"), format: .float)
        let names = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
        try (1...12).map { "[00:\($0 < 10 ? "0" : "")\($0).00]line \(names[$0])" }.joined(separator: "\r\n")
            .write(toFile: dir.file("song.lrc"), atomically: true, encoding: .utf8)
        let session = try startRecordedScreen("practice-lyrics-\(getpid())", in: dir, rig: rig, environment: "NO_COLOR=1")
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        var screen = try waitFor("♪ line two", in: session)
        #expect(screen.contains("▶ Playing   0:02.") && screen.contains("\n  line three\n"), "screen:\n\(screen)")
        // When does "line three" (0:03.00) show? Polled as fast as tmux answers (a few ms a call).
        var shown = 0.0
        let deadline = Date().addingTimeInterval(5)
        while shown == 0 && Date() < deadline {
            if try tmux(["capture-pane", "-p", "-t", session]).contains("♪ line three") { shown = Double(monotonicNanoseconds()) }
        }
        try #require(shown > 0, "line three never showed")

        _ = try tmux(["send-keys", "-t", session, "y"])
        screen = try waitFor("Lyrics (Enter jumps)", in: session)
        #expect(screen.contains("▸›  2  0:02.00  line two") || screen.contains("▸›  3  0:03.00  line three"), "screen:\n\(screen)")
        screen = try waitFor("▸›  4  0:04.00  line four", in: session)   // the highlight moves with the song
        #expect(screen.contains("▸›  4  0:04.00  line four") && screen.contains("▶ Playing"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "Down"])
        _ = try waitFor(" ›  5  0:05.00  line five", in: session)
        _ = try tmux(["send-keys", "-t", session, "Down"])
        screen = try waitFor(" ›  6  0:06.00  line six", in: session)
        #expect(screen.contains("▸   4  0:04.00  line four"), "the heard line stays marked:\n\(screen)")
        let jumped = Double(monotonicNanoseconds())
        _ = try tmux(["send-keys", "-t", session, "Enter"])   // seek mode: jump to line six and play
        screen = try waitFor("▸›  6  0:06.00  line six", in: session)
        #expect(screen.contains("Lyrics (Enter jumps)") && screen.contains("▶ Playing   0:06."), "screen:\n\(screen)")

        usleep(300_000)
        _ = try tmux(["send-keys", "-t", session, "Tab"])
        screen = try waitFor("Lyrics (Enter closes)", in: session)
        #expect(screen.contains("Enter closes the lyrics"), "screen:\n\(screen)")
        usleep(300_000)
        _ = try tmux(["send-keys", "-t", session, "Enter"])
        screen = try waitFor("Markers", in: session)
        #expect(!screen.contains("Lyrics (") && screen.contains("▶ Playing   0:0") && screen.contains("♪ line "), "screen:\n\(screen)")
        usleep(300_000)
        _ = try tmux(["send-keys", "-t", session, "y"])
        screen = try waitFor("Lyrics (Enter closes)", in: session)   // the mode is kept
        usleep(300_000)
        _ = try tmux(["send-keys", "-t", session, "Escape"])
        screen = try waitFor("Markers", in: session)
        #expect(screen.contains("▶ Playing") && screen.contains("speed 1.00×"), "screen:\n\(screen)")
        usleep(500_000)
        let (captured, timeOfFrame) = rig.stopRecording()

        // Lines as loop ends: a on line nine, b on line ten loops 0:09 to the end of line ten (0:11).
        _ = try tmux(["send-keys", "-t", session, "y"])
        _ = try waitFor("Lyrics (Enter closes)", in: session)
        _ = try tmux(["send-keys", "-t", session, "Home"])   // back to the start: the pick, following the heard line, is at the top
        _ = try waitFor("▶ Playing   0:0", in: session)
        for _ in 0..<8 { _ = try tmux(["send-keys", "-t", session, "Down"]) }
        screen = try waitFor(" ›  9  0:09.00  line nine", in: session)
        _ = try tmux(["send-keys", "-t", session, "a"])
        _ = try waitFor("loop from line 9", in: session)   // said until the next key
        _ = try tmux(["send-keys", "-t", session, "Down"])
        _ = try waitFor("› 10  0:10.00  line ten", in: session)
        _ = try tmux(["send-keys", "-t", session, "b"])
        screen = try waitFor("loop to the end of line 10", in: session)
        #expect(screen.contains("Loop: 0:09.000 – 0:11.000  on"), "screen:\n\(screen)")
        // The lyrics 50 ms later, twice: kept in the sidecar.
        _ = try tmux(["send-keys", "-t", session, "Escape", ">", ">"])
        screen = try waitFor("lyrics +100 ms (saved)", in: session)
        #expect(screen.contains("lyrics +100 ms (saved)"), "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=", in: session)
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("song.wav.practice.json")))) as? [String: Any]
        #expect((saved?["settings"] as? [String: Any])?["lyricsShift"] as? Double == 0.1, "\(String(describing: saved))")

        // The audio: one run from the start, one from line six (landing within 20 ms), nothing else.
        let runs = Self.counterRuns(captured)
        try #require(runs.count == 2, "runs: \(runs)")
        // The line showed when its time was heard: within 50 ms after (the screen wakes at the
        // stamp; tmux is polled every few ms), and not before it (less the clock's 5 ms).
        let heardThree = timeOfFrame(runs[0].first + 3 * 44_100 - runs[0].source)
        let lag = (shown - heardThree) / 1e6
        #expect(lag > -10 && lag < 50, "line three showed \(lag) ms after it was heard")
        print("lyrics: line three showed \(lag) ms after it was heard")
        let landing = Self.landing(runs, 1, in: captured)
        var miss = (landing - 6 * 44_100) % 65_536
        if miss >= 32_768 { miss -= 65_536 } else if miss < -32_768 { miss += 65_536 }
        #expect(abs(miss) <= 882, "the jump landed \(Double(miss) / 44.1) ms from line six")
        #expect(timeOfFrame(runs[0].last) > jumped - 20e6, "the first run ended before Enter")
        #expect(timeOfFrame(runs[1].last) > timeOfFrame(runs[1].first) + 1.5e9, "the run after the jump is short: \(runs)")
        #expect(runs[0].source < 44_100 / 4, "the first run starts at the song's start (frame \(runs[0].source))")
    }

    /// The loop's ends on the screen's "Loop: 0:09.613 – 0:10.214 …" line.
    func loopEnds(_ screen: String) throws -> (a: Double, b: Double) {
        let line = try #require(screen.split(separator: "\n").first { $0.hasPrefix("Loop: ") }, "screen:\n\(screen)")
        let parts = line.dropFirst(6).split(separator: " ")
        func seconds(_ t: Substring) -> Double? {
            let mmss = t.split(separator: ":")
            guard mmss.count == 2, let m = Double(mmss[0]), let s = Double(mmss[1]) else { return nil }
            return m * 60 + s
        }
        return (try #require(seconds(parts[0])), try #require(seconds(parts[2])))
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
