// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeDocuments
import PracticeTestSupport

/// The checksums sidecars keep (a track's file and decoded audio) are SHA-256 as every other tool
/// computes it, whether fed at once or in pieces of any size.
@Suite struct SHA256Tests {
    @Test func theStandardsVectors() {
        #expect(SHA256.hash(data: Data()).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        // Every byte as C's `%02x` writes it, in order.
        let all = (0...255).map { UInt8($0) }
        #expect(all.hex == all.map { cFormat("%02x", $0) }.joined())
        #expect([UInt8]().hex == "")
        #expect(SHA256.hash(data: Data("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash(data: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)).hex
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func aFileInPiecesIsSha256sums() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Samples/demo.flac").standardized.path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var h = SHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 4_096, 100_000] where offset < bytes.count {
            let end = min(offset + size, bytes.count)
            bytes[offset..<end].withUnsafeBytes { h.update(bufferPointer: $0) }
            offset = end
        }
        bytes[offset...].withUnsafeBytes { h.update(bufferPointer: $0) }
        let printed = try run("/usr/bin/sha256sum", [path]).stdout
        #expect(h.finalize().hex == String(printed.prefix(64)))
        #expect(SHA256.hash(data: bytes).hex == String(printed.prefix(64)))
    }
}
