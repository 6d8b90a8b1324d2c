// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

extension Config {
    /// The configuration file (`Config.path`) read through toml++, its warnings written to
    /// stderr; every default when there is none. A file that is not TOML, or a setting of the
    /// wrong kind, is a one-line error naming the file (and the line and column) (exit 78).
    public static func load(_ path: String = Config.path, warn: Bool = true) throws(PracticeError) -> Config {
        // stat and read(2), not FileManager: every command comes here first (`--help` too), and
        // FileManager's code is pages of its own to map.
        var info = stat()
        guard stat(path, &info) == 0 else { return Config() }
        if info.st_mode & S_IFMT == S_IFDIR { throw PracticeError(.config, "\(path): is a directory, not a configuration file") }
        guard let data = ReadableFile.wholeFile(path) else {
            throw PracticeError(.config, "\(path): cannot read it (\(systemMessage()))")
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw PracticeError(.config, "\(path): not UTF-8 text") }
        let json: String
        do { json = try TOML.json(from: text) } catch {
            let place = error.line > 0 ? ":\(error.line):\(error.column)" : ""
            // `notifications = no`: a bare word where a value goes (toml++ says "expected 'nan'").
            if let word = Self.bareWord(onLine: error.line, of: text) {
                throw PracticeError(.config, "\(path):\(error.line): '\(word.terminalSafe)' is not a TOML value (true, false, a number, or \"text\" in quotes)")
            }
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
    /// The bare word given as the value on line `n` of `text` (`key = no`), if that is what the line holds.
    static func bareWord(onLine n: Int, of text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard n >= 1, n <= lines.count else { return nil }
        let line = lines[n - 1].split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let value = parts[1].trimmingWhitespace()
        guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0 == "_" || $0 == "-" }), !["true", "false", "inf", "nan"].contains(value) else { return nil }
        return value
    }
}

extension Config {
    /// Writes `[library] folders` into the configuration file, changing only that value (the new
    /// folders go at the end of the list): the rest of what the person wrote (comments, order,
    /// other settings, the list's own entries and layout) stays as it is. A file that
    /// cannot be read is not written, and neither is one that would not read back as `folders`.
    public static func remember(libraryFolders folders: [String], in path: String = Config.path) throws(PracticeError) {
        var text = ""
        var existing: [String] = []
        if FileManager.default.fileExists(atPath: path) {
            // Refuses a file that is not right, before anything is written.
            existing = try load(path, warn: false).libraryFolders ?? []
            guard let data = ReadableFile.wholeFile(path), let t = String(validating: data, as: UTF8.self) else {
                throw PracticeError(.config, "\(path): cannot read it (\(systemMessage()))")
            }
            text = t
        }
        let home = XDG.home
        func list(_ folders: [String]) -> String {
            folders.map { f in
                // A JSON string is a TOML basic string (the same escapes).
                JSONValue.string(f.hasPrefix(home + "/") ? "~" + f.dropFirst(home.count) : f).compact()
            }.joined(separator: ", ")
        }
        let bytes = Array(text.utf8)
        let folderRange: Range<Int>?, tableRange: Range<Int>?
        do {
            folderRange = try TOML.valueRange(of: "library.folders", in: text)
            tableRange = try TOML.valueRange(of: "library", in: text)
        } catch {
            throw PracticeError(.config, "\(path): not TOML (\(error.message))")
        }
        // The ways to write it, best first; the first that reads back as `folders` is written.
        var candidates: [[UInt8]] = []
        if let range = folderRange {
            let added = folders.filter { !existing.contains($0) }
            if existing + added == folders, bytes[range.upperBound - 1] == UInt8(ascii: "]") {
                // The new folders go before the list's closing bracket, so the person's own
                // entries, their comments and their layout stay as they wrote them.
                for join in existing.isEmpty ? [""] : [", ", " "] {
                    var b = bytes
                    b.insert(contentsOf: Array((join + list(added)).utf8), at: range.upperBound - 1)
                    candidates.append(b)
                }
            }
            var b = bytes
            b.replaceSubrange(range, with: Array("[\(list(folders))]".utf8))
            candidates.append(b)
        } else if let table = tableRange {
            // After the [library] header's line.
            guard text.utf8.dropFirst(table.lowerBound).first == UInt8(ascii: "[") else {
                throw PracticeError(.config, "\(path): 'library' is not a [library] table; add 'folders' to it yourself")
            }
            let end = bytes[table.lowerBound...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
            let insert = (end == bytes.count && bytes.last != UInt8(ascii: "\n") ? "\n" : "") + "folders = [\(list(folders))]\n"
            var b = bytes
            b.insert(contentsOf: Array(insert.utf8), at: end)
            candidates.append(b)
        } else {
            let gap = bytes.isEmpty ? "" : bytes.last == UInt8(ascii: "\n") ? "\n" : "\n\n"
            candidates.append(bytes + Array("\(gap)[library]\n# The music folders 'practice library' scans.\nfolders = [\(list(folders))]\n".utf8))
        }
        // It must read back as what was meant.
        func readsBack(_ b: [UInt8]) -> Bool {
            guard let json = try? TOML.json(from: String(decoding: b, as: UTF8.self)), let parsed = try? JSONValue.parse(json),
                  let back = try? Config(json: parsed, file: path) else { return false }
            return back.libraryFolders == folders
        }
        guard let written = candidates.first(where: readsBack) else {
            throw PracticeError(.config, "\(path): could not add the library's folders and keep the file readable; add them yourself under [library] folders")
        }
        guard FileSystem.makeFolders(Path.directory(path)) else {
            throw PracticeError(.cannotCreate, "\(Path.directory(path)): cannot make the folder for the settings file")
        }
        // A settings file kept elsewhere and linked here (a dotfiles folder) is written where it is.
        try AtomicFile.write(Data(written), to: Path.resolved(path) ?? path)
    }
}
