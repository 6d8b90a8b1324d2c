// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeJournal

extension LibraryIndex {
    /// The folders to scan: the ones named (added to the remembered ones), else the remembered
    /// ones, else the music folder (when there is one).
    public static func folders(named: [String], config: Config) throws(PracticeError) -> [String] {
        let named = named.map { Path.normalized(Path.absolute($0)) }
        for f in named {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: f, isDirectory: &isDirectory) else { throw PracticeError(.noInput, "\(f): no such folder") }
            guard isDirectory else { throw PracticeError(.noInput, "\(f): not a folder") }
        }
        let remembered = config.libraryFolders ?? [Config.musicFolder].filter { FileManager.default.fileExists(atPath: $0) }
        let added = named.filter { !remembered.contains($0) }
        if !added.isEmpty {
            try Config.remember(libraryFolders: remembered + added)
            Terminal.write("practice: added \(added.joined(separator: ", ")) to the library (\(Config.path))\n", to: STDERR_FILENO)
        }
        return named.isEmpty ? remembered : named
    }

    /// When a track was last practised: the end of its latest session in the practice
    /// journal, or when it was left (its resume point), whichever is later (the journal
    /// may be off, or newer than its sessions). Looked up by the track's real path, as the
    /// index and the journal keep it.
    public static func practised() -> (LibraryTrack) -> Date? {
        var dates = ResumeStore().updated.compactMapValues(TodaysPick.date(rfc3339:))
        if let sessions = try? Journal().lastPractised() {
            dates.merge(sessions) { max($0, $1) }
        }
        return { dates[$0.path] }
    }
}
