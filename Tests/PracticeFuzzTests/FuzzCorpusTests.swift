// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeFuzzTargets
import Testing

/// The fuzz targets run on their seed corpora and on every input that once broke a parser
/// (Tests/Fuzz/crashes/TARGET/, kept as regression tests), under the normal build: nothing
/// crashes, every promise the targets check holds, and each target's seeds include inputs its
/// parser reads (so the fuzzer starts from real documents, not only from rejections).
@Suite struct FuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    func files(_ folder: String, _ target: String) -> [URL] {
        let dir = Self.fuzz.appendingPathComponent(folder).appendingPathComponent(target)
        return ((try? FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)) ?? []).sorted { $0.path < $1.path }
    }

    @Test func everyTargetHasSeedsItReads() throws {
        let corpus = Self.fuzz.appendingPathComponent("corpus")
        let folders = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted()
        #expect(folders == FuzzTargets.all.keys.sorted(), "a seed folder per target, and no other")
        for (name, target) in FuzzTargets.all.sorted(by: { $0.key < $1.key }) {
            let seeds = files("corpus", name)
            #expect(seeds.count >= 2, "\(name)")
            let read = try seeds.filter { target(Array(try Data(contentsOf: $0))) }
            #expect(!read.isEmpty, "\(name): none of its seeds is read")
        }
    }

    @Test func inputsThatOnceBrokeAParserNoLongerDo() throws {
        var replayed = 0
        for (name, target) in FuzzTargets.all {
            for file in files("crashes", name) {
                _ = target(Array(try Data(contentsOf: file)))
                replayed += 1
            }
        }
        let crashes = Self.fuzz.appendingPathComponent("crashes").path
        let folders = try FileManager.default.contentsOfDirectory(atPath: crashes)
        #expect(Set(folders).isSubset(of: FuzzTargets.all.keys), "crash folders name targets: \(folders)")
        let kept = try folders.map { try FileManager.default.contentsOfDirectory(atPath: "\(crashes)/\($0)").count }.reduce(0, +)
        #expect(replayed == kept, "every input kept was replayed")
        #expect(replayed > 0)
        print("replayed \(replayed) inputs that once broke a parser")
    }
}
