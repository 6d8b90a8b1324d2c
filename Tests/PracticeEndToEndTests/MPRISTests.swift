// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// A private session bus (`dbus-daemon --session`), gone with the value.
final class SessionBus: @unchecked Sendable {  // immutable after init
    let daemon: Spawned
    let address: String

    init() throws {
        daemon = try Spawned("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address=1"],
                             environment: ProcessInfo.processInfo.environment, captureStdout: true)
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(daemon.stdout!, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        address = String(decoding: bytes, as: UTF8.self)
    }
}

/// `dbus-monitor` on a bus, its output read as it comes (a full pipe would stall it).
final class BusMonitor: @unchecked Sendable {  // `text` is behind its lock
    let process: Spawned
    private let lock = NSLock()
    private var text = Data()
    private var reader: Thread?

    init(_ bus: SessionBus) throws {
        process = try Spawned("/usr/bin/dbus-monitor", ["--address", bus.address], environment: ProcessInfo.processInfo.environment, captureStdout: true)
        let fd = process.stdout!
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { break }
                lock.withLock { text.append(contentsOf: chunk[..<n]) }
            }
        }
        thread.start()
        reader = thread
        // Until it is listening: its own NameAcquired.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, !lock.withLock({ String(decoding: text, as: UTF8.self) }).contains("member=NameLost") { usleep(20_000) }
    }

    /// What it has printed so far.
    var log: String { lock.withLock { String(decoding: text, as: UTF8.self) } }

    /// Waits until what it printed passes `test`.
    func waitFor(_ what: String, _ test: @escaping (String) -> Bool) throws {
        try eventually(what) { test(log) }
    }

    /// Once the bus has said that the player's name is gone (the daemon announces it after
    /// everything the player sent before it went away), stops it; what it printed.
    func stop(after name: String = "org.mpris.MediaPlayer2.practice") throws -> String {
        try waitFor("\(name) released") { log in
            log.components(separatedBy: "\nsignal ").contains {
                $0.contains("member=NameOwnerChanged") && $0.contains("string \"\(name)\"") && $0.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("string \"\"")
            }
        }
        kill(process.pid, SIGTERM)
        _ = process.wait()
        try eventually("dbus-monitor's output read to its end") { reader?.isFinished ?? true }
        return log
    }
}

/// MPRIS, `practice ctl` and background players, against the real peers: a private
/// `dbus-daemon`, Debian's `playerctl`, `busctl` and `dbus-monitor`, and the captured audio.
@Suite struct MPRISTests {
    let dir = ScratchDirectory("mpris")
    let bus: SessionBus
    /// The players' and tools' environment: the private bus, this test's runtime and state folders.
    let env: [String: String]

    init() throws {
        bus = try SessionBus()
        try FileManager.default.createDirectory(atPath: dir.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        env = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": dir.file("run"), "XDG_STATE_HOME": dir.file("state"),
               "XDG_CACHE_HOME": dir.file("cache"), "XDG_CONFIG_HOME": dir.file("config")]
    }

    func tool(_ path: String, _ args: [String]) throws -> ProcessResult { try run(path, args, environment: env, currentDirectory: dir.path) }
    func playerctl(_ args: String...) throws -> ProcessResult { try tool("/usr/bin/playerctl", args) }
    func busctl(_ args: String...) throws -> ProcessResult { try tool("/usr/bin/busctl", ["--user"] + args) }

    /// Starts `practice ARGS` in the scratch folder with the test's environment (plus `extra`).
    func start(_ args: [String], extra: [String: String] = [:]) throws -> Spawned {
        var all = ProcessInfo.processInfo.environment
        for (k, v) in env.merging(extra, uniquingKeysWith: { $1 }) { all[k] = v }
        all["SWIFT_BACKTRACE"] = "enable=no"
        return try Spawned(practiceBinary, args.map { $0.hasSuffix(".wav") && !$0.hasPrefix("/") ? dir.file($0) : $0 }, environment: all)
    }

    /// Waits until `playerctl -l` lists `count` players; returns the list.
    func waitForPlayers(_ count: Int) throws -> [String] { try waitForPlayers { $0.count >= count } }

