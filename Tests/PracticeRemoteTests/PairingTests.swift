// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeRemote
import PracticeDocuments

@Suite struct PairingTests {
    @Test func aTokenIs130RandomBitsInBase32AndWorksOnce() {
        var gate = PairingGate(now: 0)
        let token = gate.token
        #expect(token.count == 26 && token.allSatisfy { "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains($0) }, "\(token)")
        #expect(PairingGate(now: 0).token != token, "two gates, two tokens")
        #expect(gate.attempt(token, now: 1) == .paired)
        #expect(gate.token != token, "a new token once used")
        #expect(gate.attempt(token, now: 2) == .wrongToken)
        #expect(gate.attempt(gate.token, now: 3) == .paired)
    }

    @Test func aTokenExpiresAfterTenMinutes() {
        var gate = PairingGate(now: 100)
        let token = gate.token
        #expect(gate.isValid(at: 699.9) && !gate.isValid(at: 700))
        #expect(gate.attempt(token, now: 700) == .expired)
        #expect(gate.token != token)
        var other = PairingGate(now: 0)
        let old = other.token
        #expect(other.current(now: 599) == old)
        #expect(other.current(now: 600) != old, "asked for after 10 minutes: a new one")
    }

    @Test func tenAttemptsAMinuteThenRefusedWithoutLookingAtTheToken() {
        var gate = PairingGate(now: 0)
        for k in 0..<10 { #expect(gate.attempt("WRONG", now: Double(k)) == .wrongToken) }
        #expect(gate.attempt(gate.token, now: 10) == .tooMany, "the 11th, even right")
        #expect(gate.attempt(gate.token, now: 59.9) == .tooMany)
        #expect(gate.attempt(gate.token, now: 60) == .paired, "the first attempt is a minute old")
    }

    @Test func theComparisonIsRightForEveryLength() {
        #expect(constantTimeEqual("ABC", "ABC"))
        #expect(!constantTimeEqual("ABC", "ABD"))
        #expect(!constantTimeEqual("ABC", "ABCD"))
        #expect(!constantTimeEqual("", "A"))
        #expect(constantTimeEqual("", ""))
    }

    @Test func base32OfKnownBytes() {
        // RFC 4648's test vectors, without padding.
        #expect(SecureRandom.base32(of: Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(SecureRandom.base32(of: Array("f".utf8)) == "MY")
    }
}

@Suite struct QRCodeTests {
    /// The three finder patterns: 7×7 dark rings with a 3×3 centre, at three corners.
    static func hasFinder(_ q: QRCode, x: Int, y: Int) -> Bool {
        (0..<7).allSatisfy { i in (0..<7).allSatisfy { j in
            let ring = i == 0 || i == 6 || j == 0 || j == 6
            let centre = (2...4).contains(i) && (2...4).contains(j)
            return q.modules[y + i][x + j] == (ring || centre)
        } }
    }

