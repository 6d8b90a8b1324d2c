import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeDocuments
import PracticeTUI

extension Config {
    /// The configuration file (`Config.path`) read through toml++, its warnings written to
    /// stderr; every default when there is none. A file that is not TOML, or a setting of the
    /// wrong kind, is a one-line error naming the file (and the line and column) (exit 78).
    static func load(_ path: String = Config.path, warn: Bool = true) throws(PracticeError) -> Config {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return Config() }
        if isDirectory { throw PracticeError(.config, "\(path): is a directory, not a configuration file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PracticeError(.config, "\(path): cannot read it (\(systemMessage()))")
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw PracticeError(.config, "\(path): not UTF-8 text") }
        let json: String
        do { json = try TOML.json(from: text) } catch {
            let place = error.line > 0 ? ":\(error.line):\(error.column)" : ""
            throw PracticeError(.config, "\(path)\(place): not TOML (\(error.message))")
        }
        let value: JSONValue
        do { value = try JSONValue.parse(json) } catch {
            throw PracticeError(.config, "\(path): a value that cannot be read (\(error.message))")
        }
        let config = try Config(json: value, file: path)
        for warning in config.warnings where warn { Terminal.write("practice: warning: \(warning)\n", to: STDERR_FILENO) }
        return config
    }
}