    /// `practice ctl quit` (with `extra`), once the player answers on its socket: its name on the
    /// bus comes first, and until the socket answers `ctl` finds no player. Ten seconds without
    /// an answer, or any other failure, is recorded with what `ctl` said.
    func quit(_ extra: [String] = []) throws {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let r = try practice(["ctl", "quit"] + extra, in: dir, environment: env)
            if r.status == 0 { return }
            guard r.stderr.contains("no player is running"), Date() < deadline else { Issue.record("ctl quit: \(r)"); return }
            usleep(50_000)
        }
    }

    /// Waits until the players on the bus are exactly `expected` (10 s at most); what they are.
    func waitForNames(_ expected: [String]) throws -> [String] { try waitForPlayers { $0 == expected } }

    /// The players' names on the bus once `done` says so (10 s at most), or as they are then.
    func waitForPlayers(until done: ([String]) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        var names: [String] = []
        while Date() < deadline {
            names = try playerctl("-l").stdout.split(separator: "\n").map(String.init)
            if done(names) { return names }
            usleep(50_000)
        }
        return names
    }

    /// The heard position, as MPRIS gives it.
    func position(_ player: String = "practice") throws -> Double { Double(try playerctl("-p", player, "position").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }

    /// Waits until the heard position passes `seconds`.
    func waitForPosition(_ seconds: Double, player: String = "practice") throws {
        let deadline = Date().addingTimeInterval(20)
        while try position(player) < seconds, Date() < deadline { usleep(20_000) }
    }

    /// ms between a counter frame (mod 65,536) and a time on the source.
    static func error(_ frame: Int, _ seconds: Double) -> Double {
        var d = (frame - Int((seconds * 44_100).rounded())) % 65_536
        if d >= 32_768 { d -= 65_536 } else if d < -32_768 { d += 65_536 }
        return Double(d) / 44.1
    }

    /// Next and Previous go to the markers, `playerctl position` seeks, play-pause pauses and
    /// plays, and `playerctl loop Track` loops the section heard: all of it found in the
    /// captured audio (the source is a counter whose every frame says where it is), within 20 ms.
    @Test func playerctlDrivesWhatIsHeard() throws {
        try Signals.write(Signals.counter(frames: 24 * 44_100), to: dir.file("song.wav"), format: .float)
        for (name, time) in [("Verse", "4"), ("Chorus", "9"), ("Bridge", "15"), ("Tag", "18")] {
            #expect(try practice(["markers", "add", "song.wav", name, time], in: dir, environment: env).status == 0)
        }
        let raw = dir.file("capture.raw")
        let player = try start(["play", "song.wav", "--device", "capture", "--no-tui"],
                               extra: ALSACapture.environment(in: dir, rawPath: raw))
        #expect(try waitForPlayers(1) == ["practice"])
        try waitForPosition(1)
        #expect(try playerctl("metadata", "--format", "{{xesam:title}}|{{practice:section}}").stdout == "song.wav|\n")
        // Each jump is made paused, so that where it goes from does not depend on how fast the
        // machine plays (ALSA's `null` takes sound as fast as the player makes it).
        #expect(try playerctl("pause").status == 0)
        #expect(try playerctl("next").status == 0)                       // → Verse, 4 s
        #expect(try playerctl("play").status == 0)
        try waitForPosition(4.2)
        #expect(try playerctl("pause").status == 0)
        #expect(try playerctl("next").status == 0)                       // → Chorus, 9 s
        let atChorus = try position()
        #expect(atChorus == 9, "after next, paused: \(atChorus)")
        #expect(try playerctl("metadata", "practice:section").stdout == "Chorus\n")
        #expect(try playerctl("play").status == 0)
        try waitForPosition(9.2)
        #expect(try playerctl("pause").status == 0)
        // Within a second after Chorus, Previous goes to the marker before it (Verse). The place
        // is set paused first: ALSA's `null` takes sound as fast as it is made, so where a pause
        // lands varies, and a Previous back to Chorus's own start after exactly 65,536 frames of
        // it (the decoder's bursts make that likely) would not show in the counter, whose frames
        // are numbered mod 65,536. Later than a second, Previous goes to Chorus's start:
        // RemoteTests hears that.
        #expect(try playerctl("position", "9.5").status == 0)
        #expect(try position() == 9.5)
        let previous = ("previous → Verse", 4.0)
        #expect(try playerctl("previous").status == 0)
        #expect(try playerctl("play").status == 0)
        try waitForPosition(4.5)
        // Paused, then to 15.5 s in Bridge, and the section looped from there: Bridge 15 → Tag 18.
        #expect(try playerctl("play-pause").status == 0)
        #expect(try playerctl("status").stdout == "Paused\n")
        #expect(try playerctl("position", "15.5").status == 0)
        #expect(try position() == 15.5)
        #expect(try playerctl("loop", "Track").status == 0)
        #expect(try playerctl("loop").stdout == "Track\n")
        let loopName = try playerctl("metadata", "practice:loop")
        #expect(loopName.stdout == "0:15.000–0:18.000\n", "\(loopName)")
        #expect(try playerctl("play-pause").status == 0)
        #expect(try playerctl("status").stdout == "Playing\n")
        // Until the third pass (the loop's pass count, from the player's own status).
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let status = try practice(["ctl", "status", "--json"], in: dir, environment: env).stdout
            if let loop = (try? JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["loop"] as? [String: Any],
               (loop["pass"] as? Int ?? 0) >= 3 { break }
            usleep(50_000)
        }
        #expect(try playerctl("stop").status == 0)
        #expect(try playerctl("status").stdout == "Stopped\n")
        try quit()
        #expect(player.wait() == 0)

        let captured = try Signals.readRawFloat(raw)
        let runs = TerminalTests.counterRuns(captured)
        func landing(_ n: Int) -> Int { TerminalTests.landing(runs, n, in: captured) }
        try #require(runs.count >= 6, "runs: \(runs)")
        // Each jump is a run of its own that begins at its place, in order (a run shorter than
        // 50 ms, which a loaded machine may leave, is not counted, hence the search).
        var k = 1
        for (what, t) in [("next → Verse", 4.0), ("next → Chorus", 9), previous, ("position 15.5", 15.5)] {
            while k < runs.count, abs(Self.error(landing(k), t)) > 20 { k += 1 }
            #expect(k < runs.count, "\(what): no run begins within 20 ms of \(t) s after the one before; runs: \(runs)")
            k += 1
        }
        // Then the loop: each pass starts at Bridge (15 s), and a whole pass runs to Tag (18 s).
        let passes = runs.indices.dropFirst(k).filter { abs(Self.error(landing($0), 15)) <= 20 }
        #expect(passes.count >= 2, "loop passes heard: \(passes.count), runs: \(runs)")
        if passes.count >= 2 {
            let pass = Double(TerminalTests.heard(runs[passes[1] - 1]) + 441) / 44.1
            #expect(abs(pass - 3_000) <= 20, "a pass lasted \(pass) ms, the section 3,000 ms")
        }
    }

    /// Rate is the speed, heard: a click every 250 ms in the source comes every 500 ms after
    /// `Rate` is set to 0.5 (busctl, as a desktop widget's speed control sets it). (ALSA's `null`
    /// under the capture takes sound as fast as it comes: 8 s of track leave a busy machine time
    /// to set the rate before the end.)
    @Test func rateIsTheSpeedHeard() throws {
        var clicks = [Float](repeating: 0, count: 12 * 44_100 * 2)
        for k in stride(from: 0, to: 12 * 44_100, by: 11_025) { for j in 0..<40 { clicks[2 * (k + j)] = 0.8; clicks[2 * (k + j) + 1] = 0.8 } }
        try Signals.write(clicks, to: dir.file("clicks.wav"), format: .float)
        let raw = dir.file("clicks.raw")
        let player = try start(["play", "clicks.wav", "--device", "capture", "--no-tui", "--to", "8"], extra: ALSACapture.environment(in: dir, rawPath: raw))
        #expect(try waitForPlayers(1) == ["practice"])
        try waitForPosition(1)
        #expect(try busctl("set-property", "org.mpris.MediaPlayer2.practice", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "Rate", "d", "0.5").status == 0)
        #expect(try busctl("get-property", "org.mpris.MediaPlayer2.practice", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "Rate").stdout == "d 0.5\n")
        #expect(player.wait() == 0)
        let left = Signals.channel(try Signals.readRawFloat(raw), 0, of: 2)
        var onsets: [Int] = []
        var k = 0
        while k < left.count, let o = Analysis.onset(left, threshold: 0.3, from: k) { onsets.append(o); k = o + 4_000 }
        let gaps = zip(onsets.dropFirst(), onsets).map { Double($0 - $1) / 44.1 }
        #expect(gaps.prefix(3).allSatisfy { abs($0 - 250) < 15 }, "before: \(gaps)")
        #expect(gaps.suffix(4).allSatisfy { abs($0 - 500) < 15 }, "after: \(gaps)")
    }

    /// Metadata has the tags, the length, the URL and the cover, which is an image that can be read;
    /// the markers' interface lists them; every change is a PropertiesChanged a listener sees, and
    /// every jump a Seeked; the now-playing notification carries the title and the cover.
    @Test func metadataChangesAndTheNotificationReachListeners() throws {
        try Signals.write(Signals.sine(440, seconds: 20), to: dir.file("drill.wav"), tags: ["title": "Drill <b>", "artist": "Crew & co", "album": "Studio"])
        try Self.png.write(to: URL(fileURLWithPath: dir.file("Cover.png")))
        #expect(try practice(["markers", "add", "drill.wav", "Turn", "6"], in: dir, environment: env).status == 0)
        let monitor = try BusMonitor(bus)
        let player = try start(["play", "drill.wav", "--device", "null", "--no-tui"])
        #expect(try waitForPlayers(1) == ["practice"])
        let metadata = try playerctl("metadata").stdout
        let url = "file://" + dir.path.replacingOccurrences(of: " ", with: "%20")
        #expect(metadata == """
            practice mpris:trackid             '/org/practice/track/\(player.pid)'
            practice mpris:length              20000000
            practice xesam:title               Drill <b>
            practice xesam:url                 \(url)/drill.wav
            practice xesam:artist              Crew & co
            practice xesam:album               Studio
            practice mpris:artUrl              \(url)/Cover.png

            """, "metadata:\n\(metadata)")
        let art = try playerctl("metadata", "mpris:artUrl").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let image = try Data(contentsOf: URL(string: art)!)
        #expect(image.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) && image.count == Self.png.count, "artUrl \(art) is not the PNG")
        #expect(try busctl("get-property", "org.mpris.MediaPlayer2.practice", "/org/mpris/MediaPlayer2", "practice.Markers", "Markers").stdout == "a{sv} 1 \"Turn\" d 6\n")
        #expect(try playerctl("pause").status == 0)
        #expect(try busctl("set-property", "org.mpris.MediaPlayer2.practice", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "Rate", "d", "0.8").status == 0)
        #expect(try playerctl("next").status == 0)
        #expect(try playerctl("loop", "Track").status == 0)
        let refused = try busctl("set-property", "org.mpris.MediaPlayer2.practice", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "LoopStatus", "s", "Sometimes")
        #expect(refused.status != 0 && refused.stderr.contains("LoopStatus is None, Track or Playlist (got 'Sometimes')"), "\(refused)")
        #expect(try position() == 6, "Next, paused, goes to the marker and stays paused")
        #expect(try playerctl("play").status == 0)
        try waitForPosition(6.2)
        let added = try busctl("call", "org.mpris.MediaPlayer2.practice", "/org/mpris/MediaPlayer2", "practice.Markers", "AddMarker", "s", "Spin")
        let at = Double(added.stdout.dropFirst(2).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(added.status == 0 && at > 6 && at < 20, "\(added)")
        #expect(try practice(["markers", "drill.wav"], in: dir, environment: env).stdout.contains(String(format: "0:%06.3f  Spin", at)))
        try monitor.waitFor("the Markers change") { $0.contains("string \"Spin\"") }
        try quit()
        #expect(player.wait() == 0)
        let log = try monitor.stop()
        let changes = log.components(separatedBy: "member=PropertiesChanged").dropFirst().map { $0.components(separatedBy: "\nsignal ").first ?? $0 }
        for (property, value) in [("PlaybackStatus", "string \"Paused\""), ("Rate", "double 0.8"), ("LoopStatus", "string \"Track\""),
                                  ("Markers", "string \"Spin\"")] {
            #expect(changes.contains { $0.contains("string \"\(property)\"") && $0.contains(value) }, "no PropertiesChanged with \(property) = \(value)")
        }
        #expect(changes.contains { $0.contains("string \"practice:section\"") && $0.contains("string \"Turn\"") }, "no Metadata change to the section 'Turn'")
        #expect(log.contains("member=Seeked\n   int64 60"), "no Seeked to 6 s")
        // The notification: to org.freedesktop.Notifications, the title, the body with its markup escaped, the cover.
        let notify = try #require(log.components(separatedBy: "member=Notify").dropFirst().first, "no Notify call")
        #expect(notify.contains("string \"Drill <b>\"") && notify.contains("string \"Crew &amp; co — Studio\"")
                && notify.contains("string \"\(url)/Cover.png\""), "Notify:\n\(notify.prefix(1500))")
    }

    /// Two players are told apart (the second is `practice.instance<pid>`), and each obeys its own
    /// name; `practice ctl --player` picks by pid or by title, and refuses to guess.
    @Test func twoPlayersAreToldApart() throws {
        try Signals.write(Signals.sine(440, seconds: 30), to: dir.file("one.wav"), tags: ["title": "Bolero"])
        try Signals.write(Signals.sine(660, seconds: 30), to: dir.file("two.wav"), tags: ["title": "Tango"])
        let first = try start(["play", "one.wav", "--device", "null", "--no-tui", "--quiet"])
        #expect(try waitForPlayers(1) == ["practice"])
        let second = try start(["play", "two.wav", "--device", "null", "--no-tui", "--quiet"])
        let names = try waitForPlayers(2)
        #expect(Set(names) == ["practice", "practice.instance\(second.pid)"], "\(names)")
        #expect(try playerctl("-p", "practice.instance\(second.pid)", "pause").status == 0)
        #expect(try playerctl("-p", "practice.instance\(second.pid)", "status").stdout == "Paused\n")
        #expect(try playerctl("-p", "practice", "status").stdout == "Playing\n")
        #expect(try playerctl("-p", "practice", "metadata", "xesam:title").stdout == "Bolero\n")
        let guess = try practice(["ctl", "pause"], in: dir, environment: env)
        // Listed by pid (the second's is the smaller when the system's pids have wrapped around).
        let listed = [(first.pid, "Bolero"), (second.pid, "Tango")].sorted { $0.0 < $1.0 }.map { "\($0.0) '\($0.1)'" }.joined(separator: ", ")
        #expect(guess.status == 64 && guess.stderr == "practice: 2 players are running (\(listed)); pick one with --player PID or a part of its title\n", "\(guess)")
        #expect(try practice(["ctl", "pause", "--player", "bolero"], in: dir, environment: env).status == 0)
        #expect(try playerctl("-p", "practice", "status").stdout == "Paused\n")
        let status = try practice(["ctl", "status", "--player", String(second.pid)], in: dir, environment: env)
        #expect(status.stdout.hasPrefix("'Tango': paused 0:0") && status.stdout.hasSuffix(" / 0:30.0 at 1×, pid \(second.pid)\n"), "\(status)")
        // The player with the plain name quits: the other takes it and lets its instance name go
        // (one player, one name, as the README's busctl lines need).
        try quit(["--player", "bolero"])
        #expect(first.wait() == 0)
        #expect(try waitForNames(["practice"]) == ["practice"])
        #expect(try playerctl("-p", "practice", "metadata", "xesam:title").stdout == "Tango\n")
        try quit()
        #expect(second.wait() == 0)
    }

    /// A terminal of its own (tmux, 100×30), with the test's environment, in the scratch folder.
    final class Terminal {
        let name = "practice-bg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        func tmux(_ args: [String]) throws -> String { try Tmux.run(args) }
        init(_ test: MPRISTests, extra: [String: String] = [:]) throws {
            try #require(try Tmux.newSession(name, width: 100, height: 30) == 0)
            let exports = test.env.merging(extra) { $1 }.map { "export \($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
            _ = try tmux(["send-keys", "-t", name, "cd \(test.dir.path); \(exports); PS1='$ '; clear", "Enter"])
            // Until that has run (the screen cleared, the new prompt alone): what is typed while
            // `clear` runs may be flushed from the terminal's input and lost.
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, try tmux(["capture-pane", "-p", "-t", name]).trimmingCharacters(in: .whitespacesAndNewlines) != "$" { usleep(20_000) }
        }
        deinit { _ = try? tmux(["kill-session", "-t", name]) }
        func type(_ line: String) throws {
            _ = try tmux(["send-keys", "-t", name, "clear; \(line); echo EXIT=$?", "Enter"])
            // Seen on a loaded machine, seldom: the line typed and shown, but its Enter never
            // acted on (the screen not cleared after seconds). Once: Enter again, which at a
            // prompt that did take it is only an empty line.
            let deadline = Date().addingTimeInterval(3)
            while Date() < deadline, try tmux(["capture-pane", "-p", "-t", name]).hasPrefix("$ clear; ") { usleep(50_000) }
            if try tmux(["capture-pane", "-p", "-t", name]).hasPrefix("$ clear; ") { _ = try tmux(["send-keys", "-t", name, "Enter"]) }
        }
        func keys(_ keys: String...) throws { _ = try tmux(["send-keys", "-t", name] + keys) }
        /// Waits until the screen shows `text`; returns the screen.
        func waitFor(_ text: String, seconds: Double = 15) throws -> String { try Tmux.waitFor(text, in: name, seconds: seconds) }
        /// Closes the terminal: SIGHUP to what runs in it.
        func close() throws { _ = try tmux(["kill-session", "-t", name]) }
    }

    /// `d` on the screen in `terminal`: it says the player of `title` went to the background and
    /// exits 0; what it showed, and the background player's `ctl status --json`, read.
    func detach(_ terminal: Terminal, title: String) throws -> (shown: String, status: ProcessResult, object: [String: Any]) {
        try terminal.keys("d")
        let shown = try terminal.waitFor("EXIT=")
        #expect(shown.contains("practice: playing '\(title)' in the background (pid ") && shown.contains("EXIT=0"), "screen:\n\(shown)")
        let status = try practice(["ctl", "status", "--json"], in: dir, environment: env)
        let object = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any] ?? [:]
        return (shown, status, object)
    }

    /// A terminal whose players sound through a real-time sink (ALSA's `null` would let a player
    /// with no screen race to the end); keep the rig as long as the terminal.
    func realTimeTerminal() throws -> (PulseRig, Terminal) {
        let pulse = try PulseRig()
        return (pulse, try Terminal(self, extra: ["PULSE_SERVER": pulse.server]))
    }

    /// Gone (or a zombie, in a container whose init reaps nothing).
    static func isGone(_ pid: Int) -> Bool {
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).map { $0[$0.index(after: $0.lastIndex(of: ")")!)...] }
        return state == nil || state!.hasPrefix(" Z")
    }

    /// `--background` from a terminal, which then closes (SIGHUP): the player plays on. From
    /// elsewhere `practice ctl` seeks and drops a marker; from another terminal `practice attach`
    /// opens its screen, where `R` starts the player's phone remote and shows its code, `m` drops
    /// another marker and `q` quits the player. The sidecar has both markers, and nothing is left
    /// running.
    @Test func aBackgroundPlayerOutlivesItsTerminal() throws {
        try Signals.write(Signals.sine(440, seconds: 60), to: dir.file("long.wav"), tags: ["title": "Long"])
        try FileManager.default.createDirectory(atPath: dir.file("config/practice"), withIntermediateDirectories: true)
        try "[remote]\nbind = \"127.0.0.1:0\"\n".write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        let (pulse, firstTerminal) = try realTimeTerminal()
        defer { withExtendedLifetime(pulse) {} }   // the sink lives as long as the test
        var first: Terminal? = firstTerminal
        try first!.type("\(practiceBinary) play long.wav --device pulse --background")
        let screen = try first!.waitFor("EXIT=")
        #expect(screen.contains("practice: playing 'Long' in the background (pid ") && screen.contains("EXIT=0"), "screen:\n\(screen)")
        try first!.close()
        first = nil
        usleep(500_000)
        let status = try practice(["ctl", "status", "--json"], in: dir, environment: env)
        try #require(status.status == 0, "\(status)")
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as! [String: Any]
        let pid = object["pid"] as! Int
        #expect(object["playing"] as? Bool == true && object["title"] as? String == "Long" && object["path"] as? String == dir.file("long.wav"))
        #expect(try practice(["ctl", "seek", "12"], in: dir, environment: env).status == 0)
        let marked = try practice(["ctl", "mark", "Drop"], in: dir, environment: env)
        #expect(marked.status == 0 && marked.stdout.isEmpty && marked.stderr.isEmpty, "\(marked)")
        let bad = try practice(["ctl", "jump", "Nope"], in: dir, environment: env)
        #expect(bad.status == 64 && bad.stderr == "practice: jump: no marker named 'Nope' (there are 'Drop')\n", "\(bad)")

        let second = try Terminal(self)
        try second.type("\(practiceBinary) attach")
        var shown = try second.waitFor("attached to the player of pid \(pid): d leaves it playing, q quits it")
        #expect(shown.contains("Long") && shown.contains("0:12.") && shown.contains("Drop"), "screen:\n\(shown)")
        try second.keys("R")
        let panel = try second.waitFor("Plain HTTP on this network. Any key goes back.")
        #expect(panel.contains("Phone remote: http://127.0.0.1:") && panel.split(separator: "\n").filter { $0.contains("▀▀") || $0.contains("▄▄") }.count >= 10, "screen:\n\(panel)")
        try second.keys("Space")
        _ = try second.waitFor("Drop")
        // A phone paired with the code the panel showed (the same one-time address `practice
        // remote --json` gives) drives the player; the attached screen follows it.
        let invited = try practice(["remote", "--json"], in: dir, environment: env)
        let invitation = try #require(try JSONSerialization.jsonObject(with: Data(invited.stdout.utf8)) as? [String: String], "\(invited)")
        let address = try #require(invitation["pairing"]?.firstMatch(of: /^HTTP:\/\/127\.0\.0\.1:([0-9]+)(\/P\/[A-Z2-7]{26})$/), "\(invited)")
        #expect(panel.contains("Phone remote: \(invitation["origin"]!) "), "the panel's address is the player's: \(invited)\n\(panel)")
        let paired = try tool("/usr/bin/python3", [RemoteTests.client, "http", "127.0.0.1", String(address.1), "GET", String(address.2)])
        let cookie = try #require(paired.stdout.firstMatch(of: /practice_remote=([A-Z2-7]{52})/)?.1, "\(paired)")
        let sent = try tool("/usr/bin/python3", [RemoteTests.client, "ws", "127.0.0.1", String(address.1), "Cookie: practice_remote=\(cookie)",
                                                 "Origin: \(invitation["origin"]!)", "--", #"{"cmd":"jump","to":3}"#])
        #expect(sent.status == 0 && !sent.stdout.contains("error"), "\(sent)")
        shown = try second.waitFor("▶ Playing   0:0")   // back from 0:12 or later: only the jump gets there
        #expect(shown.contains("Phone remote") == false, "screen:\n\(shown)")
        try second.keys("m")
        _ = try second.waitFor("name: ‹Marker 2›")
        try second.keys("Enter")
        shown = try second.waitFor("added marker 'Marker 2'")
        #expect(shown.contains("added marker 'Marker 2'"), "screen:\n\(shown)")
        try second.keys("q")
        shown = try second.waitFor("EXIT=")
        #expect(shown.contains("EXIT=0"), "screen:\n\(shown)")
        let deadline = Date().addingTimeInterval(5)
        while !Self.isGone(pid), Date() < deadline { usleep(20_000) }
        #expect(Self.isGone(pid), "the player is still running")
        let markers = try practice(["markers", "long.wav"], in: dir, environment: env)
        #expect(markers.stdout.contains("Drop") && markers.stdout.contains("Marker 2"), "\(markers)")
        let none = try practice(["ctl", "status"], in: dir, environment: env)
        #expect(none.status == 69 && none.stderr == "practice: no player is running (start one with 'practice play FILE --background')\n", "\(none)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("run/practice/players")).isEmpty)
    }

    /// A screen's player quit from a second terminal (`practice attach` there, then `q`): the first
    /// terminal's screen closes and says who quit it, instead of vanishing without a word.
    @Test func aScreenQuitFromElsewhereSaysSo() throws {
        try Signals.write(Signals.sine(440, seconds: 60), to: dir.file("song.wav"), tags: ["title": "Song"])
        let (pulse, first) = try realTimeTerminal()
        defer { withExtendedLifetime(pulse) {} }   // the sink lives as long as the test
        try first.type("\(practiceBinary) song.wav --device pulse")
        _ = try first.waitFor("▶ Playing   0:01")
        let second = try Terminal(self)
        try second.type("\(practiceBinary) attach")
        _ = try second.waitFor("attached to the player of pid")
        try second.keys("q")
        #expect(try second.waitFor("EXIT=").contains("EXIT=0"))
        let shown = try first.waitFor("EXIT=")
        #expect(shown.contains("practice: 'Song' was quit from another terminal ('practice attach' there, or 'practice ctl quit')") && shown.contains("EXIT=0"), "screen:\n\(shown)")
    }

    /// `d` on the practice screen leaves the track playing in the background, where it was and at
    /// its speed, its phone remote (started with `R`) serving on the same address; `practice FILE`
    /// on that track opens the running player's screen, and `d` there leaves it again; `practice
    /// ctl quit` ends it.
    @Test func theScreenDetachesAndComesBack() throws {
        try Signals.write(Signals.sine(440, seconds: 60), to: dir.file("song.wav"), tags: ["title": "Song"])
        try FileManager.default.createDirectory(atPath: dir.file("config/practice"), withIntermediateDirectories: true)
        try "[remote]\nbind = \"127.0.0.1:0\"\n".write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        let (pulse, terminal) = try realTimeTerminal()
        defer { withExtendedLifetime(pulse) {} }   // the sink lives as long as the test
        try terminal.type("\(practiceBinary) song.wav --device pulse --rate 0.8")
        _ = try terminal.waitFor("▶ Playing   0:01")
        try terminal.keys("R")
        let panel = try terminal.waitFor("Plain HTTP on this network. Any key goes back.")
        let port = try #require(panel.firstMatch(of: #/Phone remote: http://127\.0\.0\.1:([0-9]+) /#)?.1, "screen:\n\(panel)")
        try terminal.keys("Escape")
        _ = try terminal.waitFor("▶ Playing")
        let (detached, status, object) = try detach(terminal, title: "Song")
        // The player that took over serves the remote on the same address (a stranger gets 401 there).
        let there = try tool("/usr/bin/python3", [RemoteTests.client, "http", "127.0.0.1", String(port), "GET", "/"])
        #expect(there.stdout.hasPrefix(#"{"status": 401"#), "\(there)")
        // Where the screen left it (0:01 or after; the speed kept, playing).
        #expect(object["title"] as? String == "Song" && object["playing"] as? Bool == true && object["rate"] as? Double == 0.8
                && (object["position"] as? Double ?? 0) >= 1, "\(status)\nscreen:\n\(detached)")
        try terminal.type("\(practiceBinary) song.wav --device pulse")
        var shown = try terminal.waitFor("already playing in pid")
        #expect(shown.contains("speed 0.80×") && shown.contains("this is its screen (d leaves it playing)"), "screen:\n\(shown)")
        try terminal.keys("d")
        shown = try terminal.waitFor("EXIT=")
        #expect(shown.contains("plays on in the background") && shown.contains("EXIT=0"), "screen:\n\(shown)")
        try quit()
        #expect(try practice(["ctl", "status"], in: dir, environment: env).status == 69)
    }

    /// `d` on a tutorial's second soundtrack: the detached player plays that one (here 30 s of
    /// a tone beside 60 s of the first: its length says which).
    @Test func detachingKeepsTheSoundtrack() throws {
        try Signals.write(Signals.sine(440, seconds: 60), to: dir.file("first.wav"))
        try Signals.write(Signals.sine(1_000, seconds: 30), to: dir.file("second.wav"))
        #expect(try run("/usr/bin/ffmpeg", ["-v", "error", "-i", "first.wav", "-i", "second.wav", "-map", "0:a", "-map", "1:a", "-c:a", "libvorbis",
                                            "-metadata", "title=Tutorial", "tutorial.mkv"], currentDirectory: dir.path).status == 0)
        let (pulse, terminal) = try realTimeTerminal()
        defer { withExtendedLifetime(pulse) {} }   // the sink lives as long as the test
        try terminal.type("\(practiceBinary) tutorial.mkv --audio-stream 1 --device pulse")
        _ = try terminal.waitFor("▶ Playing   0:01")
        let (_, status, object) = try detach(terminal, title: "Tutorial")
        #expect(object["playing"] as? Bool == true && abs((object["duration"] as? Double ?? 0) - 30) < 0.1, "\(status)")
        try quit()
    }

    /// `d` during a rehearsed loop hands the detached player all of it: the count-in, gap and
    /// tempo, the passes still to play, the trainer from the speed it reached; `practice attach`
    /// shows them, and `q` there quits the player.
    @Test func detachingKeepsTheLoopsRehearsal() throws {
        try Signals.write(Signals.sine(440, seconds: 60), to: dir.file("song.wav"), tags: ["title": "Song"])
        let (pulse, terminal) = try realTimeTerminal()
        defer { withExtendedLifetime(pulse) {} }   // the sink lives as long as the test
        try terminal.type("\(practiceBinary) song.wav --device pulse --loop 1 3 --times 4 --gap 0.5 --count-in 2 --bpm 120 --trainer 0.7:1.0:0.1")
        // In the second pass (at 0.80×), paused, so that the player is where it was handed over.
        _ = try terminal.waitFor("on, pass 2/4")
        try terminal.keys("Space")
        _ = try terminal.waitFor("⏸ Paused")
        try terminal.keys("d")
        var shown = try terminal.waitFor("EXIT=")
        #expect(shown.contains("practice: playing 'Song' in the background (pid ") && shown.contains("EXIT=0"), "screen:\n\(shown)")
        // The player handed over to has the plain name once the screen's player let it go.
        #expect(try waitForNames(["practice"]) == ["practice"])
        try terminal.type("\(practiceBinary) attach")
        shown = try terminal.waitFor("Trainer:")
        // Three passes still to play, the trainer going on from 0.80×.
        #expect(shown.contains("on, pass 1/3") && shown.contains("0.80×")
                && shown.contains("Rehearsal: count-in 2 at 120 bpm before the first pass · gap 0.5 s")
                && shown.contains("Trainer: 0.80× → 1.00×, +0.1 every pass"), "screen:\n\(shown)")
        try terminal.keys("q")
        shown = try terminal.waitFor("EXIT=")
        #expect(shown.contains("EXIT=0"), "screen:\n\(shown)")
        let deadline = Date().addingTimeInterval(5)
        while try practice(["ctl", "status"], in: dir, environment: env).status != 69, Date() < deadline { usleep(50_000) }
        #expect(try practice(["ctl", "status"], in: dir, environment: env).status == 69, "the player still runs after q")
    }

    /// A cover embedded in the file's tags (ID3v2 APIC from lame, METADATA_BLOCK_PICTURE from
    /// opusenc) is read with TagLib and written once into the cache, named by its SHA-256: the
    /// artUrl points at exactly those bytes, and the next player of the file finds the same file
    /// there, not written again.
    @Test func anEmbeddedCoverIsWrittenOnceIntoTheCache() throws {
        try Signals.write(Signals.sine(440, seconds: 60), to: dir.file("plain.wav"))
        try FileManager.default.createDirectory(atPath: dir.file("art"), withIntermediateDirectories: true)
        try Self.png.write(to: URL(fileURLWithPath: dir.file("art/front.png")))
        #expect(try run("/usr/bin/lame", ["--quiet", "--ti", "art/front.png", "plain.wav", "song.mp3"], currentDirectory: dir.path).status == 0)
        #expect(try run("/usr/bin/opusenc", ["--quiet", "--picture", "art/front.png", "plain.wav", "song.opus"], currentDirectory: dir.path).status == 0)
        // A store's M4A, its cover in the `covr` atom.
        #expect(try run("/usr/bin/ffmpeg", ["-v", "error", "-i", "plain.wav", "-i", "art/front.png", "-map", "0:a", "-map", "1:v", "-c:a", "aac", "-c:v", "copy",
                                            "-disposition:v", "attached_pic", "song.m4a"], currentDirectory: dir.path).status == 0)
        let covers = dir.file("cache/practice/covers")
        for file in ["song.mp3", "song.opus", "song.m4a"] {
            var stamps: [String] = []
            for _ in 0..<2 {
                let player = try start(["play", dir.file(file), "--device", "null", "--no-tui", "--quiet"])
                #expect(try waitForPlayers(1) == ["practice"])
                let art = try playerctl("metadata", "mpris:artUrl").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(art.hasPrefix("file://\(covers)/") && art.hasSuffix(".png"), "\(file): artUrl \(art)")
                let path = String(art.dropFirst("file://".count))
                #expect(FileManager.default.contents(atPath: path) == Self.png, "\(file): \(path) is not the embedded picture")
                var st = stat()
                stat(path, &st)
                stamps.append("\(st.st_ino) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
                try quit()
                #expect(player.wait() == 0)
            }
            #expect(stamps[0] == stamps[1], "\(file): the cover was written again")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: covers).count == 1, "one picture, one file")
    }

    /// A store's M4A in the background: on the bus with its tags and its exact length, sought
    /// to a marker's time by `playerctl`, described by `ctl status`, and quit.
    @Test func aStoresM4AInTheBackground() throws {
        try Signals.write(Signals.sine(440, seconds: 12), to: dir.file("store.wav"))
        #expect(try run("/usr/bin/ffmpeg", ["-v", "error", "-i", "store.wav", "-c:a", "aac", "-metadata", "title=Store Song", "-metadata", "artist=Label",
                                            "store.m4a"], currentDirectory: dir.path).status == 0)
        #expect(try practice(["markers", "add", "store.m4a", "Turn", "7.25"], in: dir, environment: env).status == 0)
        let started = try practice(["play", "store.m4a", "--device", "null", "--background", "--quiet", "--paused"], in: dir, environment: env)
        #expect(started.status == 0 && started.stdout.hasPrefix("practice: playing 'Store Song' in the background (pid "), "\(started)")
        #expect(try waitForPlayers(1) == ["practice"])
        #expect(try playerctl("metadata", "mpris:length").stdout == "12000000\n")
        #expect(try playerctl("metadata", "xesam:title").stdout == "Store Song\n" && playerctl("metadata", "xesam:artist").stdout == "Label\n")
        #expect(try playerctl("next").status == 0)
        #expect(try position() == 7.25, "Next goes to the marker")
        let status = try practice(["ctl", "status", "--json"], in: dir, environment: env)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status)")
        #expect(object["path"] as? String == dir.file("store.m4a") && object["duration"] as? Double == 12 && object["position"] as? Double == 7.25, "\(object)")
        try quit()
    }

    /// A player in the background that plays to the end goes back to the start, paused, and stays
    /// for its controllers; quit from elsewhere while a screen is attached, it takes the screen
    /// with it, which says so.
    @Test func aBackgroundPlayerWaitsAtTheEndAndItsScreenSeesItQuit() throws {
        try Signals.write(Signals.sine(440, seconds: 1), to: dir.file("short.wav"), tags: ["title": "Short"])
        let started = try practice(["play", "short.wav", "--device", "null", "--background", "--quiet"], in: dir, environment: env)
        #expect(started.status == 0 && started.stdout.hasPrefix("practice: playing 'Short' in the background (pid "), "\(started)")
        var object: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(10)
        repeat {
            usleep(100_000)
            let status = try practice(["ctl", "status", "--json"], in: dir, environment: env)
            object = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any] ?? [:]
        } while !(object["playing"] as? Bool == false && object["position"] as? Double == 0) && Date() < deadline
        #expect(object["playing"] as? Bool == false && object["position"] as? Double == 0 && object["finished"] as? Bool == false,
                "at the end: \(object)")
        let terminal = try Terminal(self)
        try terminal.type("\(practiceBinary) attach")
        _ = try terminal.waitFor("attached to the player of pid")
        try quit()
        let shown = try terminal.waitFor("EXIT=")
        #expect(shown.contains("practice: the player has quit") && shown.contains("EXIT=0"), "screen:\n\(shown)")
    }

    /// OpenUri plays another file in the player's place (the same process, on the bus again under
    /// the same name); one that cannot be read is refused with the reason. With `--quiet` no
    /// notification is sent, for either track.
    @Test func openUriPlaysAnotherFileInPlace() throws {
        try Signals.write(Signals.sine(440, seconds: 30), to: dir.file("first.wav"), tags: ["title": "First"])
        try Signals.write(Signals.sine(660, seconds: 30), to: dir.file("second.wav"), tags: ["title": "Second"])
        let monitor = try BusMonitor(bus)
        let player = try start(["play", "first.wav", "--device", "null", "--no-tui", "--quiet"])
        #expect(try waitForPlayers(1) == ["practice"])
        let refused = try playerctl("open", "file://\(dir.path)/missing.wav")
        #expect(refused.status != 0 && refused.stderr.contains("InvalidArgs: file://\(dir.path)/missing.wav: not a file that can be read"), "\(refused)")
        #expect(try playerctl("open", "file://\(dir.path)/second.wav").status == 0)
        let deadline = Date().addingTimeInterval(10)
        var title = ""
        while title != "Second\n", Date() < deadline { title = try playerctl("metadata", "xesam:title").stdout; usleep(50_000) }
        #expect(title == "Second\n")
        #expect(try playerctl("metadata", "mpris:trackid").stdout == "'/org/practice/track/\(player.pid)'\n", "the same process plays it")
        #expect(try playerctl("status").stdout == "Playing\n")
        try quit()
        #expect(player.wait() == 0)
        let log = try monitor.stop()
        #expect(!log.contains("member=Notify"), "a notification with --quiet")
    }

    /// Playing across markers, with no command, changes the section in Metadata and on our own
    /// interface, announced by PropertiesChanged as the heard position reaches each marker
    /// (through a real-time sink: the position as fast as it is heard).
    @Test func theSectionFollowsWhatIsHeard() throws {
        try Signals.write(Signals.sine(440, seconds: 30), to: dir.file("song.wav"))
        // 0.15 s apart, in real time: a look timed on the marker sees "In"; a look once a second
        // would land in that section at most one time in seven.
        for (name, time) in [("In", "2"), ("Out", "2.15")] {
            #expect(try practice(["markers", "add", "song.wav", name, time], in: dir, environment: env).status == 0)
        }
        let pulse = try PulseRig()
        defer { withExtendedLifetime(pulse) {} }
        let monitor = try BusMonitor(bus)
        let player = try start(["play", "song.wav", "--device", "pulse", "--no-tui", "--quiet"], extra: ["PULSE_SERVER": pulse.server])
        #expect(try waitForPlayers(1) == ["practice"])
        try waitForPosition(3)
        #expect(try playerctl("metadata", "practice:section").stdout == "Out\n")
        try quit()
        #expect(player.wait() == 0)
        let changes = try monitor.stop().components(separatedBy: "member=PropertiesChanged").dropFirst()
        let sections = changes.compactMap { c -> String? in
            guard let key = c.range(of: "string \"Section\""), let value = c[key.upperBound...].range(of: "string \"") else { return nil }
            return String(c[value.upperBound...].prefix { $0 != "\"" })
        }
        #expect(sections == ["In", "Out"], "Section changes announced: \(sections)")
    }

    /// `notifications = false` in the configuration file: on the bus, no notification;
    /// `mpris = false`: not on the bus at all, `practice ctl` still drives it.
    @Test func theConfigFileTurnsTheNotificationAndMPRISOff() throws {
        try Signals.write(Signals.sine(440, seconds: 30), to: dir.file("song.wav"), tags: ["title": "Song"])
        try FileManager.default.createDirectory(atPath: dir.file("config/practice"), withIntermediateDirectories: true)
        let config = dir.file("config/practice/config.toml")
        try "# practice\n[desktop]\nnotifications = false   # not while the crew rehearses\n".write(toFile: config, atomically: true, encoding: .utf8)
        let monitor = try BusMonitor(bus)
        var player = try start(["play", "song.wav", "--device", "null", "--no-tui"])
        #expect(try waitForPlayers(1) == ["practice"])
        #expect(try playerctl("metadata", "xesam:title").stdout == "Song\n")
        try quit()
        #expect(player.wait() == 0)
        #expect(try !monitor.stop().contains("member=Notify"), "a notification with notifications = false")

        try "[desktop]\nmpris = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        player = try start(["play", "song.wav", "--device", "null", "--no-tui"])
        let deadline = Date().addingTimeInterval(10)
        var status = try practice(["ctl", "status"], in: dir, environment: env)
        while status.status != 0, Date() < deadline { usleep(50_000); status = try practice(["ctl", "status"], in: dir, environment: env) }
        #expect(status.status == 0, "\(status)")
        // Without MPRIS, ctl still drives it: the stretcher changed, and said in the status.
        #expect(!status.stdout.contains("quality"), "\(status)")
        let high = try practice(["ctl", "quality", "high"], in: dir, environment: env)
        let json = try practice(["ctl", "status", "--json"], in: dir, environment: env)
        #expect(high.status == 0 && json.stdout.contains(#""quality":"high""#) && !json.stdout.contains("formant"), "\(high) \(json)")
        let formant = try practice(["ctl", "formant"], in: dir, environment: env)
        let kept = try practice(["ctl", "status", "--json"], in: dir, environment: env)
        #expect(formant.status == 0 && kept.stdout.contains(#""formant":true"#), "\(formant) \(kept)")
        usleep(500_000)   // MPRIS is set up just after the socket answers: time for it to appear, were it on
        let names = try busctl("list", "--no-legend", "--acquired")
        #expect(!names.stdout.contains("org.mpris.MediaPlayer2"), "\(names)")
        let listed = try playerctl("-l")
        #expect(listed.stdout == "" && listed.stderr == "No players found\n", "\(listed)")
        try quit()
        #expect(player.wait() == 0)
    }

    /// Without a session bus (SSH, CI) the player plays as before and says nothing about it;
    /// `--verbose` says why there is no MPRIS.
    @Test func withoutABusNothingChanges() throws {
        try Signals.write(Signals.sine(440, seconds: 0.5), to: dir.file("short.wav"))
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(dir.file("no-bus"))"]
        let quiet = try practice(["play", "short.wav", "--device", "null", "--no-tui"], in: dir, environment: env.merging(noBus) { $1 })
        #expect(quiet.status == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet)")
        let verbose = try practice(["play", "short.wav", "--device", "null", "--no-tui", "-v"], in: dir, environment: env.merging(noBus) { $1 })
        #expect(verbose.stderr.contains("practice: no MPRIS (media keys, desktop controls): no session bus (sd_bus_open_user: "), "\(verbose)")
    }

    /// Where sd-bus would find no session bus (no `DBUS_SESSION_BUS_ADDRESS`, no socket at
    /// `$XDG_RUNTIME_DIR/bus`), a player opens neither libsystemd nor, for the cover it would
    /// have offered there, TagLib (LD_DEBUG=files: what the dynamic loader loads); it plays, and
    /// `--verbose` says why there is no MPRIS. With a bus, the same file's cover is on it
    /// (`anEmbeddedCoverIsWrittenOnceIntoTheCache`).
    @Test func withNoBusToFindNeitherSdBusNorTagLibIsLoaded() throws {
        try Signals.write(Signals.sine(440, seconds: 0.5), to: dir.file("nobus.wav"))
        try FileManager.default.createDirectory(atPath: dir.file("nobus-art"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("nobus-runtime"), withIntermediateDirectories: true)
        try Self.png.write(to: URL(fileURLWithPath: dir.file("nobus-art/front.png")))
        #expect(try run("/usr/bin/lame", ["--quiet", "--ti", "nobus-art/front.png", "nobus.wav", "nobus.mp3"], currentDirectory: dir.path).status == 0)
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": dir.file("nobus-runtime"), "XDG_CACHE_HOME": dir.file("nobus-cache"), "LD_DEBUG": "files"]
        let r = try run(practiceBinary, ["play", dir.file("nobus.mp3"), "--device", "null", "--no-tui", "-v"], environment: noBus)
        #expect(r.status == 0, "\(r.stderr.suffix(500))")
        let loaded = r.stderr.split(separator: "\n").filter { $0.contains("\tfile=") }
        #expect(loaded.contains { $0.contains("file=libsndfile.so.1") }, "the trace lists what was loaded")
        // (ALSA's PulseAudio hook may bring libsystemd along with libpulse: not opened by us.)
        #expect(!loaded.contains { $0.contains("file=libsystemd") && $0.contains("dynamically loaded by \(practiceBinary)") }, "\(loaded)")
        #expect(!loaded.contains { $0.contains("libpractice-taglib") || $0.contains("file=libtag.so") }, "\(loaded)")
        #expect(r.stderr.contains("practice: no MPRIS (media keys, desktop controls): no session bus (sd_bus_open_user: no DBUS_SESSION_BUS_ADDRESS, and no socket at \(dir.file("nobus-runtime"))/bus)\n"),
                "\(r.stderr.split(separator: "\n").filter { !$0.contains("\t") })")
        #expect(!FileManager.default.fileExists(atPath: dir.file("nobus-cache/practice/covers")), "no cover was looked for")
    }

    /// `practice ctl` refuses what it cannot send, with the reason and EX_USAGE.
    @Test func ctlRefusesBadCommands() throws {
        for (args, message) in [(["ctl", "dance"], "unknown command 'dance' (play, pause, toggle, next, previous, seek, jump, rate, pitch, quality, formant, loop, mark, mirror, video, fullscreen, status, players, quit)"),
                                (["ctl", "quality", "best"], "'quality' takes 'fast' or 'high' (got 'best')"),
                                (["ctl", "rate", "fast"], "'rate' takes a speed from 0.25 to 3.0 (got 'fast')"),
                                (["ctl", "pause", "now"], "'pause' takes nothing (got 'now')")] {
            let r = try practice(args, in: dir, environment: env)
            #expect(r.status == 64 && r.stderr == "practice: \(message) (see 'practice --help')\n", "\(args): \(r)")
        }
    }

    /// A 2×2 PNG (red, green, blue, white).
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==")!
}