    @Test func thePairingAddressIsASmallCodeThatFitsA24RowTerminal() throws {
        let q = try QRCode("HTTP://192.168.100.200:4797/P/ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        #expect(q.size == 29, "version 3 (29 modules): \(q.size)")
        #expect(Self.hasFinder(q, x: 0, y: 0) && Self.hasFinder(q, x: q.size - 7, y: 0) && Self.hasFinder(q, x: 0, y: q.size - 7))
        #expect(!Self.hasFinder(q, x: q.size - 7, y: q.size - 7))
        let lines = q.lines()
        #expect(lines.count == 19 && lines.allSatisfy { $0.count == 37 }, "\(lines.count) lines of \(lines.map(\.count))")
        // The quiet zone is light: the first two lines are full blocks.
        #expect(lines[0] == String(repeating: "█", count: 37) && lines[1] == String(repeating: "█", count: 37))
        // The third line holds module rows 0 and 1: the finder's top edge (dark), then its ring
        // (dark at its left edge, light inside): a space (no ink) then a lower half of ink.
        let row = Array(lines[2])
        #expect(row[0..<4].allSatisfy { $0 == "█" } && row[4] == " " && row[5] == "▄", "\(lines[2])")
    }

    /// What a phone's camera reads: the code, as the half blocks draw it (light ink on a dark
    /// terminal), scaled up into an image and read back by zbar, is the address itself.
    @Test func theCodeAsDrawnReadsBackAsTheAddress() throws {
        let address = "HTTP://192.168.100.200:4797/P/ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        let lines = try QRCode(address).lines(quiet: 2)
        // Each character cell: its upper and lower half, light where there is ink.
        var rows: [[Bool]] = []
        for line in lines {
            let chars = Array(line)
            rows.append(chars.map { $0 == "█" || $0 == "▀" })
            rows.append(chars.map { $0 == "█" || $0 == "▄" })
        }
        let scale = 6, margin = 4   // the image's own margin, light, as a screen's surroundings
        let width = (rows[0].count + 2 * margin) * scale, height = (rows.count + 2 * margin) * scale
        var pbm = "P1\n\(width) \(height)\n"
        for y in 0..<height {
            let r = y / scale - margin
            pbm += (0..<width).map { x -> String in
                let c = x / scale - margin
                let light = r < 0 || r >= rows.count || c < 0 || c >= rows[0].count || rows[r][c]
                return light ? "0" : "1"   // PBM: 1 is black
            }.joined(separator: " ") + "\n"
        }
        let dir = ScratchDirectory("qr")
        try pbm.write(toFile: dir.file("code.pbm"), atomically: true, encoding: .ascii)
        let read = try run("/usr/bin/zbarimg", ["--raw", "-q", dir.file("code.pbm")])
        #expect(read.status == 0 && read.stdout == address + "\n", "\(read)")
    }

    @Test func halfBlocksDrawTwoRowsACell() {
        let q = QRCode(modules: [[true, false], [false, true]])
        // Dark is a space (no ink), light is ink: top dark + bottom light is "▄", top light + bottom dark is "▀".
        #expect(q.lines(quiet: 0) == ["▄▀"])
    }
}

@Suite struct RemoteDevicesTests {
    @Test func pairListRevokeAndReadBack() throws {
        let dir = ScratchDirectory("remote-devices")
        let path = dir.file("state/remote-devices.json")
        var devices = try RemoteDevices(path: path)
        #expect(devices.devices.isEmpty)
        let a = try devices.pair(kind: "iPhone")
        let b = try devices.pair(kind: "iPhone")
        #expect(a.name == "iPhone 1" && b.name == "iPhone 2" && a.cookie != b.cookie && a.cookie.count == 52)
        let read = try RemoteDevices(path: path)
        #expect(read.device(cookie: a.cookie)?.name == "iPhone 1" && read.device(cookie: b.cookie)?.name == "iPhone 2")
        #expect(read.device(cookie: "nope") == nil)
        // The cookie itself is not in the file, its SHA-256 is.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains(a.cookie) && text.contains("\"practice-remote-devices\""), "\(text)")
        var edit = read
        #expect(try edit.revoke("IPHONE 1") == ["iPhone 1"])
        #expect(try RemoteDevices(path: path).device(cookie: a.cookie) == nil)
        #expect { try edit.revoke("Pixel") } throws: { ($0 as? PracticeError)?.exitCode == 64 }
        #expect(try edit.revoke("all") == ["iPhone 2"])
    }

    @Test func aFileThatIsNotOursIsRefusedAndKept() throws {
        let dir = ScratchDirectory("remote-devices-bad")
        let path = dir.file("remote-devices.json")
        try "{\"format\":\"something else\"}".write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try RemoteDevices(path: path) } throws: { ($0 as? PracticeError)?.exitCode == 65 }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"format\":\"something else\"}")
    }

    @Test func kindsFromUserAgents() {
        #expect(RemoteDevices.kind(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148") == "iPhone")
        #expect(RemoteDevices.kind(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36") == "Android phone")
        #expect(RemoteDevices.kind(userAgent: "Mozilla/5.0 (Linux; Android 13; SM-X700) Safari/537.36") == "Android tablet")
        #expect(RemoteDevices.kind(userAgent: "curl/7.88") == "Browser")
    }
}
