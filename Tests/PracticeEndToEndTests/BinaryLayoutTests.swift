// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeTestSupport
import Testing

/// The release binary `make release` builds (and `make test` runs): its code laid out as
/// Sources/practice/startup.order asks, so that what the commonest commands run is together at
/// the start of the code instead of scattered over 14 MB (bench/memory, README "Memory").
@Suite(.enabled(if: ProcessInfo.processInfo.environment["PRACTICE_BINARY"] != nil, "the release build only"))
struct BinaryLayoutTests {
    @Test func theFunctionsEveryCommandRunsLieTogetherAtTheStartOfTheCode() throws {
        let order = try String(contentsOfFile: LicenceTests.root + "/Sources/practice/startup.order", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        // Every function symbol with its address and size (`nm -S`: "ADDRESS SIZE t NAME").
        let listing = try run("/usr/bin/nm", ["-S", "--defined-only", practiceBinary])
        #expect(listing.status == 0, "\(listing.stderr)")
        var address: [String: (start: Int, size: Int)] = [:]
        var lowest = Int.max
        for line in listing.stdout.split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count == 4, ["t", "T", "w", "W"].contains(f[2]), let a = Int(f[0], radix: 16), let s = Int(f[1], radix: 16) else { continue }
            address[String(f[3])] = (a, s)
            lowest = min(lowest, a)
        }
        // The first 500 listed that the binary still has (a list made before a change may name
        // some it no longer has): the functions all seven profiled commands run.
        let placed = order.compactMap { address[$0] }.prefix(500)
        try #require(placed.count == 500, "\(placed.count) of the listed functions found in \(practiceBinary)")
        let size = placed.reduce(0) { $0 + $1.size }
        let end = placed.map { $0.start + $0.size }.max()!
        // Laid out in order they take a few hundred kilobytes from the start of the code (with
        // the helpers each copy of a module brings); scattered, they would span megabytes.
        #expect(end - lowest < 1 << 20, "the first 500 listed functions (\(size) bytes) end \(end - lowest) bytes into the code")
    }

    /// The functions swiftc gives no symbol (closures' context destructors), which the order
    /// cannot name, in one section of their own just before the rest of the code
    /// (Sources/practice/startup.ld), not each with its object file among the code no command runs.
    @Test func theFunctionsWithoutANameLieTogetherBeforeTheCode() throws {
        // "[Nr] Name Type Address Off Size ES Flg ...", one line per section.
        let listing = try run("/usr/bin/readelf", ["-S", "-W", practiceBinary])
        #expect(listing.status == 0, "\(listing.stderr)")
        var sections: [String: (address: Int, size: Int, flags: String)] = [:]
        for line in listing.stdout.split(separator: "\n") {
            guard let close = line.firstIndex(of: "]") else { continue }
            let f = line[line.index(after: close)...].split(separator: " ")
            guard f.count >= 7, let a = Int(f[2], radix: 16), let s = Int(f[4], radix: 16) else { continue }
            sections[String(f[0])] = (a, s, String(f[6]))
        }
        let unnamed = try #require(sections[".text.unnamed"], "no .text.unnamed section in \(practiceBinary)")
        let text = try #require(sections[".text"])
        #expect(unnamed.flags.contains("X"), "its flags: \(unnamed.flags)")
        // 61 kB on 2026-12-05 with SwiftNIO, 24 kB without it.
        #expect((12 << 10)..<(256 << 10) ~= unnamed.size, "\(unnamed.size) bytes")
        #expect(unnamed.address + unnamed.size <= text.address && text.address - (unnamed.address + unnamed.size) < 64,
                "ends at \(unnamed.address + unnamed.size), the code starts at \(text.address)")
    }
}
