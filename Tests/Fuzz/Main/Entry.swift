// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeFuzzTargets

// libFuzzer's entry points (built by `make fuzz` with -sanitize=fuzzer,address; libFuzzer has the
// main). The target is named by PRACTICE_FUZZ_TARGET (see FuzzTargets.all).
nonisolated(unsafe) var target: FuzzTargets.Target?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let name = getenv("PRACTICE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let t = FuzzTargets.all[name] else {
        let message = "PRACTICE_FUZZ_TARGET must be one of: \(FuzzTargets.all.keys.sorted().joined(separator: " "))\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(64)
    }
    target = t
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = target?(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
