// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// The control socket (`--control PATH`): clients send the JSON-lines commands and hear state
/// events; a bad line is answered with an error event; a second player cannot take the socket;
/// quit ends the player and removes the socket.
@Suite struct ControlSocketTests {
    let fx = Fixtures.shared

    /// A line-based client of a Unix socket.
    final class Client {
        let fd: Int32
        private var pending: [UInt8] = []

        init(_ path: String, seconds: Double = 5) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let bytes = Array(path.utf8)
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            let deadline = Date().addingTimeInterval(seconds)
            while withUnsafePointer(to: &address, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }) != 0 {
                guard Date() < deadline else { throw CocoaError(.fileNoSuchFile) }
                usleep(20_000)
            }
        }
        /// Reads the lines of a descriptor it now owns (a child's stdout, say).
        init(reading fd: Int32) { self.fd = fd }

        deinit { close(fd) }

        func send(_ line: String) { _ = (line + "\n").withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }

        /// The next line, or nil after `seconds` without one (or when the server has gone).
        func line(seconds: Double = 3) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                if let nl = pending.firstIndex(of: 10) {
                    defer { pending.removeSubrange(...nl) }
                    return String(decoding: pending[..<nl], as: UTF8.self)
                }
                let left = Int32(deadline.timeIntervalSinceNow * 1000)
                guard left > 0 else { return nil }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, left) > 0 else { return nil }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { return nil }
                pending += buffer[0..<n]
            }
        }

        /// Lines until one contains `text` (nil if none does within `seconds`).
        func line(containing text: String, seconds: Double = 3) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            while let l = line(seconds: max(deadline.timeIntervalSinceNow, 0.01)) { if l.contains(text) { return l } }
            return nil
        }
    }

    var tone: String { fx.dir.path + "/tone.wav" }

    @Test func clientsDriveThePlayerAndHearItsState() throws {
        let dir = ScratchDirectory("socket")
        let sock = dir.file("c.sock")
        let env = ["XDG_CACHE_HOME": dir.path + "/cache"]
        // The markers come from a sidecar given with --markers: the crew's copy.
        try FileManager.default.copyItem(atPath: tone, toPath: dir.file("tone.wav"))
        _ = try run(practiceBinary, ["markers", "add", "tone.wav", "Bridge", "6.5"], environment: env, currentDirectory: dir.path)
        try FileManager.default.moveItem(atPath: dir.file("tone.wav.practice.json"), toPath: dir.file("tone.json"))
        // On `null` the player runs far faster than real time; the loop keeps it going until told.
        let player = try Spawned(practiceBinary, [tone, "--device", "null", "--no-tui", "--loop", "1", "2",
                                                  "--markers", dir.file("tone.json"), "--control", sock],
                                 environment: ProcessInfo.processInfo.environment.merging(env) { $1 })
        let a = try Client(sock)
        let first = try #require(a.line())
        #expect(first.hasPrefix(#"{"duration":10,"event":"state","finished":false,"loop":{"end":2,"pass":"#), "\(first)")
        var mode = stat()
        #expect(stat(sock, &mode) == 0 && mode.st_mode & 0o077 == 0)

        // Paused, a seek lands exactly; a jump to the marker (6.5 s) plays from it, inside a loop 6–8 s.
        // Every command's own event reaches every client, so the jump's says exactly where it landed.
        a.send(#"{"cmd":"pause"}"#)
        a.send(#"{"cmd":"loop"}"#)
        a.send(#"{"cmd":"seek","to":"0:07.25"}"#)
        #expect(a.line(containing: #""position":7.25,"#)?.contains(#""playing":false"#) == true)
        a.send(#"{"cmd":"loop","start":6,"end":8}"#)
        a.send(#"{"cmd":"jump","marker":"Bridge"}"#)
        #expect(a.line(containing: #""playing":true"#) == #"{"duration":10,"event":"state","finished":false,"loop":{"end":8,"pass":1,"start":6},"pitch":0,"playing":true,"position":6.5,"rate":1,"underruns":0,"version":1}"#)
        a.send(#"{"cmd":"pause"}"#)
        a.send(#"{"cmd":"loop"}"#)
        a.send(#"{"cmd":"seek","to":6.5}"#)
        #expect(a.line(containing: #""finished":false,"pitch":0,"playing":false,"position":6.5,"#) == #"{"duration":10,"event":"state","finished":false,"pitch":0,"playing":false,"position":6.5,"rate":1,"underruns":0,"version":1}"#)
        a.send(#"{"cmd":"jump","marker":"Coda"}"#)
        #expect(a.line(containing: "error") == #"{"code":64,"event":"error","message":"jump: no marker named 'Coda' (there are 'Bridge')"}"#)

        // A second client hears the state at once and drives the same player.
        let b = try Client(sock)
        #expect(b.line() == #"{"duration":10,"event":"state","finished":false,"pitch":0,"playing":false,"position":6.5,"rate":1,"underruns":0,"version":1}"#)
        b.send(#"{"cmd":"rate","value":0.7}"#)
        #expect(a.line(containing: #""rate":0.7"#) != nil)

        // The socket is taken while this player runs.
        let second = try run(practiceBinary, ["tone.wav", "--device", "null", "--no-tui", "--control", sock], currentDirectory: fx.dir.path)
        #expect(second.status == 73)
        #expect(second.stderr == "practice: \(sock): another practice is listening there (give '--control PATH' for a second one)\n")

        b.send(#"{"cmd":"quit"}"#)
        #expect(player.wait() == 0)
        #expect(a.line() == nil)
        #expect(!FileManager.default.fileExists(atPath: sock))
    }

    /// The protocol takes what the command line takes (markers, saved loops, lyric lines by name)
    /// and refuses what it refuses, with an error event, never clamping.
    @Test func theProtocolTakesAndRefusesWhatTheCommandLineDoes() throws {
        let dir = ScratchDirectory("socket-rules")
        let sock = dir.file("c.sock")
        let env = ["XDG_CACHE_HOME": dir.path + "/cache"]
        try FileManager.default.copyItem(atPath: tone, toPath: dir.file("tone.wav"))
        for args in [["markers", "add", "tone.wav", "Verse", "2"], ["markers", "add", "tone.wav", "Chorus", "4.5"],
                     ["loops", "add", "tone.wav", "chorus", "Chorus", "6"]] {
            #expect(try run(practiceBinary, args, environment: env, currentDirectory: dir.path).status == 0)
        }
        let player = try Spawned(practiceBinary, [dir.file("tone.wav"), "--device", "null", "--no-tui", "--loop", "1", "2", "--control", sock],
                                 environment: ProcessInfo.processInfo.environment.merging(env) { $1 })
        let c = try Client(sock)
        _ = try #require(c.line())
        c.send(#"{"cmd":"pause"}"#)
        c.send(#"{"cmd":"rate","value":8}"#)
        #expect(c.line(containing: "error") == #"{"code":64,"event":"error","message":"control: \"rate\" must be from 0.25 to 3.0 (got 8)"}"#)
        c.send(#"{"cmd":"pitch","value":-13}"#)
        #expect(c.line(containing: "error") == #"{"code":64,"event":"error","message":"control: \"pitch\" must be from -12 to 12 semitones (got -13)"}"#)
        c.send(#"{"cmd":"seek","to":-5}"#)
        #expect(c.line(containing: "error") == #"{"code":64,"event":"error","message":"control: \"seek\" to -5 is outside the track (0 to 0:10.000)"}"#)
        c.send(#"{"cmd":"seek","to":12}"#)
        #expect(c.line(containing: "error") == #"{"code":64,"event":"error","message":"control: \"seek\" to 12 is outside the track (0 to 0:10.000)"}"#)
        c.send(#"{"cmd":"loop"}"#)
        c.send(#"{"cmd":"seek","to":"Chorus"}"#)
        #expect(c.line(containing: #""position":4.5,"#) != nil)
        c.send(#"{"cmd":"loop","name":"chorus","times":3}"#)
        #expect(c.line(containing: #""name":"chorus""#)?.contains(#""loop":{"end":6,"name":"chorus","pass":1,"start":4.5,"times":3}"#) == true)
        c.send(#"{"cmd":"loop","start":"Verse","end":"Chorus"}"#)
        #expect(c.line(containing: #""start":2}"#)?.contains(#""loop":{"end":4.5,"pass":1,"start":2}"#) == true)
        c.send(#"{"cmd":"loop","name":"bridge"}"#)
        #expect(c.line(containing: "error") == #"{"code":64,"event":"error","message":"control: \"loop\": no loop named 'bridge' (there are 'chorus')"}"#)
        c.send(#"{"cmd":"seek","to":"Coda"}"#)
        #expect(c.line(containing: "error") == #"{"code":64,"event":"error","message":"control: \"seek\": no marker named 'Coda' (there are 'Verse', 'Chorus')"}"#)
        c.send(#"{"cmd":"quit"}"#)
        #expect(player.wait() == 0)
    }

    /// A socket file left by a player that was killed is replaced.
    /// An MP3's length from its headers is an estimate; once its audio was decoded (here by `info`,
    /// which caches the decoded identity), the player takes the decoded length. The test puts a
    /// different decoded length in that cache (1 s shorter): the player's state says that one.
    @Test func anMP3PlaysForItsDecodedLengthOnceKnown() throws {
        let dir = ScratchDirectory("mp3-length")
        let cache = dir.path + "/cache"
        let env = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 }
        try FileManager.default.copyItem(atPath: fx.dir.file("tone.mp3"), toPath: dir.file("tone.mp3"))
        func firstState() throws -> String {
            let sock = dir.file("c.sock")
            let player = try Spawned(practiceBinary, [dir.file("tone.mp3"), "--device", "null", "--no-tui", "--loop", "1", "2",
                                                      "--control", sock], environment: env)
            defer { kill(player.pid, SIGKILL); player.wait() }
            return try #require(try Client(sock).line())
        }
        #expect(try firstState().hasPrefix(#"{"duration":10,"#))   // from the headers, before any decoding
        let info = try run(practiceBinary, ["info", dir.file("tone.mp3")], environment: env)
        #expect(info.status == 0 && info.stdout.contains("Duration:     0:10.000 (441000 frames)"))
        let cached = try FileManager.default.contentsOfDirectory(atPath: cache + "/practice/identity")
        try #require(cached.count == 1)
        let path = cache + "/practice/identity/" + cached[0]
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try #require(text.contains(#""frames": 441000"#))
        try text.replacing(#""frames": 441000"#, with: #""frames": 396900"#).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try firstState().hasPrefix(#"{"duration":9,"#))
    }

    @Test func aStaleSocketIsReplaced() throws {
        let dir = ScratchDirectory("socket-stale")
        let sock = dir.file("c.sock")
        let first = try Spawned(practiceBinary, [tone, "--device", "null", "--no-tui", "--loop", "1", "2", "--control", sock],
                                environment: ProcessInfo.processInfo.environment)
        _ = try Client(sock)
        kill(first.pid, SIGKILL)
        _ = first.wait()
        #expect(FileManager.default.fileExists(atPath: sock))
        let second = try Spawned(practiceBinary, [tone, "--device", "null", "--no-tui", "--loop", "1", "2", "--control", sock],
                                 environment: ProcessInfo.processInfo.environment)
        let c = try Client(sock)
        #expect(c.line()?.hasPrefix(#"{"duration":10,"event":"state""#) == true)
        c.send(#"{"cmd":"quit"}"#)
        #expect(second.wait() == 0)
    }

    /// A file that is not a socket is never replaced: `--control ./notes.txt` refuses, the notes stay.
    @Test func aFileAtThePathIsLeftAlone() throws {
        let dir = ScratchDirectory("socket-file")
        try "keep me\n".write(toFile: dir.file("notes.txt"), atomically: true, encoding: .utf8)
        let r = try run(practiceBinary, [tone, "--device", "null", "--no-tui", "--control", dir.file("notes.txt")])
        #expect(r.status == 73)
        #expect(r.stderr == "practice: \(dir.file("notes.txt")): exists and is not a socket; give another path to '--control'\n")
        #expect(try String(contentsOfFile: dir.file("notes.txt"), encoding: .utf8) == "keep me\n")
    }
}
