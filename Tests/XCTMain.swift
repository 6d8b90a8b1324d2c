// SPDX-License-Identifier: GPL-3.0-or-later
// The test bundle's entry point (SwiftPM takes `Tests/XCTMain.swift` as it is). Every suite is
// Swift Testing's, so the bundle needs no list of XCTest cases, which SwiftPM would otherwise
// generate on Linux from an index of every module written during the build. Without that list the
// build needs no index: `make build`, `make test` and `make check-threads` build with
// `--disable-index-store` (289 → 240 CPU seconds for the suites' build; README, "Tests").
//
// `Tests/run.sh` runs the bundle with `--testing-library swift-testing`, and so does
// `swift test --enable-swift-testing --disable-xctest`; plain `swift test` asks it for XCTest's
// cases, and is told how to run the suites instead.
import Foundation
import Testing

@main struct Runner {
    static func main() async {
        let arguments = CommandLine.arguments
        if let i = arguments.firstIndex(of: "--testing-library"), i + 1 < arguments.count, arguments[i + 1] == "swift-testing" {
            await Testing.__swiftPMEntryPoint() as Never
        }
        // Asked for XCTest's cases (`swift test` lists them first): there are none.
        if arguments.contains("--dump-tests-json") {
            print(#"{"tests":[],"name":"All tests"}"#)
            return
        }
        // Asked to run them: plain `swift test` does not ask this bundle for Swift Testing's suites.
        FileHandle.standardError.write(Data("practicePackageTests: the suites are Swift Testing's: run them with `swift test --enable-swift-testing --disable-xctest` or `make test`\n".utf8))
        exit(64)
    }
}
