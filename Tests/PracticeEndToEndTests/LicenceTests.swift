// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The project is GPL-3.0-or-later: the licence's text at the top of the repository, and every
/// file of code (Swift, C, C++, module maps, shell, Python, the Makefile) saying so in its first
/// lines, as SPDX has it; the third-party notice names every C library the module map wraps.
@Suite struct LicenceTests {
    /// The repository: two folders up from this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theLicenceIsTheGPLVersion3() throws {
        let text = try String(contentsOfFile: Self.root + "/LICENSE", encoding: .utf8)
        #expect(text.contains("GNU GENERAL PUBLIC LICENSE") && text.contains("Version 3, 29 June 2007"))
    }

    @Test func everyFileOfCodeSaysItsLicence() throws {
        var missing: [String] = []
        var seen = 0
        for top in ["Sources", "Tests", "bench", ".ci"] {
            let base = Self.root + "/" + top
            guard let walker = FileManager.default.enumerator(atPath: base) else { continue }
            for case let relative as String in walker where !relative.contains("/corpus/") && !relative.contains("/crashes/") {
                let name = (relative as NSString).lastPathComponent
                guard ["swift", "h", "c", "cpp", "modulemap", "sh", "py"].contains((name as NSString).pathExtension) || name == "run" else { continue }
                seen += 1
                let head = (try? String(contentsOfFile: base + "/" + relative, encoding: .utf8))?.split(separator: "\n", maxSplits: 3).prefix(2) ?? []
                if !head.contains(where: { $0.hasSuffix("SPDX-License-Identifier: GPL-3.0-or-later") }) { missing.append(top + "/" + relative) }
            }
        }
        for file in ["Package.swift", "Makefile"] {
            let head = try String(contentsOfFile: Self.root + "/" + file, encoding: .utf8).split(separator: "\n", maxSplits: 3).prefix(2)
            if !head.contains(where: { $0.hasSuffix("SPDX-License-Identifier: GPL-3.0-or-later") }) { missing.append(file) }
        }
        #expect(seen > 250 && missing.isEmpty, "\(seen) files; without the SPDX line: \(missing)")
    }

    /// Every C library wrapped in Sources (a `C…` module) is in the notice with its licence.
    @Test func theNoticeNamesEveryCLibrary() throws {
        let notice = try String(contentsOfFile: Self.root + "/Sources/practice/third-party.txt", encoding: .utf8)
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Sources").filter { $0.hasPrefix("C") }.sorted()
        let named = ["CALSA": "ALSA library", "CAubio": "aubio", "CChafa": "libchafa", "CChromaprint": "Chromaprint", "CCurl": "libcurl", "CEspeak": "espeak-ng",
                     "CFFmpeg": "FFmpeg", "CSndFile": "libsndfile", "CSoundTouch": "SoundTouch", "CRubberBand": "Rubber Band", "CSoxr": "soxr", "CSystemdBus": "sd-bus", "CTagLib": "TagLib", "CTagLibShim": "TagLib", "CToml": "toml++", "CNettle": "Nettle",
                     "CQRencode": "libqrencode", "CSQLite": "SQLite", "CWebSockets": "libwebsockets"]
        for module in modules {
            let library = try #require(named[module], "\(module): a C module the test does not know; add it to the notice and here")
            #expect(notice.contains(library), "\(module): \(library) is not in the notice")
        }
    }
}
