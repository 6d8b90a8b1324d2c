// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// What a real machine does to practice: a full disk, a read-only folder, a track deleted or
/// rewritten while it plays, and processes killed at any moment (README, "Reliability"). Whatever
/// happens, one line says what, and nothing that was saved is lost. The disks are small tmpfs
/// mounts (as root, which CI is; a read-only one refuses even root).
@Suite(.serialized) struct FaultTests {
    let dir = ScratchDirectory("faults")

    /// A tmpfs of `kilobytes` at `dir/name`, unmounted by the returned closure.
    func tmpfs(_ name: String, kilobytes: Int) throws -> (path: String, unmount: () -> Void) {
        let path = dir.file(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let r = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0755", "tmpfs", path])
        try #require(r.status == 0, "mount: \(r.stderr)")
        return (path, { _ = try? run("/bin/umount", ["-l", path]) })
    }

    /// Fills the file system holding `folder` to the last byte.
    func fill(_ folder: String) throws {
        _ = try run("/bin/dd", ["if=/dev/zero", "of=\(folder)/filler", "bs=4k"])
    }

    func names(_ folder: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }

    /// Ctrl-C (SIGINT) or a kill (SIGTERM) during a render: the part written so far is removed,
    /// one line says so, the exit is 128 + the signal, and a file that was there stays as it was.
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedRenderLeavesNothing(_ signal: Int32) throws {
        let folder = dir.file("interrupted-\(signal)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Signals.write(Signals.music(seconds: 600, seed: 3), to: folder + "/long.wav")
        try Data("before".utf8).write(to: URL(fileURLWithPath: folder + "/slow.flac"))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: practiceBinary)
        p.arguments = ["render", "long.wav", "-o", "slow.flac", "--rate", "0.8", "--force", "-q"]
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        let err = Pipe()
        p.standardError = err
        try p.run()
        // Signalled once the part is being written.
        let deadline = Date().addingTimeInterval(30)
        while try !names(folder).contains(where: { $0.hasPrefix(".slow.flac.partial-") }) && Date() < deadline { usleep(5_000) }
        let written = try names(folder)
        try #require(written.contains { $0.hasPrefix(".slow.flac.partial-") }, "no part written: \(written)")
        kill(p.processIdentifier, signal)
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 128 + signal && stderr == "practice: slow.flac: interrupted; nothing was written\n", "\(p.terminationStatus): \(stderr)")
        #expect(try names(folder) == ["long.wav", "slow.flac"])
        #expect(try String(contentsOfFile: folder + "/slow.flac", encoding: .utf8) == "before")
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskKeepsTheOldSidecarWhole() throws {
        let disk = try tmpfs("full-sidecar", kilobytes: 512)
        defer { disk.unmount() }
        let song = disk.path + "/song.wav"
        try Signals.write(Signals.sine(440, seconds: 1), to: song)
        #expect(try practice(["markers", "add", song, "One", "0.5"], in: dir).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: song + ".practice.json"))
        try fill(disk.path)
        let r = try practice(["markers", "add", song, "Two", "0.7"], in: dir)
        #expect(r.status == 74)
        #expect(r.stderr == "practice: \(song).practice.json: writing failed: No space left on device; the file is unchanged\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: song + ".practice.json")) == before, "the old sidecar, byte for byte")
        #expect(try names(disk.path) == ["filler", "song.wav", "song.wav.practice.json"], "no temporary file left")
        // Room again: the edit goes through.
        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        #expect(try practice(["markers", "add", song, "Two", "0.7"], in: dir).status == 0)
        #expect(try String(contentsOfFile: song + ".practice.json", encoding: .utf8).contains("\"name\": \"Two\""))
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"), arguments: ["out.wav", "out.flac"])
    func aFullDiskDuringARenderLeavesNothing(output: String) throws {
        let disk = try tmpfs("full-render-\(output)", kilobytes: 256)
        defer { disk.unmount() }
        let song = dir.file("song-\(output).wav")
        // 3 s of noise: 517 kB as WAV, about as much as FLAC: more than the disk holds.
        var generator = SystemRandomNumberGenerator()
        try Signals.write((0..<(3 * 44_100 * 2)).map { _ in Float.random(in: -0.5...0.5, using: &generator) }, to: song)
        _ = try run("/bin/dd", ["if=/dev/zero", "of=\(disk.path)/filler", "bs=4k", "count=40"])   // 160 kB taken
        let out = disk.path + "/" + output
        let r = try practice(["render", song, "-o", out], in: dir)
        #expect(r.status == 74)
        #expect(r.stderr == "practice: \(out): write failed: No space left on device (the disk is full); nothing was written\n")
        #expect(try names(disk.path) == ["filler"], "neither the output nor a part of it")
    }

    /// A folder that cannot be written (here a read-only mount, which refuses even root): the
    /// markers go to `$XDG_DATA_HOME`, as the README says; when that cannot be written either,
    /// the edit is refused in one line and nothing else changes.
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aReadOnlyFolderKeepsMarkersElsewhereOrRefusesInOneLine() throws {
        let music = try tmpfs("read-only-music", kilobytes: 1024)
        defer { music.unmount() }
        let song = music.path + "/song.wav"
        try Signals.write(Signals.sine(440, seconds: 1), to: song)
        #expect(try run("/bin/mount", ["-o", "remount,ro", music.path]).status == 0)
        let data = dir.file("data")
        var r = try practice(["markers", "add", song, "Verse", "0.5"], in: dir, environment: ["XDG_DATA_HOME": data])
        #expect(r.status == 0, "\(r)")
        let kept = try names(data + "/practice/sidecars")
        #expect(kept.count == 1 && kept[0].hasPrefix("song.wav.") && kept[0].hasSuffix(".practice.json"), "\(kept)")
        #expect(r.stdout == "added marker 'Verse' at 0:00.500 (\(data)/practice/sidecars/\(kept[0]))\n")

        let readOnlyData = try tmpfs("read-only-data", kilobytes: 64)
        defer { readOnlyData.unmount() }
        #expect(try run("/bin/mount", ["-o", "remount,ro", readOnlyData.path]).status == 0)
        r = try practice(["markers", "add", song, "Chorus", "0.7"], in: dir, environment: ["XDG_DATA_HOME": readOnlyData.path])
        #expect(r.status == 73)
        #expect(r.stderr.split(separator: "\n").last == "practice: \(readOnlyData.path)/practice/sidecars: cannot create the folder for markers of songs in read-only folders: Read-only file system")
        #expect(try names(music.path) == ["song.wav"])
    }

    /// A track deleted while it plays plays on to its end (the open file is still there); a marker
    /// dropped after it was deleted is refused in one line (nothing tells its sidecar from
    /// another's now). One rewritten in place, shorter, ends where its audio does, with one
    /// warning; edits still save.
    @Test func aTrackDeletedOrRewrittenWhilePlayingEndsCleanly() throws {
        let song = dir.file("playing.wav")
        // 10 s, which ALSA's null device takes about 5 s to play: deleted at 0.7 s, well within.
        try Signals.write(Signals.sine(440, seconds: 10), to: song)
        let player = try ControlledPlayer([song, "--device", "null", "--control", "stdin", "--no-journal", "--fresh"], in: dir.path)
        usleep(700_000)
        #expect(unlink(song) == 0)
        player.send(#"{"cmd":"mark","name":"After delete"}"#)
        let finished = try player.next("state", within: 30) { $0["finished"] as? Bool == true }
        let (status, _, err) = try player.quit()
        #expect(status == 0)
        #expect(err == "practice: \(song): the file is gone (deleted or moved since it was opened)\n", "\(err)")
        #expect(finished["position"] as? Double == 10, "played to its end: \(finished)")
        #expect(try names(dir.path).filter { $0.hasPrefix("playing.wav") } == [], "no sidecar for a file that is gone")

        func playWhile(_ change: @escaping @Sendable () -> Void) throws -> ProcessResult {
            let t = Thread { usleep(700_000); change() }
            t.start()
            return try practice([song, "--device", "null", "--no-tui", "--no-journal", "--fresh"], in: dir)
        }
        try Signals.write(Signals.sine(440, seconds: 3), to: song)
        let short = dir.file("short.wav")
        try Signals.write(Signals.sine(220, seconds: 0.5), to: short)
        let r = try playWhile {
            // In place (same inode, as `cp` does): the player now reads another, shorter file.
            let bytes = try! Data(contentsOf: URL(fileURLWithPath: short))
            let fd = open(song, O_WRONLY | O_TRUNC)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.hasPrefix("practice: warning: \(song): the file ends early at ") && r.stderr.hasSuffix(" of 0:03.000; played what was there\n"), "\(r.stderr)")
        #expect(try practice(["markers", "add", song, "After", "0.25"], in: dir).status == 0)
    }

    /// A 3-second song named `name` for processes to be killed on, and their environment (no
    /// backtraces; a cache of the test's own).
    func killScene(_ name: String) throws -> (song: String, environment: [String: String]) {
        let song = dir.file(name)
        try Signals.write(Signals.sine(440, seconds: 3), to: song)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = dir.file("cache")
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return (song, environment)
    }

    /// SIGKILL at each moment of a write that matters, reached exactly (`PRACTICE_STOP_AT` stops
    /// the writer there, then it is killed): with the folder's lock held, the temporary file
    /// empty, half written, whole, flushed, and renamed into place; a render's part made, its
    /// first block written, flushed and renamed. Before the rename nothing of the killed edit is
    /// in the sidecar and the file read is the one before; after it, the edit is whole. What the
    /// killed writer left goes with the next write, which a writer waiting on the lock makes.
    @Test(arguments: ["sidecar-locked", "atomic-created", "atomic-half", "atomic-written", "commit-flushed", "commit-renamed"])
    func aKilledEditAtEachMomentLosesNothing(moment: String) throws {
        let (song, environment) = try killScene("moment-\(moment).wav")
        let sidecar = song + ".practice.json"
        #expect(try practice(["markers", "add", song, "kept", "0.1"], in: dir, environment: environment).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: sidecar))
        var stopping = environment
        stopping["PRACTICE_STOP_AT"] = moment
        let writer = try Spawned(practiceBinary, ["markers", "add", song, "killed", "0.2"], environment: stopping)
        let exited = writer.waitUntilStopped()
        try #require(exited == nil, "the writer never reached \(moment): it exited \(exited ?? 0)")
        // What a reader sees at that moment: the sidecar before, byte for byte, until the rename;
        // the temporary file, empty, part-written or whole, beside it.
        let renamed = moment == "commit-renamed"
        let during = try Data(contentsOf: URL(fileURLWithPath: sidecar))
        if renamed { #expect(String(decoding: during, as: UTF8.self).contains("\"killed\"")) } else { #expect(during == before) }
        let temporaries = try names(dir.path).filter { $0.hasPrefix(".moment-\(moment).wav.practice.json.tmp-") }
        let writing = ["atomic-created", "atomic-half", "atomic-written", "commit-flushed"].contains(moment)
        #expect(temporaries.count == (writing ? 1 : 0), "\(moment): \(temporaries)")
        if let t = temporaries.first {
            let size = try Data(contentsOf: URL(fileURLWithPath: dir.file(t))).count
            #expect(moment == "atomic-created" ? size == 0 : moment == "atomic-half" ? size > 0 && size < before.count + 200 : size > before.count, "\(moment): \(size) bytes")
        }
        // A second writer now waits on the folder's lock, which the stopped one holds.
        let waiting = try Spawned(practiceBinary, ["markers", "add", song, "after", "0.3"], environment: environment)
        kill(writer.pid, SIGKILL)
        #expect(writer.wait() == 128 + SIGKILL)
        #expect(waiting.wait() == 0)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sidecar))) as? [String: Any])
        let present = Set((doc["markers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
        #expect(present == (renamed ? ["kept", "killed", "after"] : ["kept", "after"]), "\(moment): \(present)")
        #expect(try names(dir.path).filter { $0.contains(".tmp-") } == [], "the next write cleared what the killed writer left")
        #expect(try practice(["markers", song, "--json"], in: dir, environment: environment).status == 0)
    }

    @Test(arguments: ["render-created", "render-block", "commit-flushed", "commit-renamed"])
    func aKilledRenderAtEachMomentLeavesNoPart(moment: String) throws {
        let (song, environment) = try killScene("render-\(moment).wav")
        let out = dir.file("render-\(moment).flac")
        #expect(try practice(["render", song, "-o", out, "--to", "1", "-q"], in: dir, environment: environment).status == 0)
        var stopping = environment
        stopping["PRACTICE_STOP_AT"] = moment
        let render = try Spawned(practiceBinary, ["render", song, "-o", out, "--force", "-q"], environment: stopping)
        let exited = render.waitUntilStopped()
        try #require(exited == nil, "the render never reached \(moment): it exited \(exited ?? 0)")
        kill(render.pid, SIGKILL)
        #expect(render.wait() == 128 + SIGKILL)
        // Under the final name: the render before (1 s), or, once renamed, the whole new one (3 s).
        let (_, info) = try Signals.read(out)
        #expect(info.frames == (moment == "commit-renamed" ? 3 : 1) * 44_100, "\(moment): \(out) is \(info.frames) frames")
        let parts = try names(dir.path).filter { $0.hasPrefix(".render-\(moment).flac.partial-") }
        #expect(parts.count == (moment == "commit-renamed" ? 0 : 1), "\(moment): \(parts)")
        #expect(try practice(["render", song, "-o", out, "--force", "-q"], in: dir, environment: environment).status == 0)
        #expect(try names(dir.path).filter { $0.hasPrefix(".render-\(moment).flac.partial-") } == [], "the next render cleared the part")
    }

    /// SIGKILL at random moments: two processes editing one sidecar at once, each killed, and
    /// renders killed (the moments no one thought of). Every sidecar read in between is whole and
    /// valid and holds every marker whose edit finished; the next write clears what killed writers
    /// left; no render leaves a part under its final name, and the next render clears the parts.
    /// PRACTICE_KILLS sets how many (default 200: 160 during edits, 40 during renders).
    @Test func killsAtAnyMomentLoseNothing() throws {
        let total = Int(ProcessInfo.processInfo.environment["PRACTICE_KILLS"] ?? "") ?? 200
        let (song, environment) = try killScene("kills.wav")
        let sidecar = song + ".practice.json"
        #expect(try practice(["markers", "add", song, "first", "0.1"], in: dir, environment: environment).status == 0)
        let whole = try practice(["markers", "add", song, "second", "0.2"], in: dir, environment: environment).seconds
        var generator = SystemRandomNumberGenerator()
        func delay(_ window: Double) -> useconds_t { useconds_t.random(in: 0..<useconds_t(max(window, 0.01) * 1e6), using: &generator) }

        // Edits: rounds of two writers, each killed at its own random moment.
        var confirmed: Set<String> = ["first", "second"]
        var attempted = confirmed
        var outcomes = (finished: 0, killed: 0), leftovers = 0
        let editKills = total * 4 / 5 / 2
        for i in 0..<editKills {
            let names = ["a\(i)", "b\(i)"]
            attempted.formUnion(names)
            let writers = try names.enumerated().map { k, name in
                try Spawned(practiceBinary, ["markers", "add", song, name, String(format: "%.3f", 0.3 + Double(2 * i + k) / 1000)], environment: environment)
            }
            let delays = [delay(whole * 1.3), delay(whole * 1.3)]
            var slept: useconds_t = 0
            for k in delays.indices.sorted(by: { delays[$0] < delays[$1] }) {
                usleep(delays[k] - slept)
                slept = delays[k]
                kill(writers[k].pid, SIGKILL)
            }
            for (k, w) in writers.enumerated() {
                if w.wait() == 0 { confirmed.insert(names[k]); outcomes.finished += 1 } else { outcomes.killed += 1 }
            }
            leftovers += try self.names(dir.path).filter { $0.contains(".tmp-") }.count   // a writer killed mid-write
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sidecar))) as? [String: Any],
                                   "round \(i): the sidecar is not a JSON object")
            #expect(doc["format"] as? String == "practice-markers")
            let present = Set((doc["markers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(confirmed.isSubset(of: present), "round \(i): lost \(confirmed.subtracting(present))")
            #expect(present.isSubset(of: attempted), "round \(i): \(present.subtracting(attempted))")
            if i % 50 == 49 {   // and practice itself reads it
                #expect(try practice(["markers", song, "--json"], in: dir, environment: environment).status == 0)
            }
        }
        #expect(try practice(["markers", "add", song, "last", "2.9"], in: dir, environment: environment).status == 0)
        #expect(try names(dir.path).filter { $0.contains(".tmp-") } == [], "the next write cleared what killed writers left")
        #expect(outcomes.finished > 0 && outcomes.killed > 0, "kills landed on both sides of the write: \(outcomes)")
        // (Kills inside the write itself are reached exactly by aKilledEditAtEachMomentLosesNothing;
        // 200 random ones land there about 4 times, sometimes none, so that is not asserted here.)

        // Renders, killed part-way.
        let out = dir.file("kills.flac")
        let render = try practice(["render", song, "-o", out, "--force"], in: dir, environment: environment).seconds
        var renders = (finished: 0, killed: 0), parts = 0
        for i in 0..<(total - 2 * editKills) {
            let p = try Spawned(practiceBinary, ["render", song, "-o", out, "--force", "-q"], environment: environment)
            // Every eighth kill comes at four times a render's time, so that some land after the
            // end however the busy machine stretches a render beyond the one timed above (once, all
            // 40 random kills in 1.3 times it landed before the end).
            usleep(i % 8 == 7 ? useconds_t(render * 4 * 1e6) : delay(render * 1.3))
            kill(p.pid, SIGKILL)
            if p.wait() == 0 { renders.finished += 1 } else { renders.killed += 1 }
            parts += try names(dir.path).filter { $0.contains(".partial-") }.count
            let (samples, info) = try Signals.read(out)
            #expect(info.frames == 3 * 44_100 && samples.count == 3 * 44_100 * 2, "round \(i): \(out) is \(info.frames) frames")
        }
        #expect(try practice(["render", song, "-o", out, "--force", "-q"], in: dir, environment: environment).status == 0)
        #expect(try names(dir.path).filter { $0.contains(".partial-") } == [], "the next render cleared the parts")
        #expect(renders.finished > 0 && renders.killed > 0, "kills landed before and after the end: \(renders)")
        // (Inside the render's file: aKilledRenderAtEachMomentLeavesNoPart, at each moment.)
        print("kills: edits \(outcomes.killed) killed, \(outcomes.finished) finished, \(leftovers) temporary files left; renders \(renders.killed) killed, \(renders.finished) finished, \(parts) parts left")
    }

    /// A busy machine: ALSA's `pulse` plugin hands each period to libpulse's own thread
    /// (`threaded-ml`), which sends it to the server. As a normal thread it waited behind the
    /// machine's other work and the sink ran dry, though the audio thread was on time (the soak
    /// bench beside the test suites). That thread starts in the device's open, which the player
    /// makes at the real-time priority one below its audio thread, so it runs at that; every
    /// other thread of the player stays a normal one.
    @Test func theSoundServersClientThreadRunsJustBelowTheAudioThread() throws {
        let rig = try PulseRig()
        try Signals.write(Signals.sine(440, seconds: 30), to: dir.file("busy.wav"))
        var env = ProcessInfo.processInfo.environment
        for (k, v) in rig.environment { env[k] = v }
        env["XDG_STATE_HOME"] = dir.file("state")
        let player = try Spawned(practiceBinary, [dir.file("busy.wav"), "--device", "pulse", "--no-tui", "--no-journal"], environment: env)
        defer { kill(player.pid, SIGKILL); _ = player.wait() }
        // Each thread's name, real-time priority and policy (fields 40 and 41 of its stat).
        func threads() -> [(name: String, priority: Int, policy: Int32)] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(player.pid)/task")) ?? []
            return tasks.compactMap { tid in
                guard let stat = try? String(contentsOfFile: "/proc/\(player.pid)/task/\(tid)/stat", encoding: .utf8),
                      let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
                let fields = stat[stat.index(after: close)...].split(separator: " ")   // from field 3
                guard fields.count > 38, let priority = Int(fields[37]), let policy = Int32(fields[38]) else { return nil }
                return (String(stat[stat.index(after: open)..<close]), priority, policy)
            }
        }
        let all = try eventuallyValue("the player's audio thread and libpulse's", within: 10) { () -> [(name: String, priority: Int, policy: Int32)]? in
            let t = threads()
            return t.contains { $0.name == "practice-audio" } && t.contains { $0.name == "threaded-ml" } ? t : nil
        }
        let audio = all.first { $0.name == "practice-audio" }!, client = all.first { $0.name == "threaded-ml" }!
        #expect(audio.policy == SCHED_FIFO && audio.priority == Int(sched_get_priority_min(SCHED_FIFO)) + 10, "\(all)")
        #expect(client.policy == SCHED_FIFO && client.priority == audio.priority - 1, "\(all)")
        let others = all.filter { $0.name != "practice-audio" && $0.name != "threaded-ml" }
        #expect(!others.isEmpty && others.allSatisfy { $0.policy == SCHED_OTHER && $0.priority == 0 }, "\(all)")
    }
}
