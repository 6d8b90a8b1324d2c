// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
internal import CNettle

// Nettle is linked into the program from Debian's libnettle.a (PracticeDocuments' linker settings)
// and called directly: opened with `dlopen`, it bound 467 symbols and kept 0.28 MB resident in
// every player, whose journal looks the track's identity up.

/// SHA-256 through Nettle: a file's and its decoded audio's checksums (a sidecar's `audio`),
/// covers' and cached songs' file names. Fed in pieces (`update`), or all at once (`hash`).
public struct SHA256: Sendable {
    private var context = sha256_ctx()

    public init() { nettle_sha256_init(&context) }

    public mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        nettle_sha256_update(&context, bytes.count, base.assumingMemoryBound(to: UInt8.self))
    }

    public mutating func update(data: some DataProtocol) {
        for region in data.regions { region.withUnsafeBytes { update(bufferPointer: $0) } }
    }

    /// The digest of everything fed so far (the state starts again afterwards, as Nettle's does).
    public mutating func finalize() -> Digest {
        var bytes = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
        nettle_sha256_digest(&context, bytes.count, &bytes)
        return Digest(bytes: bytes)
    }

    public static func hash(data: some DataProtocol) -> Digest {
        var h = SHA256()
        h.update(data: data)
        return h.finalize()
    }

    /// 32 bytes.
    public struct Digest: Sendable, Equatable {
        public let bytes: [UInt8]
        /// Lower-case hexadecimal, 64 characters.
        public var hex: String { bytes.hex }
    }
}

extension Sequence where Element == UInt8 {
    /// Two lowercase hex digits a byte, written as the string's bytes (a formatted string a byte,
    /// through C's `vsnprintf`, was 1.5 M instructions of a player's launch for three digests).
    public var hex: String {
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        for b in self {
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)
