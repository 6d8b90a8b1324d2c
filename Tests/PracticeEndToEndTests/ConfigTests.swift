// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeTestSupport
import Testing

/// `$XDG_CONFIG_HOME/practice/config.toml`, read by the built binary: what it says is obeyed (see
/// MPRISTests for the notification and MPRIS switches), a setting this version does not know is a
/// warning, and a file that is not TOML or a setting of the wrong kind is one line naming the
/// file, with EX_CONFIG (78) and nothing played.
@Suite struct ConfigTests {
    let fx = Fixtures.shared
    let dir = ScratchDirectory("practice-config")

    /// Plays a tenth of a second with `text` as the configuration file.
    func play(withConfig text: String) throws -> ProcessResult {
        try FileManager.default.createDirectory(atPath: dir.file("practice"), withIntermediateDirectories: true)
        try text.write(toFile: dir.file("practice/config.toml"), atomically: true, encoding: .utf8)
        return try run(practiceBinary, [fx.dir.file("tone.wav"), "--device", "null", "--no-tui", "--to", "0.1"],
                       environment: ["XDG_CONFIG_HOME": dir.path])
    }

    @Test(arguments: [
        ("[desktop]\nnotifications = \"no\"\n", "'desktop.notifications' must be true or false (got a string)"),
        ("desktop = 1\n", "'desktop' must be a table ([desktop]) (got a number)"),
        ("[journal]\nrecord = \"no\"\n", "'journal.record' must be true or false (got a string)"),
        ("[sound]\nquality = \"best\"\n", "'sound.quality' must be \"fast\" or \"high\" (got a string)"),
        ("[desktop\nmpris = true\n", ":1:9: not TOML (Error while parsing table header: expected ']', saw '\\n')"),
        ("[desktop]\nmpris = true\nmpris = false\n", ":3:9: not TOML (Error while parsing key-value pair: cannot redefine existing boolean 'mpris')"),
        ("[desktop]\nnotifications = no   # off\n", ":2: 'no' is not a TOML value (true, false, a number, or \"text\" in quotes)"),
    ])
    func aWrongFileIsOneLineAndExit78(text: String, message: String) throws {
        let r = try play(withConfig: text)
        let file = dir.file("practice/config.toml")
        let expected = message.hasPrefix(":") ? "practice: \(file)\(message)\n" : "practice: \(file): \(message)\n"
        #expect(r.status == 78 && r.stderr == expected && r.stdout.isEmpty, "\(r)")
        // One rule for every command: those that read no setting refuse the file too.
        for args in [["info", fx.dir.file("tone.wav")], ["journal"], ["markers", fx.dir.file("tone.wav")]] {
            let other = try run(practiceBinary, args, environment: ["XDG_CONFIG_HOME": dir.path], currentDirectory: dir.path)
            #expect(other.status == 78 && other.stderr == expected && other.stdout.isEmpty, "\(args): \(other)")
        }
    }

    @Test func unknownSettingsAreWarningsAndShownSafely() throws {
        let r = try play(withConfig: "[desktop]\nnotifcations = false\n\"\\u001b]0;pwned\\u0007\" = 1\n[sharing]\nenabled = true\n")
        let file = dir.file("practice/config.toml")
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == """
            practice: warning: \(file): unknown setting 'desktop.\\u{1b}]0;pwned\\u{7}' (ignored)
            practice: warning: \(file): unknown setting 'desktop.notifcations' (ignored)
            practice: warning: \(file): unknown setting 'sharing' (ignored)

            """, "\(r)")
    }

    /// `[sound] quality = "fast"` renders as `--quality fast` does, byte for byte (a render's own
    /// default is high), and `--quality high` on the command line wins over it.
    @Test func theSoundsQualityIsTheStretchersDefault() throws {
        _ = try play(withConfig: "[sound]\nquality = \"fast\"\n")
        func render(_ name: String, _ extra: [String], config: Bool) throws -> Data {
            let r = try run(practiceBinary, ["render", fx.dir.file("tone.wav"), "-o", dir.file(name), "--rate", "0.8", "--to", "2", "--force"] + extra,
                            environment: ["XDG_CONFIG_HOME": config ? dir.path : dir.file("none")])
            #expect(r.status == 0, "\(r)")
            return try Data(contentsOf: URL(fileURLWithPath: dir.file(name)))
        }
        let configured = try render("configured.wav", [], config: true)
        #expect(configured == (try render("fast.wav", ["--quality", "fast"], config: false)))
        let high = try render("high.wav", ["--quality", "high"], config: true)
        #expect(high == (try render("default.wav", [], config: false)))
        #expect(high != configured)
    }

    @Test func aValidFileIsQuiet() throws {
        let r = try play(withConfig: "# practice\n[desktop]\nnotifications = false\nmpris = true   # media keys\n")
        #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r)")
    }

    @Test func aMissingFileIsTheDefaultsAndAFolderIsAnError() throws {
        try FileManager.default.createDirectory(atPath: dir.file("empty/practice"), withIntermediateDirectories: true)
        let missing = try run(practiceBinary, [fx.dir.file("tone.wav"), "--device", "null", "--no-tui", "--to", "0.1"],
                              environment: ["XDG_CONFIG_HOME": dir.file("empty")])
        #expect(missing.status == 0 && missing.stderr.isEmpty, "\(missing)")
        try FileManager.default.createDirectory(atPath: dir.file("folder/practice/config.toml"), withIntermediateDirectories: true)
        let folder = try run(practiceBinary, [fx.dir.file("tone.wav"), "--device", "null", "--no-tui", "--to", "0.1"],
                             environment: ["XDG_CONFIG_HOME": dir.file("folder")])
        #expect(folder.status == 78 && folder.stderr == "practice: \(dir.file("folder/practice/config.toml")): is a directory, not a configuration file\n", "\(folder)")
    }

    /// Where the file is looked for, as the XDG base directories say: `$XDG_CONFIG_HOME`, slashes
    /// at its end or not, else `.config` in the home folder when it is empty or relative. The
    /// file there is not TOML, so the error names the file that was read.
    @Test func theFileIsWhereTheXDGVariablesSay() throws {
        let home = dir.file("home")
        for (environment, folder) in [
            (["XDG_CONFIG_HOME": dir.file("xdg") + "//"], dir.file("xdg")),
            (["XDG_CONFIG_HOME": "", "HOME": home + "/"], home + "/.config"),
            (["XDG_CONFIG_HOME": "relative/path", "HOME": home], home + "/.config"),
        ] {
            try FileManager.default.createDirectory(atPath: folder + "/practice", withIntermediateDirectories: true)
            try "[desktop\nmpris = true\n".write(toFile: folder + "/practice/config.toml", atomically: true, encoding: .utf8)
            let r = try run(practiceBinary, ["info", fx.dir.file("tone.wav")], environment: environment)
            let expected = "practice: \(folder)/practice/config.toml:1:9: not TOML (Error while parsing table header: expected ']', saw '\\n')\n"
            #expect(r.status == 78 && r.stderr == expected && r.stdout.isEmpty, "\(environment): \(r)")
        }
    }
}
