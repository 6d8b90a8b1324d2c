// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// `practice library scan/list/search` and `practice pick` on the generated library (see
/// PracticeLibraryTests/make-library.py): exact output and exit codes, text from tags and file
/// names never raw, a missing folder or a deleted file a one-line error.
@Suite struct LibraryCommandTests {
    let dir = ScratchDirectory("library-cli")
    var env: [String: String] { ["XDG_CACHE_HOME": dir.file("cache"), "XDG_CONFIG_HOME": dir.file("config"), "XDG_STATE_HOME": dir.file("state"),
                                 "XDG_DATA_HOME": dir.file("data"), "HOME": dir.path] }

    func practice(_ args: [String]) throws -> ProcessResult { try run(practiceBinary, args, environment: env, currentDirectory: dir.path) }

    func generate() throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PracticeLibraryTests/make-library.py").path
        let r = try run("/usr/bin/python3", [script, dir.file("music")])
        try #require(r.status == 0, "\(r.stderr)")
        return dir.file("music")
    }

    @Test func scanListSearchAndPick() throws {
        let music = try generate()
        var r = try practice(["library", "scan", "music"])
        #expect(r.status == 0 && r.stdout == "340 tracks: 340 new\n", "\(r)")
        #expect(r.stderr == """
            practice: added \(music) to the library (\(dir.file("config/practice/config.toml")))
            practice: warning: \(music)/Broken/garbage.flac: TagLib cannot read its tags

            """, "\(r)")
        #expect(try String(contentsOfFile: dir.file("config/practice/config.toml"), encoding: .utf8)
                == "[library]\n# The music folders 'practice library' scans.\nfolders = [\"~/music\"]\n")

        // The remembered folder, looked at again: nothing changed.
        r = try practice(["library", "scan"])
        #expect(r.status == 0 && r.stdout == "340 tracks: nothing changed\n" && r.stderr.isEmpty, "\(r)")

        r = try practice(["library", "list"])
        #expect(r.status == 0 && r.stdout.split(separator: "\n").count == 341, "a heading and 340 tracks")
        #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\u{7}") && !r.stdout.contains("\r") && !r.stdout.contains("\u{9B}"), "nothing raw")
        #expect(r.stdout.contains("  \\u{1b}]0;pwned\\u{7}Title  "), "\(r.stdout.split(separator: "\n").filter { $0.contains("pwned") })")
        #expect(r.stdout.contains("/Oddities/Odd Names/line\\u{a}break.mp3\n"))

        r = try practice(["library", "search", "pirouette"])
        let width = "\(music)/The Blue Notes/Midnight Swing/01 Electric Horizon.flac".count
        func padded(_ s: String) -> String { s + String(repeating: " ", count: width - s.count) }
        #expect(r.status == 0 && r.stdout == """
            \(padded("FILE"))  TIME      IN      WHAT
            \(padded("\(music)/Orquesta del Sol/Salsa Caliente/03 Paper Horizon.ogg"))  0:00.150  marker  pirouette
            \(music)/The Blue Notes/Midnight Swing/01 Electric Horizon.flac  0:00.200  marker  pirouette — spot the mirror on the turn

            """, "\(r.stdout)")
        r = try practice(["library", "search", "--json", "pirouette"])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let found = (json["hits"] as! [[String: Any]]).map { "\(($0["path"] as! String).split(separator: "/").last!) \($0["kind"]!) \($0["time"]!)" }.sorted()
        #expect(r.status == 0 && found.count == 2 && found.allSatisfy { $0.contains(" marker 0.") }, "\(found)")

        r = try practice(["library", "search", "zzzzz"])
        #expect(r.status == 1 && r.stdout.isEmpty && r.stderr == "practice: nothing in the library matches 'zzzzz'\n", "\(r)")

        // Today's pick: a track with markers or loops (none was practised), the same twice.
        r = try practice(["pick", "--json"])
        let pick = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(r.status == 0 && (pick["reason"] as! String).hasSuffix("not practised yet"), "\(r)")
        #expect(try practice(["pick", "--json"]).stdout == r.stdout)
        let firstPick = r.stdout
        let sidecars = ["01 Electric Horizon.flac", "03 Paper Horizon.ogg", "02 Crimson Echo.ogg", "04 Burning Harbor.opus", "05 Quiet Harbor.mp3", "01 夜の踊り.opus"]
        #expect(sidecars.contains(String((pick["path"] as! String).split(separator: "/").last!)), "\(pick)")
        // Practised now (a session in the journal): still today's pick, the same all day.
        let played = try practice([pick["path"] as! String, "--device", "null", "--no-tui"])
        #expect(played.status == 0, "\(played)")
        r = try practice(["pick", "--json", "--no-scan"])
        let next = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(next["path"] as? String == pick["path"] as? String && (next["reason"] as? String)?.hasSuffix("last practised today") == true, "\(next)")
        try FileManager.default.removeItem(atPath: dir.file("data/practice/journal.sqlite"))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir.file("data/practice/journal.sqlite" + suffix)) }
        #expect(try practice(["pick", "--json", "--no-scan"]).stdout == firstPick, "without the journal, the first pick as it was")

        // The picked file deleted before it is opened: one line naming it, nothing played.
        try FileManager.default.removeItem(atPath: pick["path"] as! String)
        r = try practice(["pick", "--play", "--no-scan", "--device", "null"])
        #expect(r.status == 66 && r.stderr.hasPrefix("practice: \(pick["path"] as! String): "), "\(r)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        r = try practice(["library", "scan"])
        #expect(r.stdout == "339 tracks: 1 gone\n", "\(r)")
    }

    /// On a terminal (a pty from `script`), `scan` draws a progress bar on stderr and clears it.
    @Test func aProgressBarOnATerminal() throws {
        let music = try generate()
        let command = "\(practiceBinary) library scan \(music) 2>&1"
        let r = try run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: env.merging(["COLUMNS": "80", "LINES": "24"]) { $1 },
                        currentDirectory: dir.path)
        #expect(r.status == 0, "\(r)")
        let frames = r.stdout.components(separatedBy: "\r").filter { $0.hasPrefix("scanning ") }
        #expect(frames.count >= 10, "\(frames.count) frames")
        #expect(frames.contains { $0.hasPrefix("scanning 170/340 [") && $0.contains(" 50%") }, "\(frames.prefix(3))")
        #expect(r.stdout.hasSuffix("100%\u{1B}[K\r\u{1B}[Kpractice: warning: \(music)/Broken/garbage.flac: TagLib cannot read its tags\r\n340 tracks: 340 new\r\n"),
                "the bar full, then cleared before the warning and the summary: \(r.stdout.suffix(200).debugDescription)")
    }

    /// TagLib is read through libpractice-taglib.so, opened when a scan first reads tags: beside
    /// the program (the build folder), else in ../lib/practice (installed). Without it, a scan
    /// says so in one line (exit 69) and indexes nothing; the other commands never need it.
    @Test func theTagLibShimIsFoundBesideTheProgramOrInstalledAndItsAbsenceSaid() throws {
        let bin = dir.file("prefix/bin"), lib = dir.file("prefix/lib/practice")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("music"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: practiceBinary, toPath: bin + "/practice")
        try FileManager.default.copyItem(atPath: LicenceTests.root + "/Samples/demo.flac", toPath: dir.file("music/demo.flac"))
        func alone(_ args: [String]) throws -> ProcessResult { try run(bin + "/practice", args, environment: env, currentDirectory: dir.path) }

        // The folder asked for is remembered; its tracks wait for a scan that can read them.
        var r = try alone(["library", "scan", "music", "-q"])
        #expect(r.status == 69 && r.stdout.isEmpty && r.stderr == """
            practice: added \(dir.file("music")) to the library (\(dir.file("config/practice/config.toml")))
            practice: cannot read tags: libpractice-taglib.so is in neither \(bin) nor \(lib) (install practice again: 'make install')

            """, "\(r)")
        r = try alone(["library", "list", "--no-scan", "--json"])
        #expect(r.status == 0 && !r.stdout.contains("demo.flac"), "nothing indexed: \(r)")
        // A command that reads no tags does not look for it.
        r = try alone(["info", "music/demo.flac"])
        #expect(r.status == 0 && r.stdout.contains("Title:        Practice Demo\n"), "\(r)")

        // Where `make install` puts it.
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let shim = URL(fileURLWithPath: practiceBinary).deletingLastPathComponent().appendingPathComponent("libpractice-taglib.so").path
        try FileManager.default.copyItem(atPath: shim, toPath: lib + "/libpractice-taglib.so")
        r = try alone(["library", "scan", "music", "-q"])
        #expect(r.status == 0 && r.stdout == "1 track: 1 new\n" && r.stderr.isEmpty, "\(r)")
        r = try alone(["library", "search", "--no-scan", "--json", "practice", "demo"])
        let hits = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let hit = (hits?["hits"] as? [[String: Any]])?.first
        #expect(hit?["artist"] as? String == "practice" && hit?["title"] as? String == "Practice Demo", "the tags TagLib read: \(r.stdout)")
    }

    @Test func badFoldersAndConfigurations() throws {
        var r = try practice(["library", "scan", "nowhere"])
        #expect(r.status == 66 && r.stderr == "practice: \(dir.file("nowhere")): no such folder\n" && r.stdout.isEmpty, "\(r)")
        try "x".write(toFile: dir.file("file.txt"), atomically: true, encoding: .utf8)
        r = try practice(["library", "scan", "file.txt"])
        #expect(r.status == 66 && r.stderr == "practice: \(dir.file("file.txt")): not a folder\n", "\(r)")
        // A settings file that is not TOML is never written over.
        try FileManager.default.createDirectory(atPath: dir.file("config/practice"), withIntermediateDirectories: true)
        try "[library\nfolders = 1\n".write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.file("music"), withIntermediateDirectories: true)
        r = try practice(["library", "scan", "music"])
        #expect(r.status == 78 && r.stderr.hasPrefix("practice: \(dir.file("config/practice/config.toml")):1:9: not TOML"), "\(r)")
        #expect(try String(contentsOfFile: dir.file("config/practice/config.toml"), encoding: .utf8) == "[library\nfolders = 1\n")
        try "[library]\nfolders = \"~/music\"\n".write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        r = try practice(["library", "list"])
        #expect(r.status == 78 && r.stderr == "practice: \(dir.file("config/practice/config.toml")): 'library.folders' must be a list of folders (got a string)\n", "\(r)")
        // A list over several lines with comments in it: the new folder goes before its bracket.
        let multiline = "[library]\nfolders = [\n  \"/srv/music\",  # the NAS\n]  # end\n"
        try multiline.write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        r = try practice(["library", "scan", "music"])
        #expect(r.status == 0, "\(r)")
        #expect(try String(contentsOfFile: dir.file("config/practice/config.toml"), encoding: .utf8)
                == "[library]\nfolders = [\n  \"/srv/music\",  # the NAS\n \"~/music\"]  # end\n")
        // Comments and other settings are kept when a folder is added.
        let mine = "# mine\n[desktop]\nmpris = false  # no media keys\n\n[library]\nfolders = [\"/srv/music\"]  # the NAS\n"
        try mine.write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        r = try practice(["library", "scan", "music"])
        #expect(r.status == 0, "\(r)")
        #expect(try String(contentsOfFile: dir.file("config/practice/config.toml"), encoding: .utf8)
                == mine.replacingOccurrences(of: "[\"/srv/music\"]", with: "[\"/srv/music\", \"~/music\"]"))
        // A [library] table without folders: they go on the line after its header.
        let header = "[library]  # mine\nother = 1\n\n[desktop]\nmpris = true\n"
        try header.write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        r = try practice(["library", "scan", "music"])
        #expect(r.status == 0, "\(r)")
        #expect(try String(contentsOfFile: dir.file("config/practice/config.toml"), encoding: .utf8)
                == "[library]  # mine\nfolders = [\"~/music\"]\nother = 1\n\n[desktop]\nmpris = true\n")
        // A settings file linked from a dotfiles folder: written there, the link kept. The music
        // folder the library showed by default goes into a list made for the first time.
        let dotfiles = dir.file("dotfiles/practice.toml")
        try FileManager.default.createDirectory(atPath: dir.file("dotfiles"), withIntermediateDirectories: true)
        try "# shared between my machines\n".write(toFile: dotfiles, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: dir.file("config/practice/config.toml"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("config/practice/config.toml"), withDestinationPath: dotfiles)
        try FileManager.default.createDirectory(atPath: dir.file("Music"), withIntermediateDirectories: true)
        r = try practice(["library", "scan", "music"])
        #expect(r.status == 0, "\(r)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("config/practice/config.toml")) == dotfiles)
        #expect(try String(contentsOfFile: dotfiles, encoding: .utf8)
                == "# shared between my machines\n\n[library]\n# The music folders 'practice library' scans.\nfolders = [\"~/Music\", \"~/music\"]\n")
    }
}
