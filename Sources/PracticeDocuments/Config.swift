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
    /// One line each for settings this version does not know (`… unknown setting 'x.y' (ignored)`).
    public var warnings: [String] = []

    public init() {}

    /// The file's place: `$XDG_CONFIG_HOME/practice/config.toml`.
    public static var path: String { XDG.config.appendingPathComponent("config.toml").path }

    /// The settings in `json` (the TOML document turned into JSON), read from `file`.
    public init(json: JSONValue, file: String) throws(PracticeError) {
        guard let root = json.object else { throw PracticeError(.config, "\(file): not a table of settings") }
        func fail(_ key: String, _ what: String, _ got: JSONValue) -> PracticeError {
            PracticeError(.config, "\(file): '\(key.terminalSafe)' must be \(what) (got \(got.kindName))")
        }
        for (section, value) in root.sorted(by: { $0.key < $1.key }) {
            guard section == "desktop" else { warnings.append("\(file): unknown setting '\(section.terminalSafe)' (ignored)"); continue }
            guard let table = value.object else { throw fail(section, "a table ([\(section)])", value) }
            for (key, value) in table.sorted(by: { $0.key < $1.key }) {
                let name = "\(section).\(key)"
                switch key {
                case "notifications":
                    guard let b = value.bool else { throw fail(name, "true or false", value) }
                    notifications = b
                case "mpris":
                    guard let b = value.bool else { throw fail(name, "true or false", value) }
                    mpris = b
                default:
                    warnings.append("\(file): unknown setting '\(name.terminalSafe)' (ignored)")
                }
            }
        }
    }
}
