// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeFuzzTargets
import XCTest

/// The fuzz targets run on their seed corpora and on every input that once broke a parser
/// (Tests/Fuzz/crashes/TARGET/, kept as regression tests), under the normal build: nothing
/// crashes, every promise the targets check holds, and each target's seeds include inputs its
/// parser reads (so the fuzzer starts from real documents, not only from rejections).
final class FuzzCorpusTests: XCTestCase {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    func files(_ folder: String, _ target: String) -> [URL] {
        let dir = Self.fuzz.appendingPathComponent(folder).appendingPathComponent(target)
        return ((try? FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? []).sorted { $0.path < $1.path }
    }

    func testEveryTargetHasSeedsItReads() throws {
        let corpus = Self.fuzz.appendingPathComponent("corpus")
        let folders = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
        XCTAssertEqual(folders, FuzzTargets.all.keys.sorted(), "a seed folder per target, and no other")
        for (name, target) in FuzzTargets.all.sorted(by: { $0.key < $1.key }) {
            let seeds = files("corpus", name)
            XCTAssertGreaterThanOrEqual(seeds.count, 2, name)
            let read = try seeds.filter { target(Array(try Data(contentsOf: $0))) }
            XCTAssertFalse(read.isEmpty, "\(name): none of its seeds is read")
        }
    }

    func testInputsThatOnceBrokeAParserNoLongerDo() throws {
        var replayed = 0
        for (name, target) in FuzzTargets.all {
            for file in files("crashes", name) {
                _ = target(Array(try Data(contentsOf: file)))
                replayed += 1
            }
        }
        let crashes = Self.fuzz.appendingPathComponent("crashes").path
        let folders = try FileManager.default.contentsOfDirectory(atPath: crashes)
        XCTAssertTrue(Set(folders).isSubset(of: FuzzTargets.all.keys), "crash folders name targets: \(folders)")
        let kept = try folders.map { try FileManager.default.contentsOfDirectory(atPath: "\(crashes)/\($0)").count }.reduce(0, +)
        XCTAssertEqual(replayed, kept, "every input kept was replayed")
        XCTAssertGreaterThan(replayed, 0)
        print("replayed \(replayed) inputs that once broke a parser")
    }
}
