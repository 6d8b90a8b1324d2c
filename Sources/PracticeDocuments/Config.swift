// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// The settings in `$XDG_CONFIG_HOME/practice/config.toml` (`~/.config/practice/config.toml`):
/// a TOML file a person writes (Formats/config.md). A missing file means every default; a setting
/// this version does not know is reported as a warning and left alone, so a newer version's file
/// still works; a setting of the wrong kind is an error naming the file, the setting and what it
/// should be (sysexits 78, EX_CONFIG).
public struct Config: Sendable, Equatable {
    /// `[desktop] notifications`: the now-playing notification when a track starts.
    public var notifications = true
    /// `[desktop] mpris`: the player on the session bus, for media keys and desktop controls.
    public var mpris = true
    /// `[library] folders`: the music folders the library scans (`~/` is the home folder); nil
    /// when the file does not say (the XDG music folder then, else `~/Music`).
    public var libraryFolders: [String]?
    /// `[journal] record`: every play session recorded in the practice journal.
    public var journal = true
    /// `[remote] remote`: every `practice play` serves the web remote (as `--remote` does).
    public var remote = false
    /// `[remote] bind`: the address (`ADDR` or `ADDR:PORT`) the remote listens on (`--remote-bind`).
    public var remoteBind: String?
    /// `[sound] quality`: the stretcher, "fast" (SoundTouch) or "high" (Rubber Band R3), as
    /// `--quality` (which wins); nil: fast.
    public var quality: String?
    /// One line each for settings this version does not know (`… unknown setting 'x.y' (ignored)`).
    public var warnings: [String] = []

    public init() {}

    /// The file's place: `$XDG_CONFIG_HOME/practice/config.toml`.
    public static var path: String { Path.appending("config.toml", to: XDG.configFolder) }

    /// The settings in `json` (the TOML document turned into JSON), read from `file`.
    public init(json: JSONValue, file: String) throws(PracticeError) {
        guard let root = json.object else { throw PracticeError(.config, "\(file): not a table of settings") }
        func fail(_ key: String, _ what: String, _ got: JSONValue) -> PracticeError {
            PracticeError(.config, "\(file): '\(key.terminalSafe)' must be \(what) (got \(got.kindName))")
        }
        for (section, value) in root.sorted(by: { $0.key < $1.key }) {
            guard ["desktop", "library", "journal", "remote", "sound"].contains(section) else { warnings.append("\(file): unknown setting '\(section.terminalSafe)' (ignored)"); continue }
            guard let table = value.object else { throw fail(section, "a table ([\(section)])", value) }
            for (key, value) in table.sorted(by: { $0.key < $1.key }) {
                let name = "\(section).\(key)"
                switch (section, key) {
                case ("library", "folders"):
                    guard let list = value.array, list.allSatisfy({ $0.string?.isEmpty == false }) else { throw fail(name, "a list of folders", value) }
                    libraryFolders = list.compactMap { $0.string.map(Self.expandingHome) }
                case ("desktop", "notifications"):
                    guard let b = value.bool else { throw fail(name, "true or false", value) }
                    notifications = b
                case ("journal", "record"):
                    guard let b = value.bool else { throw fail(name, "true or false", value) }
                    journal = b
                case ("desktop", "mpris"):
                    guard let b = value.bool else { throw fail(name, "true or false", value) }
                    mpris = b
                case ("remote", "remote"):
                    guard let b = value.bool else { throw fail(name, "true or false", value) }
                    remote = b
                case ("remote", "bind"):
                    guard let a = value.string, !a.isEmpty else { throw fail(name, "an address such as \"192.168.1.20\" or \"192.168.1.20:4797\"", value) }
                    remoteBind = a
                case ("sound", "quality"):
                    guard let q = value.string, ["fast", "high"].contains(q) else { throw fail(name, "\"fast\" or \"high\"", value) }
                    quality = q
                default:
                    warnings.append("\(file): unknown setting '\(name.terminalSafe)' (ignored)")
                }
            }
        }
    }
}

extension Config {
    /// `~/Music` → `/home/ann/Music`.
    public static func expandingHome(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return XDG.home + path.dropFirst()
    }

    /// The music folder the desktop names (`XDG_MUSIC_DIR` in `~/.config/user-dirs.dirs`), else `~/Music`.
    public static var musicFolder: String {
        let file = Path.appending("user-dirs.dirs", to: XDG.folder("XDG_CONFIG_HOME", default: ".config"))
        if let data = FileManager.default.contents(atPath: file), let text = String(validating: data, as: UTF8.self) {
            for line in text.split(separator: "\n") where line.hasPrefix("XDG_MUSIC_DIR=") {
                var v = String(line.dropFirst("XDG_MUSIC_DIR=".count).drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
                if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
                if v.hasPrefix("$HOME") { v = XDG.home + v.dropFirst(5) }
                // The desktop's way of saying "no music folder" is the home folder itself.
                if v.hasPrefix("/"), v != XDG.home, v != XDG.home + "/" { return v }
            }
        }
        return XDG.home + "/Music"
    }
}
