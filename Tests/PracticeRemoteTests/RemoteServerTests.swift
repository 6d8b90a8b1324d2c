// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import Testing
import PracticeTestSupport
@testable import PracticeRemote
import PracticeDocuments
import PracticeEngine

/// The server's two timeouts, which the end-to-end suite cannot wait for (10 and 60 s): a page
/// that stops answering pings is closed with 1001 while one that answers stays; a connection that
/// says nothing is closed while one that keeps asking stays. And its limit of connections at once.
/// Real sockets on the loopback, the player on the virtual device, the times shortened through
/// `WebRemote.Settings`. The tests hold their thread while they wait (as the busy part's other
/// tests do): the server runs on a thread of its own, not on the task pool those threads are taken from.
@Suite struct RemoteServerTests {
    /// A raw TCP connection to the server, read with a timeout.
    final class Connection {
        let fd: Int32
        var buffer: [UInt8] = []
        var closed = false

        /// Connected from `source` (another address of the loopback: a device of its own).
        init(port: Int, from source: String = "127.0.0.1") throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard Self.call(bind, fd, source, 0) == 0 else { throw PracticeError(.unavailable, "bind \(source): \(errno)") }
            guard Self.call(connect, fd, "127.0.0.1", port) == 0 else { throw PracticeError(.unavailable, "connect: \(errno)") }
        }

        /// `bind` or `connect` on `fd` with the IPv4 address `host`:`port`.
        static func call(_ f: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32, _ fd: Int32, _ host: String, _ port: Int) -> Int32 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { f(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }

        deinit { close(fd) }

        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        func send(_ text: String) { send(Array(text.utf8)) }

        /// Reads what has come within `seconds` into `buffer`; `closed` once the server has closed it.
        func pump(_ seconds: Double) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard !closed, poll(&p, 1, Int32(seconds * 1000)) > 0 else { return }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { closed = true } else { buffer += chunk[..<n] }
        }

