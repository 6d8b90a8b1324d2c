// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// The web remote from the network's side, with a plain HTTP and WebSocket client
/// (remote-client.py): what a stranger gets (401 and nothing else), pairing once with the token
/// the player printed, the limits (attempts, message size, connections, origin), commands that
/// drive the player (seen in its own events), and a revoked phone refused at once.
@Suite struct RemoteTests {
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("remote-client.py").path

    struct Remote {
        let host = "127.0.0.1"
        let port: String
        let origin: String
        let token: String

        func http(_ path: String, _ headers: [String] = [], method: String = "GET") throws -> [String: Any] {
            let r = try run("/usr/bin/python3", [RemoteTests.client, "http", host, port, method, path] + headers)
            return try #require((try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any], "\(r)")
        }

        /// Each JSON line the WebSocket client printed: the handshake's status, then the frames.
        func ws(_ headers: [String], _ messages: [String] = []) throws -> [[String: Any]] {
            let r = try run("/usr/bin/python3", [RemoteTests.client, "ws", host, port] + headers + ["--"] + messages)
            return r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    static func status(_ r: [String: Any]) -> Int { r["status"] as? Int ?? -1 }
    static func header(_ r: [String: Any], _ name: String) -> String? { ((r["headers"] as? [String: [String]])?[name])?.first }

    /// A player on a 2-minute tone with its remote on 127.0.0.1 (any free port), its paired
    /// devices kept in `dir`; the address and token it printed.
    static func start(in dir: ScratchDirectory) throws -> (ControlledPlayer, Remote) {
        try Signals.write(Signals.sine(440, seconds: 120), to: dir.file("Secret Song Title.wav"))
        let player = try ControlledPlayer(["Secret Song Title.wav", "--device", "null", "--control", "stdin", "--no-journal", "--fresh",
                                           "--remote", "--remote-bind", "127.0.0.1:0"],
                                          in: dir.path, environment: ["XDG_STATE_HOME": dir.file("state")])
        let line = try player.stderrLine(containing: "the remote is at")
        let found = try #require(line.firstMatch(of: /the remote is at (http:\/\/127\.0\.0\.1:([0-9]+)):.*open (HTTP:\/\/127\.0\.0\.1:[0-9]+\/P\/([A-Z2-7]{26}))\)/), "\(line)")
        return (player, Remote(port: String(found.2), origin: String(found.1), token: String(found.4)))
    }

    @Test func aStrangerGetsNothingAPairedPhoneDrivesThePlayerAndARevokedOneIsRefused() throws {
        let dir = ScratchDirectory("remote-security")
        let (player, remote) = try Self.start(in: dir)

        // A stranger: 401 and an empty body for everything, the title nowhere.
        for path in ["/", "/app.js", "/app.css", "/ws", "/nothing", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/P", "/P/"] {
            let r = try remote.http(path)
            #expect(Self.status(r) == 401 && (r["body"] as? String) == "", "\(path): \(r)")
            #expect(!"\(r)".contains("Secret"), "\(path) told the title: \(r)")
        }
        #expect(Self.status(try remote.http("/", method: "POST")) == 401)
        // (A refused WebSocket upgrade gets the server library's answer: 400, empty.)
        let stranger = try remote.ws(["Origin: \(remote.origin)"])
        #expect(stranger.first?["status"] as? Int == 400 && stranger.count == 1, "\(stranger)")

        // A wrong token: 401, and said on the player's side.
        #expect(Self.status(try remote.http("/P/" + String(repeating: "A", count: 26))) == 401)
        _ = try player.stderrLine(containing: "a pairing with a wrong or old code was refused")

        // The right one: a cookie, HttpOnly and SameSite=Strict; then the token is used up.
        let paired = try remote.http("/P/" + remote.token, ["User-Agent: Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36"])
        #expect(Self.status(paired) == 200, "\(paired)")
        let setCookie = try #require(Self.header(paired, "set-cookie"), "\(paired)")
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"), "\(setCookie)")
        let cookieValue = try #require(setCookie.firstMatch(of: /practice_remote=([A-Z2-7]{52});/)?.1, "\(setCookie)")
        let cookie = "Cookie: practice_remote=\(cookieValue)"
        _ = try player.stderrLine(containing: "remote: paired Android phone 1")
        #expect(Self.status(try remote.http("/P/" + remote.token)) == 401, "a token works once")

        // Paired: the page and its assets, nothing else; no path of this machine in them.
        let page = try remote.http("/", [cookie])
        #expect(Self.status(page) == 200 && (page["body"] as? String ?? "").contains("<title>practice remote</title>"), "\(page)")
        #expect(Self.header(page, "content-security-policy")?.contains("default-src 'self'") == true, "\(page)")
        #expect(Self.header(page, "cache-control") == "no-store")
        let total = try ["/", "/app.js", "/app.css"].map { try remote.http($0, [cookie])["body"] as? String ?? "" }.map(\.utf8.count).reduce(0, +)
        #expect(total < 100_000, "the page is \(total) bytes")
        for path in ["/nothing", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/app.js/../../etc/passwd", "//etc/passwd"] {
            let r = try remote.http(path, [cookie])
            #expect(Self.status(r) == 404 && (r["body"] as? String) == "", "\(path): \(r)")
        }

        // The WebSocket: not from another origin; from the page's own, the state, and commands
        // that drive the player (its own events say so).
        let foreign = try remote.ws([cookie, "Origin: http://evil.example"])
        #expect(foreign.first?["status"] as? Int == 400 && foreign.count == 1, "\(foreign)")
        #expect(Self.status(try remote.http("/ws", [cookie, "Origin: http://evil.example"])) == 403)
        let frames = try remote.ws([cookie, "Origin: \(remote.origin)"], [#"{"cmd":"rate","value":0.8}"#])
        #expect(frames.first?["status"] as? Int == 101, "\(frames)")
        let texts = frames.compactMap { $0["text"] as? String }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(texts.first?["event"] as? String == "markers", "\(texts)")
        #expect(texts.contains { $0["event"] as? String == "full" && $0["title"] as? String == "Secret Song Title.wav" && $0["path"] == nil }, "\(texts)")
        #expect(texts.contains { $0["event"] as? String == "full" && $0["rate"] as? Double == 0.8 }, "\(texts)")
        try player.next("state", within: 5) { $0["rate"] as? Double == 0.8 }

        // Refused as the command line refuses it: an error event, the connection kept.
        let refused = try remote.ws([cookie, "Origin: \(remote.origin)"], [#"{"cmd":"rate","value":9}"#])
        #expect(refused.contains { ($0["text"] as? String)?.contains(#""event":"error""#) == true }, "\(refused)")
        #expect(!refused.contains { $0["close"] != nil }, "\(refused)")

        // Oversized, malformed and binary messages close the connection with a reason.
        let big = try remote.ws([cookie, "Origin: \(remote.origin)"], ["@bytes:5000"])
        #expect(big.contains { $0["close"] as? Int == 1009 }, "\(big)")
        let junk = try remote.ws([cookie, "Origin: \(remote.origin)"], ["not json"])
        #expect(junk.contains { $0["close"] as? Int == 1003 && ($0["reason"] as? String ?? "").contains("not a JSON object") }, "\(junk)")
        let binary = try remote.ws([cookie, "Origin: \(remote.origin)"], ["@binary"])
        #expect(binary.contains { $0["close"] as? Int == 1003 }, "\(binary)")
        // A command in three frames is one command; frames of 2 kB each that add up to more
        // than 4 kB close as one frame that long does; text that is not UTF-8 closes with 1007.
        let split = try remote.ws([cookie, "Origin: \(remote.origin)"], [#"@split:{"cmd":"rate","value":0.7}"#])
        #expect(split.contains { ($0["text"] as? String)?.contains(#""rate":0.7"#) == true } && !split.contains { $0["close"] != nil }, "\(split)")
        try player.next("state", within: 5) { $0["rate"] as? Double == 0.7 }
        let pieces = try remote.ws([cookie, "Origin: \(remote.origin)"], ["@pieces:3:2000"])
        #expect(pieces.contains { $0["close"] as? Int == 1009 }, "\(pieces)")
        let latin1 = try remote.ws([cookie, "Origin: \(remote.origin)"], [#"@latin1:{"cmd":"seek","to":"Café"}"#])
        #expect(latin1.contains { $0["close"] as? Int == 1007 }, "\(latin1)")
        // A message begun inside another: 1002, and the second is not carried out (still playing).
        let interleaved = try remote.ws([cookie, "Origin: \(remote.origin)"], ["@interleaved"])
        #expect(interleaved.contains { $0["close"] as? Int == 1002 } && !interleaved.contains { ($0["text"] as? String)?.contains(#""playing":false"#) == true }, "\(interleaved)")
        // Another protocol asked for: 400 at once, as for a refused WebSocket.
        let h2c = try remote.http("/", [cookie, "Upgrade: h2c"])
        #expect(Self.status(h2c) == 400 && (h2c["body"] as? String) == "", "\(h2c)")
        // Any other upgrade: libwebsockets' own fixed page, which says nothing of the player.
        let other = try remote.http("/", [cookie, "Upgrade: foo"])
        #expect(Self.status(other) == 403 && (other["body"] as? String ?? "").utf8.count < 200 && !"\(other)".contains("Secret") && !"\(other)".contains("song"), "\(other)")
        // Headers over 8 kB in all: the connection is closed, and not a word said; under it, answered.
        let longHeader = try remote.http("/", [cookie, "X-Long: " + String(repeating: "y", count: 8_200)])
        #expect(Self.status(longHeader) == 0 && (longHeader["body"] as? String) == "" && (longHeader["headers"] as? [String: Any])?.isEmpty == true, "\(longHeader)")
        #expect(Self.status(try remote.http("/", [cookie, "X-Long: " + String(repeating: "y", count: 7_000)])) == 200)
        // The query is not part of the path; HEAD has the headers without the body.
        #expect(Self.status(try remote.http("/app.css?v=2", [cookie])) == 200)
        let head = try remote.http("/", [cookie], method: "HEAD")
        #expect(Self.status(head) == 200 && Self.header(head, "content-length") == "\((page["body"] as? String ?? "").utf8.count)" && (head["body"] as? String) == "", "\(head)")

        // At most 16 connections: 16 held open (by one client), the 17th refused.
        let holder = Process()
        let held = Pipe(), release = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [Self.client, "hold", remote.host, remote.port, "16", "30", cookie, "Origin: \(remote.origin)"]
        (holder.standardOutput, holder.standardInput) = (held, release)
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        let opened = String(decoding: held.fileHandleForReading.availableData, as: UTF8.self)
        #expect(opened.hasPrefix(#"{"open": 16}"#), "\(opened)")
        try eventually("the server counts the 16", within: 5) {
            Self.status(try remote.http("/ws", [cookie, "Origin: \(remote.origin)"])) == 503
        }
        let seventeenth = try remote.ws([cookie, "Origin: \(remote.origin)"])
        #expect(seventeenth.first?["status"] as? Int == 400 && seventeenth.count == 1, "\(seventeenth)")
        try release.fileHandleForWriting.close()   // the client lets go of the 16
        holder.waitUntilExit()

        // Pairing attempts: 4 so far this minute (the stranger's empty "/P/", a wrong token, the
        // right one, and it again); 6 more wrong ones are 401, the 11th is refused.
        for _ in 0..<6 { #expect(Self.status(try remote.http("/P/" + String(repeating: "B", count: 26))) == 401) }
        #expect(Self.status(try remote.http("/P/" + String(repeating: "C", count: 26))) == 429)
        _ = try player.stderrLine(containing: "remote: pairing refused (more than 10 attempts in a minute)")

        // The phone is listed, then revoked: refused at once, an open connection closed within a
        // second though nothing changes.
        let env = ["XDG_STATE_HOME": dir.file("state")]
        let listed = try run(practiceBinary, ["remote", "devices"], environment: env)
        #expect(listed.status == 0 && listed.stdout.hasPrefix("Android phone 1  paired 20"), "\(listed)")
        let open = Process()
        let openOut = Pipe()
        open.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        open.arguments = [Self.client, "ws", remote.host, remote.port, cookie, "Origin: \(remote.origin)", "--", "@wait:4"]
        open.standardOutput = openOut
        try open.run()
        // Connected once the client has printed the handshake's answer.
        let handshake = String(decoding: openOut.fileHandleForReading.availableData, as: UTF8.self)
        #expect(handshake.hasPrefix(#"{"status": 101}"#), "\(handshake)")
        // Paused: no event comes that would close it; only the check made every second does.
        player.send(#"{"cmd":"pause"}"#)
        try player.next("state") { $0["playing"] as? Bool == false }
        let revoked = try run(practiceBinary, ["remote", "revoke", "android PHONE 1"], environment: env)
        #expect(revoked.status == 0 && revoked.stdout == "revoked Android phone 1\n", "\(revoked)")
        open.waitUntilExit()
        let openFrames = handshake + String(decoding: openOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(openFrames.contains(#""close": 1008"#) && openFrames.contains("unpaired"), "\(openFrames)")
        let after = try remote.http("/", [cookie])
        #expect(Self.status(after) == 401 && (after["body"] as? String) == "", "\(after)")
        let again = try run(practiceBinary, ["remote", "revoke", "all"], environment: env)
        #expect(again.status == 64 && again.stderr == "practice: no paired device named 'all' (none is paired)\n", "\(again)")

        let (status, _, stderr) = try player.quit()
        #expect(status == 0, "stderr: \(stderr)")
    }

    /// The page in headless Chromium as a 360×740 touch phone, paired through the code's
    /// address: each button drives the player (seen in the player's own events and sidecar), two
    /// tabs stay in step, every button is at least 48 px tall.
    @Test func thePageInAPhonesBrowserDrivesThePlayer() throws {
        let dir = ScratchDirectory("remote-browser")
        try Signals.write(Signals.sine(440, seconds: 120), to: dir.file("song.wav"))
        for (name, time) in [("Verse", "10"), ("Chorus", "30"), ("Bridge", "50")] {
            let added = try run(practiceBinary, ["markers", "add", "song.wav", name, time], currentDirectory: dir.path)
            try #require(added.status == 0, "\(added)")
        }
        let player = try ControlledPlayer(["song.wav", "--device", "null", "--control", "stdin", "--no-journal", "--fresh",
                                           "--remote", "--remote-bind", "127.0.0.1:0", "--from", "5"],
                                          in: dir.path, environment: ["XDG_STATE_HOME": dir.file("state")])
        let line = try player.stderrLine(containing: "the remote is at")
        let pairing = try #require(line.firstMatch(of: /open (HTTP:\/\/127\.0\.0\.1:[0-9]+\/P\/[A-Z2-7]{26})\)/)?.1, "\(line)")
        // A loop long enough that its passes are not over before the test is (a script's player ends there).
        player.send(#"{"cmd":"loop","start":10,"end":45}"#)
        try player.next("state") { ($0["loop"] as? [String: Any])?["start"] as? Double == 10 }
        let steps = [
            "until:#title=song.wav", "until:#markers=Chorus", "until:#loop=loop 0:10.0–0:45.0, pass",
            // What the lock screen shows where the browser offers one: the Media Session's title and state.
            "eval:navigator.mediaSession.metadata.title + ' | ' + navigator.mediaSession.playbackState",
            // (The buttons shown: a song has no picture, so no Video and Mirror.)
            "eval:Math.min(...[...document.querySelectorAll('button')].filter(b => b.offsetParent !== null).map(b => b.getBoundingClientRect().height))",
            "eval:document.getElementById('picture').hidden",
            "tap:[data-do=faster]", "until:#speed=1.05×",
            "tap:[data-rate='0.8']", "until:#speed=0.80×",
            "tap:[data-do=passes]", "until:#passes=Passes 3", "until:#loop=pass 1/3",
            "tap:[data-do=looping]", "until:#loop=off",
            // More than a second into Chorus, "previous" goes back to its start, as players'
            // previous does; "next" goes on to Bridge.
            "tap:[data-marker=Chorus]", "until:#section=Chorus",
            "untilJS:(t => t >= 31.2 && t < 40)(parseFloat(document.getElementById('position').textContent.slice(2)))",
            "tap:[data-do=previous]",
            "untilJS:(t => t >= 30 && t < 31)(parseFloat(document.getElementById('position').textContent.slice(2)))",
            "tap:[data-do=next]", "until:#section=Bridge",
            "eval:document.getElementById('markname').value = 'Turn'; document.querySelector('#mark button').click(); true",
            "until:#markers=Turn",
            "tap:[data-do=countin]", "untilJS:document.getElementById('countin').classList.contains('on')",
            "page2", "until:#speed=0.80×", "tap:[data-do=toggle]", "until:#toggle=Play",
            "page1", "until:#toggle=Play",
            "shot:\(dir.file("phone.png"))",
        ]
        let browser = try run("/usr/bin/python3", [Self.client, "browser", String(pairing)] + steps)
        let results = browser.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(browser.status == 0 && results.count == steps.count + 1, "\(browser)")
        #expect(!results.contains { $0["timedOut"] != nil }, "\(results)")
        #expect((results.first?["paired"] as? String)?.hasSuffix("/") == true, "the token is gone from the address: \(results)")
        #expect(results.contains { $0["value"] as? String == "song.wav | playing" }, "the Media Session: \(results)")
        let smallest = results.compactMap { $0["value"] as? Double }.first ?? 0
        #expect(results.contains { $0["value"] as? Bool == true }, "no picture's buttons for a song: \(results)")
        #expect(smallest >= 48, "the smallest button is \(smallest) px tall")

        // What the player did, in its own events: each tap, in order.
        try player.next("state", within: 1) { $0["rate"] as? Double == 1.05 }
        try player.next("state", within: 1) { $0["rate"] as? Double == 0.8 }
        try player.next("state", within: 1) { ($0["loop"] as? [String: Any])?["times"] as? Int == 3 }
        try player.next("state", within: 1) { ($0["loop"] as? [String: Any])?["pass"] as? Int == 1 && ($0["position"] as? Double).map { $0 >= 10 && $0 < 11 } ?? false }
        try player.next("state", within: 1) { $0["loop"] == nil }   // looping off
        // A jump lands on its marker to the millisecond (the ticks between land anywhere): to
        // Chorus, back to it with "previous" (the page saw more than a second of it first), to Bridge.
        try player.next("state", within: 1) { $0["position"] as? Double == 30 }
        try player.next("state", within: 1) { $0["position"] as? Double == 30 }
        try player.next("state", within: 1) { $0["position"] as? Double == 50 }
        try player.next("state", within: 1) { $0["playing"] as? Bool == false }
        let markers = try run(practiceBinary, ["markers", "song.wav", "--json"], currentDirectory: dir.path)
        #expect(markers.stdout.contains("\"Turn\""), "the marker dropped from the phone is in the sidecar: \(markers)")
        let (status, _, stderr) = try player.quit()
        #expect(status == 0, "stderr: \(stderr)")
    }

    /// `practice remote` starts the remote of a player that is already running (started without
    /// `--remote`) and prints its address and code; the page paired through it follows what
    /// `practice ctl` and MPRIS do, says when the player quits, and catches up with the next
    /// player on the same address (the phone's pairing kept), whose player it then drives.
    @Test func practiceRemoteServesARunningPlayerAndThePageFollowsCtlMPRISAndARestart() throws {
        let bus = try SessionBus()
        let dir = ScratchDirectory("remote-running")
        try FileManager.default.createDirectory(atPath: dir.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Signals.write(Signals.sine(440, seconds: 120), to: dir.file("song.wav"))
        let env = ["XDG_STATE_HOME": dir.file("state"), "XDG_RUNTIME_DIR": dir.file("run"), "DBUS_SESSION_BUS_ADDRESS": bus.address]
        let first = try ControlledPlayer(["song.wav", "--device", "null", "--control", "stdin", "--no-journal", "--fresh",
                                          "--remote-bind", "127.0.0.1:0"], in: dir.path, environment: env)
        try first.next("state")
        // Its socket answers once the player is set up; until then there is no player to ask.
        let shown = try eventuallyValue("the player's socket answers", within: 10) { () -> ProcessResult? in
            let r = try run(practiceBinary, ["remote"], environment: env)
            return r.status == 0 ? r : nil
        }
        let found = try #require(shown.stdout.firstMatch(of: /^the remote is at (http:\/\/127\.0\.0\.1:([0-9]+)): scan the code with the phone's camera to pair it \(or open (HTTP:\/\/127\.0\.0\.1:[0-9]+\/P\/[A-Z2-7]{26})\)\n/), "\(shown)")
        let (origin, port, code) = (String(found.1), String(found.2), String(found.3))
        let lines = shown.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.filter { $0.contains("▀") || $0.contains("█") }.count >= 12 && shown.stdout.hasSuffix("only paired phones can drive the player\n"), "\(shown)")
        let asked = try run(practiceBinary, ["remote", "--json"], environment: env)
        #expect(asked.status == 0 && asked.stdout == #"{"event":"remote","origin":"\#(origin)","pairing":"\#(code)"}"# + "\n", "the code not used yet is the same: \(asked)")

        let steps = ["until:#title=song.wav", "until:#toggle=Pause", "say:ctl", "until:#speed=0.70×", "say:mpris", "until:#toggle=Play",
                     "say:quit", "until:#link=the player has quit", "say:restart", "until:#link=live", "until:#speed=1.20×",
                     "tap:[data-do=toggle]", "until:#toggle=Play",
                     // Revoked while its player is paused (nothing changes): the page is told at once.
                     "say:revoke", "until:#link=unpaired: scan the code on the player again"]
        let browser = try Spawned("/usr/bin/python3", [Self.client, "browser", code] + steps, environment: ProcessInfo.processInfo.environment, captureStdout: true)
        var results: [[String: Any]] = []
        var second: ControlledPlayer?
        for line in FileDescriptorLines(browser.stdout!) {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            results.append(o)
            switch o["say"] as? String {
            case "ctl":
                let r = try run(practiceBinary, ["ctl", "rate", "0.7"], environment: env)
                #expect(r.status == 0, "\(r)")
            case "mpris":
                let r = try eventuallyValue("playerctl finds the player") { () -> ProcessResult? in
                    let r = try run("/usr/bin/playerctl", ["-p", "practice", "pause"], environment: env)
                    return r.status == 0 ? r : nil
                }
                #expect(r.stderr.isEmpty, "\(r)")
            case "quit":
                let (status, _, stderr) = try first.quit()
                #expect(status == 0, "stderr: \(stderr)")
            case "revoke":
                let r = try run(practiceBinary, ["remote", "revoke", "all"], environment: env)
                #expect(r.status == 0 && r.stdout == "revoked Android phone 1\n", "\(r)")
            case "restart":
                second = try ControlledPlayer(["song.wav", "--device", "null", "--control", "stdin", "--no-journal", "--fresh", "--rate", "1.2",
                                               "--remote", "--remote-bind", "127.0.0.1:\(port)"], in: dir.path, environment: env)
            default: break
            }
        }
        #expect(browser.wait() == 0 && results.count == steps.count + 1, "\(results)")
        #expect(!results.contains { $0["timedOut"] != nil }, "\(results)")
        // The tap on the new player's page paused the new player (it played from the start).
        let player = try #require(second)
        try player.next("state") { $0["playing"] as? Bool == false && $0["rate"] as? Double == 1.2 }
        let (status, _, stderr) = try player.quit()
        #expect(status == 0, "stderr: \(stderr)")

        // A player that was told '--no-remote' says so.
        let none = try ControlledPlayer(["song.wav", "--device", "null", "--control", "stdin", "--no-journal", "--no-remote"], in: dir.path, environment: env)
        try none.next("state")
        let refused = try eventuallyValue("the player's socket answers", within: 10) { () -> ProcessResult? in
            let r = try run(practiceBinary, ["remote"], environment: env)
            return r.stderr.contains("no player is running") ? nil : r
        }
        #expect(refused.status == 69 && refused.stdout.isEmpty
                && refused.stderr == "practice: control: this player offers no phone remote here (started with '--no-remote', or still starting; ask its players' socket, as 'practice remote' does)\n", "\(refused)")
        _ = try none.quit()
    }

    /// Addresses that are not ones are refused before anything plays: on the command line (64)
    /// and in config.toml (78, naming the file).
    @Test func anAddressThatIsNotOneIsRefused() throws {
        let dir = ScratchDirectory("remote-bind")
        try Signals.write(Signals.sine(440, seconds: 1), to: dir.file("song.wav"))
        let env = ["XDG_STATE_HOME": dir.file("state"), "XDG_CONFIG_HOME": dir.file("config")]
        for (bind, said) in [("nonsense", "a numeric address such as 192.168.1.20 (got 'nonsense')"), ("127.0.0.1:99999", "ADDR or ADDR:PORT, a port from 0 to 65535 (got '127.0.0.1:99999')")] {
            let r = try run(practiceBinary, ["play", "song.wav", "--device", "null", "--no-tui", "--remote-bind", bind], environment: env, currentDirectory: dir.path)
            #expect(r.status == 64 && r.stdout.isEmpty && r.stderr == "practice: '--remote-bind' takes \(said) (see 'practice --help')\n", "\(r)")
        }
        try FileManager.default.createDirectory(atPath: dir.file("config/practice"), withIntermediateDirectories: true)
        try "[remote]\nbind = \"my laptop\"\n".write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        let r = try run(practiceBinary, ["play", "song.wav", "--device", "null", "--no-tui"], environment: env, currentDirectory: dir.path)
        #expect(r.status == 78 && r.stdout.isEmpty
                && r.stderr == "practice: \(dir.file("config/practice/config.toml")): [remote] bind takes a numeric address such as 192.168.1.20 (got 'my laptop')\n", "\(r)")
    }
}

/// The remote's timings, heard at a real-time sink: one test at a time, in a test process of its
/// own after `RemoteTests` (Tests/run.sh). Beside that suite's browsers starting, on this 2-core
/// machine, a state once came 96 ms after its beat where 50 ms is allowed.
@Suite(.serialized) struct RemoteTimingTests {
    /// The page's taps, heard at a real-time sink: a marker, "previous" and "next" land where
    /// they should (the source is a counter whose every frame says where it is: within 20 ms),
    /// a speed preset changes the spacing of clicks heard (250 ms → 312.5 ms at 0.8×, and back),
    /// and "passes" plays the loop three times from A, each pass the loop's whole length.
    @Test func tapsOnThePageAreHeard() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("remote-heard")
        var source = Signals.counter(frames: 40 * 44_100)
        var clicks = [Float](repeating: 0, count: 20 * 44_100 * 2)
        for k in stride(from: 0, to: 20 * 44_100, by: 11_025) { for j in 0..<40 { clicks[2 * (k + j)] = 0.8; clicks[2 * (k + j) + 1] = 0.8 } }
        source += clicks
        try Signals.write(source, to: dir.file("song.wav"), format: .float)
        try Signals.write(Signals.sine(100, seconds: 0.3, amplitude: 0.1), to: dir.file("warm.wav"))
        for (name, time) in [("Verse", "10"), ("Chorus", "20"), ("Clicks", "40")] {
            let added = try run(practiceBinary, ["markers", "add", "song.wav", name, time], currentDirectory: dir.path)
            try #require(added.status == 0, "\(added)")
        }
        var env = rig.environment
        env["XDG_STATE_HOME"] = dir.file("state")
        _ = try run(practiceBinary, ["play", "warm.wav", "--device", "pulse", "--no-tui", "--no-journal"], environment: env, currentDirectory: dir.path)
        try rig.startRecording()
        let player = try ControlledPlayer(["song.wav", "--device", "pulse", "--control", "stdin", "--no-journal", "--fresh", "--from", "2",
                                           "--remote", "--remote-bind", "127.0.0.1:0"], in: dir.path, environment: env)
        let line = try player.stderrLine(containing: "the remote is at")
        let pairing = try #require(line.firstMatch(of: /open (HTTP:\/\/127\.0\.0\.1:[0-9]+\/P\/[A-Z2-7]{26})\)/)?.1, "\(line)")
        func heardFrom(_ t: Double) -> String { "untilJS:(t => t >= \(t))(parseFloat(document.getElementById('position').textContent.slice(2)))" }
        let steps = [
            "until:#markers=Clicks", heardFrom(3),
            "tap:[data-marker=Chorus]", "until:#section=Chorus", heardFrom(21.3),
            "tap:[data-do=previous]", "untilJS:(t => t >= 20 && t < 21)(parseFloat(document.getElementById('position').textContent.slice(2)))", heardFrom(20.5),
            "tap:[data-do=next]", "until:#section=Clicks", heardFrom(41.6),
            "tap:[data-rate='0.8']", "until:#speed=0.80×", heardFrom(43.3),
            "tap:[data-rate='1']", "until:#speed=1.00×", heardFrom(44.8),
            "say:loop", "until:#loop=loop 0:10.0–0:11.5",
            "tap:[data-do=passes]", "until:#passes=Passes 3",
        ]
        let browser = try Spawned("/usr/bin/python3", [RemoteTests.client, "browser", String(pairing)] + steps, environment: ProcessInfo.processInfo.environment, captureStdout: true)
        var results: [[String: Any]] = []
        for line in FileDescriptorLines(browser.stdout!) {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            results.append(o)
            if o["say"] as? String == "loop" { player.send(#"{"cmd":"loop","start":10,"end":11.5}"#) }
        }
        #expect(browser.wait() == 0 && results.count == steps.count + 1, "\(results)")
        #expect(!results.contains { $0["timedOut"] != nil }, "\(results)")
        // A script's player ends with the loop's last pass.
        try player.next("state", within: 20) { $0["finished"] as? Bool == true }
        let (status, _, stderr) = try player.quit()
        #expect(status == 0, "stderr: \(stderr)")
        let (captured, _) = rig.stopRecording()

        // Where each run of the counter began in the source, in order: from 2 s, Chorus (20 s),
        // previous (Chorus again), then, after the clicks, the three passes from A (10 s).
        let runs = TerminalTests.counterRuns(captured)
        func landing(_ n: Int) -> Double { Double(runs[n].source) / 44.1 }   // ms, mod 65,536 frames
        func lands(_ n: Int, at seconds: Double) -> Bool {
            let want = Int((seconds * 44_100).rounded()) & 0xFFFF
            let off = (runs[n].source - want + 32_768) & 0xFFFF - 32_768
            return abs(Double(off) / 44.1) <= 20
        }
        func length(_ n: Int) -> Double { Double(TerminalTests.heard(runs[n])) / 44.1 }
        // (Setting the loop from the script went to A already: a run from 10 s before the tap's.)
        try #require(runs.count == 6 || runs.count == 7, "runs (first frame, last frame, source frame mod 65,536): \(runs)")
        #expect(lands(0, at: 2) && lands(1, at: 20) && lands(2, at: 20), "runs: \(runs)")
        for (n, pass) in (runs.count - 3..<runs.count).enumerated() {
            #expect(lands(pass, at: 10), "pass \(n + 1) began at \(landing(pass)) ms mod 65,536 frames: \(runs)")
            #expect(abs(length(pass) - 1_500) <= 20, "pass \(n + 1) lasted \(length(pass)) ms, the loop 1,500 ms")
        }
        if runs.count == 7 { #expect(lands(3, at: 10), "runs: \(runs)") }
        // The clicks between "next" and the loop: every 250 ms at 1.0×, every 312.5 ms at 0.8×, then
        // 250 ms again (at 0.8× each gap is within the stretcher's 6 ms steps, three in a row within 2 ms).
        let clickRegion = (runs[2].last + 1)..<runs[3].first
        var onsets: [Int] = []
        var quiet = 0
        for k in clickRegion {
            if abs(captured[2 * k]) > 0.4 { if quiet >= 2_000 { onsets.append(k) }; quiet = 0 } else { quiet += 1 }
        }
        let gaps = zip(onsets, onsets.dropFirst()).map { Double($1 - $0) / 44.1 }
        func streak(of ms: Double, from start: Int) -> Int? {
            var run = 0
            for i in start..<gaps.count {
                run = abs(gaps[i] - ms) <= 6 ? run + 1 : 0
                if run >= 3, abs(gaps[i - 2...i].reduce(0, +) / 3 - ms) <= 2 { return i + 1 }
            }
            return nil
        }
        let before = streak(of: 250, from: 0)
        let slow = before.flatMap { streak(of: 312.5, from: $0) }
        let after = slow.flatMap { streak(of: 250, from: $0) }
        #expect(before != nil && slow != nil && after != nil, "gaps between clicks heard (ms): \(gaps)")
    }

    /// The pages are sent what they cannot foresee, not the player's ten ticks a second: playing
    /// at 120 bpm with a beat grid, one state a beat, each sent within 50 ms after its beat, with
    /// `moving` (the page moves the position on by itself between); paused, nothing.
    @Test func thePageIsSentEachBeatNotEachTick() throws {
        let rig = try PulseRig()
        let dir = ScratchDirectory("remote-feed")
        try Signals.write(Signals.sine(440, seconds: 60), to: dir.file("song.wav"))
        let grid = try run(practiceBinary, ["beats", "song.wav", "--bpm", "120", "--one", "1"], currentDirectory: dir.path)
        try #require(grid.status == 0, "\(grid)")
        var env = rig.environment
        env["XDG_STATE_HOME"] = dir.file("state")
        let player = try ControlledPlayer(["song.wav", "--device", "pulse", "--control", "stdin", "--no-journal", "--fresh", "--from", "1",
                                           "--remote", "--remote-bind", "127.0.0.1:0"], in: dir.path, environment: env)
        let line = try player.stderrLine(containing: "the remote is at")
        let found = try #require(line.firstMatch(of: /the remote is at (http:\/\/127\.0\.0\.1:([0-9]+)):.*open (HTTP:\/\/127\.0\.0\.1:[0-9]+\/P\/([A-Z2-7]{26}))\)/), "\(line)")
        let remote = RemoteTests.Remote(port: String(found.2), origin: String(found.1), token: String(found.4))
        let paired = try remote.http("/P/" + remote.token)
        let cookie = try #require(RemoteTests.header(paired, "set-cookie")?.firstMatch(of: /practice_remote=([A-Z2-7]{52});/)?.1, "\(paired)")
        try player.next("state", within: 5) { $0["playing"] as? Bool == true }

        // 1 s, then 3 s more, then 1 s (the client's own reads): about 5 s, ten beats.
        let frames = try remote.ws(["Cookie: practice_remote=\(cookie)", "Origin: \(remote.origin)"], ["@wait:3"])
        let states = frames.compactMap { $0["text"] as? String }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "full" }
        let looks = states.dropFirst()   // after the state the page is given as it connects
        func view(_ o: [String: Any]) -> [String: Any] { o["view"] as? [String: Any] ?? [:] }
        func beat(_ o: [String: Any]) -> Int? { (view(o)["eight"] as? [String: Any])?["beat"] as? Int }
        #expect(looks.count >= 8 && looks.count <= 13, "\(looks.count) states in about 5 s (ticks would be 50): \(states)")
        for o in looks {
            let position = o["position"] as? Double ?? -1
            let sinceBeat = position - (position * 2).rounded(.down) / 2
            #expect(view(o)["moving"] as? Bool == true && sinceBeat < 0.05, "a state 0.\(Int(sinceBeat * 1000)) s after its beat: \(o)")
        }
        for (a, b) in zip(looks, looks.dropFirst()) {
            #expect(beat(b) == (beat(a) ?? 0) % 8 + 1, "the eight-count went \(beat(a) ?? 0) → \(beat(b) ?? 0): \(states)")
        }

        player.send(#"{"cmd":"pause"}"#)
        try player.next("state") { $0["playing"] as? Bool == false }
        let pausedFrames = try remote.ws(["Cookie: practice_remote=\(cookie)", "Origin: \(remote.origin)"], ["@wait:2"])
        let paused = pausedFrames.compactMap { $0["text"] as? String }.filter { $0.contains(#""event":"full""#) }
        #expect(paused.count == 1 && paused[0].contains(#""moving":false"#), "paused, the page is given the state once: \(paused); all it was sent (status first): \(pausedFrames)")
    }
}
