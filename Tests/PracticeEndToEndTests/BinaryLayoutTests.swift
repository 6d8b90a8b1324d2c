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
}
