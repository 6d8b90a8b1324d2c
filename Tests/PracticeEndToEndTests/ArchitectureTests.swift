// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The module map the README draws, held to the sources: each C library imported by exactly one
/// module (the one whose job it serves) and only with `internal import`, and the system module on
/// Glibc alone.
@Suite struct ArchitectureTests {
    static let root = LicenceTests.root

    /// Every `import X` line of every Swift file under `Sources/MODULE`, as (module, file, line).
    static func imports() throws -> [(module: String, file: String, line: String)] {
        var out: [(String, String, String)] = []
        let sources = root + "/Sources"
        for module in try FileManager.default.contentsOfDirectory(atPath: sources) where module.hasPrefix("Practice") || module == "practice" {
            guard let walker = FileManager.default.enumerator(atPath: sources + "/" + module) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let text = try String(contentsOfFile: sources + "/" + module + "/" + relative, encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("import ") && !line.hasPrefix("//") && !line.hasPrefix(" ") {
                    out.append((module, relative, String(line)))
                }
            }
        }
        return out
    }

    /// Where each C library belongs: the module whose job it serves.
    static let owners = [
        "CSndFile": "PracticeAudio", "CSoundTouch": "PracticeAudio", "CRubberBand": "PracticeAudio", "CALSA": "PracticeAudio", "CSoxr": "PracticeAudio",
        "CFFmpeg": "PracticeAudio", "CEspeak": "PracticeAudio",
        "CChromaprint": "PracticeEngine", "CAubio": "PracticeEngine",
        "CCurl": "PracticeSongs", "CToml": "PracticeDocuments", "CNettle": "PracticeDocuments", "CQRencode": "PracticeRemote", "CWebSockets": "PracticeRemote",
        "CTagLib": "PracticeLibrary", "CChafa": "PracticeLibrary",
        "CSystemdBus": "PracticeDesktop", "CSQLite": "PracticeJournal",
    ]

    /// C++ built into a shared object of its own (libpractice-taglib.so), which its owner's dlopen
    /// table opens (CTagLibShim: CTagLib's): no Swift module imports or links it.
    static let sharedObjects: Set<String> = ["CTagLibShim"]

    @Test func eachCLibraryIsImportedInternallyByTheOneModuleWhoseJobItServes() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Sources").filter { $0.hasPrefix("C") }.sorted()
        #expect(Set(modules) == Set(Self.owners.keys).union(Self.sharedObjects), "C modules in Sources: \(modules)")
        var wrong: [String] = []
        var seen: Set<String> = []
        for (module, file, line) in try Self.imports() {
            guard let c = line.split(separator: " ").last.map(String.init), c.hasPrefix("C") else { continue }
            if Self.sharedObjects.contains(c) { wrong.append("\(module)/\(file): \(line) (a shared object of its own, opened with dlopen)") }
            guard let owner = Self.owners[c] else { continue }
            seen.insert(c)
            if module != owner { wrong.append("\(module)/\(file): \(line) (belongs in \(owner))") }
            if !line.hasPrefix("internal import ") { wrong.append("\(module)/\(file): \(line) (not internal)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(seen == Set(Self.owners.keys), "never imported: \(Set(Self.owners.keys).subtracting(seen))")
    }

    /// The executable parses arguments and hands over to PracticeCommands: it builds no player,
    /// index or journal of its own, and stays small (under 1,500 lines).
    @Test func theExecutableOnlyParsesArguments() throws {
        let folder = Self.root + "/Sources/practice"
        var lines = 0, built: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            for made in ["Player(", "PlaySession(", "LibraryIndex(", "Journal(", "RemoteService(", "VideoWindow("] where text.contains(made) {
                built.append("\(file): \(made)")
            }
        }
        #expect(lines > 500 && lines < 1_500, "Sources/practice: \(lines) lines")
        #expect(built.isEmpty, "\(built)")
    }

    @Test func theSystemModuleStandsOnGlibcAlone() throws {
        let lines = try Self.imports().filter { $0.module == "PracticeSystem" }.map(\.line)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { ["import Glibc", "import Synchronization"].contains($0) }, "\(lines)")
    }
}
