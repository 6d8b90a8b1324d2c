// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Glibc
import PracticeDocuments
import PracticeJournal
import PracticeLibrary
import PracticeTUI

/// `practice library` and `practice pick`: the index listed, searched and scanned, today's pick.
public enum LibraryCommands {
    /// The index, brought up to date with the folders first unless `noScan`.
    static func index(noScan: Bool) throws -> LibraryIndex { try noScan ? LibraryIndex() : LibraryTerminal.current() }

    /// Indexes `folders` (remembered) or the library's, printing what it did.
    public static func scan(_ folders: [String], quiet: Bool) throws {
        let paths = try LibraryIndex.folders(named: folders, config: try Config.load())
        let report = try LibraryTerminal.scan(try LibraryIndex(), paths, quiet: quiet)
        Terminal.write(report.summary + "\n", to: STDOUT_FILENO)
    }

    /// Every track, by artist and album.
    public static func list(json: Bool, noScan: Bool) throws {
        let tracks = try index(noScan: noScan).tracks()
        if json { return Console.printJSON(.object(["version": .integer(1), "tracks": .array(tracks.map(\.json))])) }
        Console.say(lines: LibraryTrack.table(tracks))
    }

    /// The hits for `words`; false when nothing matches (said on stderr without `json`).
    public static func search(_ words: [String], json: Bool, noScan: Bool, verbose: Bool) throws -> Bool {
        let index = try index(noScan: noScan)
        let text = words.joined(separator: " ")
        let started = DispatchTime.now().uptimeNanoseconds
        let hits = try index.search(text)
        if verbose {
            let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            Terminal.write("practice: searched \(try index.count()) tracks in \(cFormat("%.1f", ms)) ms\n", to: STDERR_FILENO)
        }
        if json {
            Console.printJSON(.object(["version": .integer(1), "hits": .array(hits.map(\.json))]))
        } else if !hits.isEmpty {
            Console.say(lines: LibraryHit.table(hits))
        }
        if hits.isEmpty, !json { Terminal.write("practice: nothing in the library matches '\(text.terminalSafe)'\n", to: STDERR_FILENO) }
        return !hits.isEmpty
    }

    /// Prints today's pick; returns the arguments of `play` for it (its loop, if the pick is one).
    public static func pick(json: Bool, noScan: Bool, device: String?) throws -> [String] {
        guard let pick = try index(noScan: noScan).pick(practised: LibraryIndex.practised()) else {
            throw PracticeError(.noInput, "the library is empty: add a folder with 'practice library scan FOLDER'")
        }
        if json { Console.printJSON(pick.json) } else { Terminal.write(pick.text + "\n", to: STDOUT_FILENO) }
        return playArguments(pick.track.path, from: nil, loop: pick.loop, device: device)
    }

    /// The arguments of `play` for a track picked on the library screen: from a time, or its loop.
    public static func playArguments(_ path: String, from: Double?, loop: String?, device: String?) -> [String] {
        var arguments = [path] + (device.map { ["--device", $0] } ?? [])
        // `--loop=NAME`: a name may start with "-".
        if let loop { arguments += ["--loop=\(loop)"] } else if let from { arguments += ["--from=\(from)"] }
        return arguments
    }
}
