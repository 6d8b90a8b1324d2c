// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeDocuments

/// Random bytes from the kernel's CSPRNG (/dev/urandom, which on Linux is getrandom's pool).
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { fatalError("/dev/urandom: cannot open it (\(errno))") }
        defer { close(fd) }
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            if n > 0 { filled += n } else if n < 0 && errno == EINTR { continue } else { fatalError("/dev/urandom: cannot read it (\(errno))") }
        }
        return out
    }

    /// `count` random bytes in RFC 4648 base32, capitals and 2–7 without padding (a QR code's
    /// alphanumeric mode holds them, and no one confuses 0 and O, 1 and I reading one out).
    static func base32(_ count: Int) -> String { base32(of: bytes(count)) }

    static func base32(of bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var out = "", buffer = 0, bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return out
    }
}

/// Compares two strings in time that depends on their lengths only, not on where they differ.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var diff = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
        diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return diff == 0
}

/// The one-time pairing token and the limit on attempts: a token of 130 random bits (26 base32
/// characters) from the kernel, good for one pairing and for `lifetime` seconds; a new one is
/// made when it is used or has expired. At most `attemptsPerMinute` pairing requests in any 60
/// seconds, right or wrong: beyond that every attempt is refused without looking at its token
/// (a guesser gets 10 tries a minute against 2^130). Times are the caller's clock, in seconds.
public struct PairingGate: Sendable {
    public enum Outcome: Equatable, Sendable {
        case paired
        case wrongToken
        case expired
        case tooMany
    }

    public private(set) var token: String
    public private(set) var issued: Double
    public let lifetime: Double
    public let attemptsPerMinute: Int
    private var attempts: [Double] = []

    public init(now: Double, lifetime: Double = 600, attemptsPerMinute: Int = 10) {
        self.lifetime = lifetime
        self.attemptsPerMinute = attemptsPerMinute
        token = SecureRandom.base32(16)
        issued = now
    }

    /// Whether the token still works at `now`.
    public func isValid(at now: Double) -> Bool { now - issued < lifetime }

    /// A new token (the old one stops working).
    public mutating func renew(now: Double) {
        token = SecureRandom.base32(16)
        issued = now
    }

    /// The token as of `now`: renewed first if it has expired.
    public mutating func current(now: Double) -> String {
        if !isValid(at: now) { renew(now: now) }
        return token
    }

    /// One pairing attempt with `offered` at `now`. A right token is used up (a new one is made).
    public mutating func attempt(_ offered: String, now: Double) -> Outcome {
        attempts.removeAll { now - $0 >= 60 }
        guard attempts.count < attemptsPerMinute else { return .tooMany }
        attempts.append(now)
        guard constantTimeEqual(offered, token) else { return .wrongToken }
        guard isValid(at: now) else { renew(now: now); return .expired }
        renew(now: now)
        return .paired
    }
}
