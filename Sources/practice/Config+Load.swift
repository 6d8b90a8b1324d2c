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

extension Config {
    /// Writes `[library] folders` into the configuration file, changing only that value: the
    /// rest of what the person wrote (comments, order, other settings) stays as it is. A file that
    /// cannot be read is not written, and neither is one that would not read back as `folders`.
    static func remember(libraryFolders folders: [String], in path: String = Config.path) throws(PracticeError) {
        var text = ""
        if FileManager.default.fileExists(atPath: path) {
            _ = try load(path, warn: false)   // refuses a file that is not right, before anything is written
            guard let data = FileManager.default.contents(atPath: path), let t = String(validating: data, as: UTF8.self) else {
                throw PracticeError(.config, "\(path): cannot read it (\(systemMessage()))")
            }
            text = t
        }
        let home = XDG.home
        let value = "[" + folders.map { f in
            // A JSON string is a TOML basic string (the same escapes).
            JSONValue.string(f.hasPrefix(home + "/") ? "~" + f.dropFirst(home.count) : f).compact()
        }.joined(separator: ", ") + "]"
        var bytes = Array(text.utf8)
        let folderRange: Range<Int>?, tableRange: Range<Int>?
        do {
            folderRange = try TOML.valueRange(of: "library.folders", in: text)
            tableRange = try TOML.valueRange(of: "library", in: text)
        } catch {
            throw PracticeError(.config, "\(path): not TOML (\(error.message))")
        }
        if let range = folderRange {
            bytes.replaceSubrange(range, with: Array(value.utf8))
        } else if let table = tableRange {
            // After the [library] header's line.
            guard text.utf8.dropFirst(table.lowerBound).first == UInt8(ascii: "[") else {
                throw PracticeError(.config, "\(path): 'library' is not a [library] table; add 'folders' to it yourself")
            }
            let end = bytes[table.lowerBound...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
            let insert = (end == bytes.count && bytes.last != UInt8(ascii: "\n") ? "\n" : "") + "folders = \(value)\n"
            bytes.insert(contentsOf: Array(insert.utf8), at: end)
        } else {
            let gap = bytes.isEmpty ? "" : bytes.last == UInt8(ascii: "\n") ? "\n" : "\n\n"
            bytes += Array("\(gap)[library]\n# The music folders 'practice library' scans.\nfolders = \(value)\n".utf8)
        }
        let written = String(decoding: bytes, as: UTF8.self)
        // It must read back as what was meant.
        guard let json = try? TOML.json(from: written), let parsed = try? JSONValue.parse(json),
              let back = try? Config(json: parsed, file: path), back.libraryFolders == folders else {
            throw PracticeError(.config, "\(path): could not add the library's folders and keep the file readable; add them yourself under [library] folders")
        }
        do { try FileManager.default.createDirectory(atPath: Path.directory(path), withIntermediateDirectories: true) } catch {
            throw PracticeError(.cannotCreate, "\(Path.directory(path)): cannot make the folder for the settings file")
        }
        try AtomicFile.write(Data(bytes), to: path)
    }
}