        /// The answer's head, once it has come (the bytes after it stay in `buffer`).
        func head(within seconds: Double) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline && !closed {
                if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                    defer { buffer.removeSubrange(..<end.upperBound) }
                    return String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                }
                pump(0.05)
            }
            return nil
        }

        /// A whole HTTP answer's head and body (as long as its Content-Length says).
        func answer(within seconds: Double) -> (head: String, body: [UInt8])? {
            let deadline = Date().addingTimeInterval(seconds)
            guard let head = head(within: seconds) else { return nil }
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < length && !closed && Date() < deadline { pump(0.05) }
            guard buffer.count >= length else { return nil }
            defer { buffer.removeSubrange(..<length) }
            return (head, Array(buffer[..<length]))
        }

        /// The next whole frame the server sent, if one is in `buffer`: opcode and payload.
        func frame() -> (opcode: UInt8, payload: [UInt8])? {
            guard buffer.count >= 2 else { return nil }
            var length = Int(buffer[1] & 127), start = 2
            if length == 126 {
                guard buffer.count >= 4 else { return nil }
                (length, start) = (Int(buffer[2]) << 8 | Int(buffer[3]), 4)
            } else if length == 127 {
                guard buffer.count >= 10 else { return nil }
                length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                start = 10
            }
            guard buffer.count >= start + length else { return nil }
            defer { buffer.removeSubrange(..<(start + length)) }
            return (buffer[0] & 15, Array(buffer[start..<(start + length)]))
        }

        /// A client's frame: masked, as the protocol asks of a browser.
        func sendFrame(_ opcode: UInt8, _ payload: [UInt8]) {
            let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            precondition(payload.count < 126)
            send([0x80 | opcode, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $1 ^ mask[$0 % 4] })
        }
    }

    /// A remote on 127.0.0.1 (any free port) serving a player on the virtual device, with one
    /// phone paired; its cookie.
    func start(_ dir: ScratchDirectory, _ adjust: (inout WebRemote.Settings) -> Void) throws -> (VirtualRig, WebRemote, String) {
        let song = dir.file("song.wav")
        try Signals.write(Signals.sine(440, seconds: 30), to: song)
        let rig = try VirtualRig(song)
        var settings = WebRemote.Settings()
        settings.bind = "127.0.0.1:0"
        settings.devicesPath = dir.file("remote-devices.json")
        adjust(&settings)
        var devices = try RemoteDevices(path: settings.devicesPath)
        let cookie = try devices.pair(kind: "Phone").cookie
        return (rig, try WebRemote(player: rig.player, settings: settings), cookie)
    }

    static func port(_ remote: WebRemote) -> Int { Int(remote.origin.split(separator: ":").last!)! }

    @Test func aPageThatStopsAnsweringPingsIsClosedOneThatAnswersStays() throws {
        let dir = ScratchDirectory("remote-pings")
        let (rig, remote, cookie) = try start(dir) { $0.pingEvery = .seconds(1) }
        defer { remote.stop(); rig.stop() }
        let request = "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\nCookie: practice_remote=\(cookie)\r\nOrigin: \(remote.origin)\r\n\r\n"
        let answering = try Connection(port: Self.port(remote)), silent = try Connection(port: Self.port(remote))
        answering.send(request)
        silent.send(request)
        #expect(answering.head(within: 5)?.hasPrefix("HTTP/1.1 101") == true)
        #expect(silent.head(within: 5)?.hasPrefix("HTTP/1.1 101") == true)
        var pings = (answering: 0, silent: 0)
        var closes: (answering: [UInt8]?, silent: [UInt8]?)
        let deadline = Date().addingTimeInterval(4.5)
        while Date() < deadline {
            answering.pump(0.01)
            silent.pump(0.01)
            while let f = answering.frame() {
                if f.opcode == 9 { pings.answering += 1; answering.sendFrame(10, f.payload) }
                if f.opcode == 8 { closes.answering = f.payload }
            }
            while let f = silent.frame() {
                if f.opcode == 9 { pings.silent += 1 }
                if f.opcode == 8, closes.silent == nil { closes.silent = f.payload; silent.sendFrame(8, Array(f.payload.prefix(2))) }
            }
        }
        // Pinged each second: the one that answers is open after four pings; the silent one was
        // closed at its second ping's time, with 1001 and why.
        #expect(pings.answering >= 3 && closes.answering == nil, "\(pings), \(String(describing: closes.answering))")
        #expect(pings.silent == 1, "\(pings)")
        let code = closes.silent.map { Int($0[0]) << 8 | Int($0[1]) }
        #expect(code == 1001 && closes.silent.map { String(decoding: $0.dropFirst(2), as: UTF8.self) } == "no answer to a ping", "\(String(describing: closes.silent))")
    }

    @Test func aSilentConnectionIsClosedOneThatKeepsAskingStays() throws {
        let dir = ScratchDirectory("remote-idle")
        let (rig, remote, cookie) = try start(dir) { $0.idleTimeout = .seconds(1) }
        defer { remote.stop(); rig.stop() }
        let asking = try Connection(port: Self.port(remote)), silent = try Connection(port: Self.port(remote))
        let opened = Date()
        var answers = 0, lastAnswer = 0.0
        // A request every 0.4 s for 3 s, each answered on the same connection.
        while Date().timeIntervalSince(opened) < 3 {
            asking.send("GET /app.css HTTP/1.1\r\nHost: x\r\nCookie: practice_remote=\(cookie)\r\n\r\n")
            if let answer = asking.answer(within: 2), answer.head.hasPrefix("HTTP/1.1 200"), answer.body == Array(RemotePage.style.utf8) {
                answers += 1
                lastAnswer = Date().timeIntervalSince(opened)
            }
            // The pace: 0.4 s between requests, also once the silent connection has gone (its
            // pump then returns at once).
            let looked = Date()
            silent.pump(0.4)
            let left = 0.4 - Date().timeIntervalSince(looked)
            if left > 0 { usleep(UInt32(left * 1_000_000)) }
        }
        // Answered all along, well past the idle time (each request is a read that starts it again).
        #expect(answers >= 5 && lastAnswer > 2.5 && !asking.closed, "\(answers) answers, the last at \(lastAnswer) s, closed: \(asking.closed)")
        #expect(silent.closed && silent.buffer.isEmpty, "\(silent.buffer.count) bytes, closed: \(silent.closed)")
    }

    /// Whether `c` is answered the page's style sheet within `seconds`.
    static func answered(_ c: Connection, within seconds: Double) -> Bool {
        c.answer(within: seconds).map { $0.head.hasPrefix("HTTP/1.1 200") && $0.body == Array(RemotePage.style.utf8) } ?? false
    }

    static func styleRequest(_ cookie: String) -> String { "GET /app.css HTTP/1.1\r\nHost: x\r\nCookie: practice_remote=\(cookie)\r\n\r\n" }

    @Test func atMost127ConnectionsAtOnceTheNextWaitsForOneToEnd() throws {
        let dir = ScratchDirectory("remote-connections")
        let (rig, remote, cookie) = try start(dir) { _ in }
        defer { remote.stop(); rig.stop() }
        let request = Self.styleRequest(cookie)
        // From eight addresses, 16 each (one address may hold 32).
        let held = try (0..<127).map { try Connection(port: Self.port(remote), from: "127.0.0.\(1 + $0 / 16)") }
        for c in held { c.send(request) }
        #expect(held.filter { Self.answered($0, within: 5) }.count == 127)
        // The 128th is connected by the system but not served while the others stay open...
        let next = try Connection(port: Self.port(remote), from: "127.0.0.8")
        next.send(request)
        #expect(!Self.answered(next, within: 1) && !next.closed, "\(next.buffer.count) bytes, closed: \(next.closed)")
        // ...and is answered once one of them has gone.
        Glibc.shutdown(held[0].fd, Int32(SHUT_RDWR))
        #expect(Self.answered(next, within: 5), "\(next.buffer.count) bytes, closed: \(next.closed)")
    }

    /// One device may hold `connectionsPerAddress` connections; the next from it is closed at
    /// once, unanswered, while another device is served; once one of its own has gone, it is
    /// served again.
    @Test func oneAddressHoldsAtMostItsShareOthersAreServed() throws {
        let dir = ScratchDirectory("remote-per-address")
        let (rig, remote, cookie) = try start(dir) { $0.connectionsPerAddress = 4 }
        defer { remote.stop(); rig.stop() }
        let request = Self.styleRequest(cookie)
        // A paired phone's connections stay open between its requests.
        var held = try (0..<4).map { _ in try Connection(port: Self.port(remote)) }
        for c in held { c.send(request) }
        #expect(held.filter { Self.answered($0, within: 5) }.count == 4)
        let fifth = try Connection(port: Self.port(remote))
        fifth.send(request)
        #expect(fifth.head(within: 5) == nil && fifth.closed && fifth.buffer.isEmpty, "\(fifth.buffer.count) bytes, closed: \(fifth.closed)")
        let other = try Connection(port: Self.port(remote), from: "127.0.0.2")
        other.send(request)
        #expect(Self.answered(other, within: 5))
        // The four still served (nothing of theirs closed by the refusals).
        for c in held { c.send(request) }
        #expect(held.filter { Self.answered($0, within: 5) }.count == 4)
        // One of the four gone: the address is served again (once the server has seen it go).
        _ = held.removeFirst()
        try eventually("127.0.0.1 served again", within: 5) {
            let again = try Connection(port: Self.port(remote))
            again.send(request)
            return Self.answered(again, within: 1)
        }
    }

    @Test func nothingIsSentAfterAClose() throws {
        let dir = ScratchDirectory("remote-after-close")
        let (rig, remote, cookie) = try start(dir) { $0.pingEvery = .milliseconds(300) }
        defer { remote.stop(); rig.stop() }
        let page = try Connection(port: Self.port(remote))
        page.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\nCookie: practice_remote=\(cookie)\r\nOrigin: \(remote.origin)\r\n\r\n")
        #expect(page.head(within: 5)?.hasPrefix("HTTP/1.1 101") == true)
        // A binary message closes the page (1003). For 1.5 s the page does not answer the close,
        // while the player plays (states to send) and pings fall due every 0.3 s: nothing may
        // follow the close, and the connection waits for the page's answer, not dropped.
        var opcodes: [UInt8] = []
        var deadline = Date().addingTimeInterval(0.5)
        while Date() < deadline { page.pump(0.05); while let f = page.frame() { opcodes.append(f.opcode) } }
        page.sendFrame(2, [1, 2, 3])
        deadline = Date().addingTimeInterval(1.5)
        while Date() < deadline && !page.closed { page.pump(0.05); while let f = page.frame() { opcodes.append(f.opcode) } }
        let close = try #require(opcodes.firstIndex(of: 8), "no close: \(opcodes)")
        #expect(opcodes.contains(1) && close == opcodes.count - 1 && !page.closed, "frames after the close: \(opcodes), closed: \(page.closed)")
        // Answered: then it ends.
        page.sendFrame(8, [0x03, 0xEB])
        deadline = Date().addingTimeInterval(3)
        while Date() < deadline && !page.closed { page.pump(0.05) }
        #expect(page.closed)
    }

    @Test func aStrangerIsAnsweredOnceAndAnotherUpgradeOnlyOnce() throws {
        let dir = ScratchDirectory("remote-strangers")
        let (rig, remote, cookie) = try start(dir) { _ in }
        defer { remote.stop(); rig.stop() }
        // A stranger: 401, and the connection closed after it (no slot held for nothing).
        let stranger = try Connection(port: Self.port(remote))
        stranger.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = stranger.answer(within: 5)
        #expect(refused?.head.hasPrefix("HTTP/1.1 401") == true && refused?.head.lowercased().contains("connection: close") == true, "\(String(describing: refused))")
        stranger.pump(2)
        #expect(stranger.closed)
        // On a paired phone's kept connection, an upgrade to another protocol after a first
        // request: libwebsockets' 403 and nothing more, then the connection closed.
        let phone = try Connection(port: Self.port(remote))
        phone.send("GET /app.css HTTP/1.1\r\nHost: x\r\nCookie: practice_remote=\(cookie)\r\n\r\n")
        #expect(phone.answer(within: 5)?.head.hasPrefix("HTTP/1.1 200") == true)
        phone.send("GET / HTTP/1.1\r\nHost: x\r\nCookie: practice_remote=\(cookie)\r\nUpgrade: foo\r\nConnection: Upgrade\r\n\r\n")
        let other = phone.answer(within: 5)
        #expect(other?.head.contains(" 403 ") == true, "\(String(describing: other))")
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline && !phone.closed { phone.pump(0.1) }
        #expect(phone.closed && phone.buffer.isEmpty, "after the 403: \(String(decoding: phone.buffer, as: UTF8.self))")
    }
}
