// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import Synchronization
import Dispatch
import PracticeAudio
import PracticeDocuments
import PracticeControl
import PracticeJournal
import PracticeLibrary
import PracticeTUI

extension Practice {
    struct Library: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "library",
            abstract: "Browse and search your music folders: covers, tags, markers and lyrics.",
            discussion: """
                The folders are the XDG music folder (else ~/Music) until you name others; folders
                named here are remembered in $XDG_CONFIG_HOME/practice/config.toml ([library] folders).
                The index is $XDG_CACHE_HOME/practice/library.sqlite; music files are only read.

                Examples:
                  practice library                 the library screen
                  practice library scan ~/Dance    add a folder and index it
                  practice library search turn     tracks, markers, loops and lyric lines
                """,
            subcommands: [Browse.self, Scan.self, List.self, Search.self],
            defaultSubcommand: Browse.self)

        struct Folders: ParsableArguments {
            @Argument(help: "Music folders to add to the library (remembered).", completion: .directory)
            var folders: [String] = []

            func resolve(config: Config) throws(PracticeError) -> [String] { try LibraryIndex.folders(named: folders, config: config) }
        }

        /// Scans `folders` into the index, with a progress bar when stderr is a terminal.
        static func scan(_ index: LibraryIndex, _ folders: [String], quiet: Bool) throws(PracticeError) -> ScanReport {
            let bar = !quiet && Terminal.isTTY(STDERR_FILENO)
            var lastDrawn = -1
            let report = try index.scan(folders) { done, total in
                guard bar, total > 0 else { return }
                let percent = done * 100 / total
                guard percent != lastDrawn else { return }
                lastDrawn = percent
                let width = Terminal.width(STDERR_FILENO) - 1
                let label = "scanning \(done)/\(total) "
                Terminal.writeRaw(Terminal.redraw(label + ProgressBar.render(Double(done) / Double(total), width: max(width - label.count, 12))), to: STDERR_FILENO)
            }
            if bar { Terminal.writeRaw("\r\u{1B}[K", to: STDERR_FILENO) }
            if !quiet { for p in report.problems { Terminal.write("practice: warning: \(p.terminalSafe)\n", to: STDERR_FILENO) } }
            return report
        }

        /// The index, brought up to date with the folders first.
        static func current(_ named: [String] = [], quiet: Bool = true) throws(PracticeError) -> LibraryIndex {
            let config = try Config.load()
            let paths = try LibraryIndex.folders(named: named, config: config)
            let index = try LibraryIndex()
            _ = try scan(index, paths, quiet: quiet)
            return index
        }

        struct Browse: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show", abstract: "Open the library screen (the default).", shouldDisplay: false)
            @OptionGroup var folders: Folders
            @Option(help: "The ALSA device to play through (see 'aplay -L').")
            var device: String?

            func run() async throws {
                let config = try Config.load()
                let paths = try LibraryIndex.folders(named: folders.folders, config: config)
                let index = try LibraryIndex()
                guard Terminal.isTTY(STDIN_FILENO), Terminal.isTTY(STDOUT_FILENO) else {
                    throw PracticeError(.usage, "the library screen needs a terminal; 'practice library list' and 'search' print")
                }
                let screen = LibraryScreen(index: index, view: LibraryView())
                // The screen shows the index as it is at once; a scan beside it brings in what changed.
                let problems = Mutex<[String]>([])
                let scans = DispatchQueue(label: "library scans")   // one at a time
                let waiting = Atomic<Bool>(false)
                func scanBeside() {
                    // One waiting is enough: it will see every change made before it starts.
                    guard !waiting.exchange(true, ordering: .acquiringAndReleasing) else { return }
                    let progress = screen.scanning
                    scans.async {
                        waiting.store(false, ordering: .releasing)
                        progress.started()
                        let report = try? index.scan(paths) { progress.progress($0, of: $1) }
                        problems.withLock { $0 = report?.problems ?? [] }
                        progress.finished()
                    }
                }
                func refresh() throws(PracticeError) {
                    let practised = LibraryIndex.practised()
                    let tracks = try index.tracks()
                    let week = Date().addingTimeInterval(-7 * 86400)
                    let pick = try index.pick(among: tracks, practised: practised)
                    screen.update(tracks: tracks, pick: pick,
                                  practisedThisWeek: Set(tracks.filter { practised($0).map { $0 >= week } ?? false }.map(\.path)))
                }
                screen.reload = {
                    try? refresh()
                    let n = problems.withLock { $0.count }
                    if n > 0 { screen.say("\(n) file\(n == 1 ? "" : "s") could not be read fully ('practice library scan' lists them)") }
                }
                try refresh()
                scanBeside()
                let previews = Previews(device: device ?? "default")
                screen.preview = { previews.toggle($0) }
                defer { previews.stop() }
                // A signal ends the screen as `q` does (the terminal given back), then exits 128 + N.
                let signals = SignalHandlers { [quit = screen.quit] _ in quit() }
                while true {
                    let action = try withExtendedLifetime(signals) { try screen.run() }
                    previews.stop()
                    if let signal = signals.received { Glibc.exit(128 + signal) }
                    guard case .open(let path, let from, let loop) = action else { return }
                    guard FileManager.default.fileExists(atPath: path) else {
                        screen.say("\(path): no longer there (the library is scanned again)")
                        scanBeside()
                        continue
                    }
                    var arguments = [path] + (device.map { ["--device", $0] } ?? [])
                    if let loop { arguments += ["--loop=\(loop)"] } else if let from { arguments += ["--from=\(from)"] }
                    do {
                        let play = try Practice.Play.parse(arguments)
                        try await play.run()
                    } catch let error as PracticeError {
                        screen.say(error.message)
                    }
                    // Back where the person was; what they changed (markers, loops) is indexed beside the screen.
                    scanBeside()
                }
            }
        }

        struct Scan: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Index the library's folders (only what changed since the last scan).",
                discussion: """
                    Reads the tags and covers (TagLib), the sidecars and the lyrics of new and
                    changed files, and drops the ones that are gone. Prints what it did. A folder
                    named here is added to the library's folders (remembered in config.toml).

                    Examples:
                      practice library scan
                      practice library scan ~/Dance -q
                    """)
            @OptionGroup var folders: Folders
            @Flag(name: .shortAndLong, help: "No progress bar and no warnings.")
            var quiet = false

            func run() throws {
                let config = try Config.load()
                let paths = try folders.resolve(config: config)
                let index = try LibraryIndex()
                let report = try scan(index, paths, quiet: quiet)
                Terminal.write(report.summary + "\n", to: STDOUT_FILENO)
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List every track in the library, by artist and album.",
                discussion: """
                    Examples:
                      practice library list
                      practice library list --json --no-scan
                    """)
            @Flag(help: "JSON for scripts: one object per track.")
            var json = false
            @Flag(help: "Use the index as it is, without looking for changes in the folders first.")
            var noScan = false

            func run() throws {
                let index = try noScan ? LibraryIndex() : current()
                let tracks = try index.tracks()
                if json {
                    printJSON(.object(["version": .integer(1), "tracks": .array(tracks.map(Self.json))]))
                    return
                }
                let rows = tracks.map { t in
                    [t.displayArtist.terminalSafe, t.displayTitle.terminalSafe, (t.album ?? "").terminalSafe,
                     t.duration > 0 ? Timecode.format(t.duration) : "", t.has, t.path.terminalSafe]
                }
                let lines = Table.render(header: ["ARTIST", "TITLE", "ALBUM", "LENGTH", "HAS", "FILE"], rows: rows, rightAligned: [3])
                Terminal.write(lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
            }

            static func json(_ t: LibraryTrack) -> JSONValue {
                var o: [String: JSONValue] = ["path": .string(t.path), "duration": .seconds(t.duration),
                                              "markers": .integer(t.markerCount), "loops": .integer(t.loopCount), "lyrics": .bool(t.hasLyrics)]
                for (key, value) in [("title", t.title), ("artist", t.artist), ("album", t.album), ("albumArtist", t.albumArtist),
                                     ("genre", t.genre), ("cover", t.cover), ("problem", t.problem)] {
                    if let value { o[key] = .string(value) }
                }
                for (key, value) in [("year", t.year), ("track", t.trackNumber), ("disc", t.discNumber)] where value > 0 { o[key] = .integer(value) }
                return .object(o)
            }
        }

        struct Search: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Find tracks by their tags, file names, markers, loops and lyrics.",
                discussion: """
                    Every word must match the start of a word (case and accents ignored) in one
                    track's tags, or one marker, loop or lyric line. A hit in a marker, loop or
                    lyric line gives its time: 'practice FILE --from TIME' starts there.
                    Exits 1 when nothing matches.

                    Examples:
                      practice library search turn
                      practice library search "left foot" --json
                    """)
            @Argument(help: "The words to look for.")
            var words: [String]
            @Flag(help: "JSON for scripts: one object per hit.")
            var json = false
            @Flag(help: "Use the index as it is, without looking for changes in the folders first.")
            var noScan = false
            @Flag(name: .shortAndLong, help: "Say how long the search took and over how many tracks.")
            var verbose = false

            func run() throws {
                let index = try noScan ? LibraryIndex() : current()
                let text = words.joined(separator: " ")
                let started = DispatchTime.now().uptimeNanoseconds
                let hits = try index.search(text)
                if verbose {
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                    Terminal.write("practice: searched \(try index.count()) tracks in \(cFormat("%.1f", ms)) ms\n", to: STDERR_FILENO)
                }
                if json {
                    printJSON(.object(["version": .integer(1), "hits": .array(hits.map { h in
                        var o: [String: JSONValue] = ["path": .string(h.track.path), "kind": .string(h.kind.rawValue), "text": .string(h.text),
                                                      "title": .string(h.track.displayTitle), "artist": .string(h.track.displayArtist)]
                        if let time = h.time { o["time"] = .seconds(time) }
                        return .object(o)
                    })]))
                } else if !hits.isEmpty {
                    let rows = hits.map { h in
                        [h.track.path.terminalSafe, h.time.map { Timecode.format($0, decimals: 3) } ?? "", h.kind.rawValue,
                         h.kind == .tags ? "\(h.track.displayArtist) — \(h.track.displayTitle)".terminalSafe : h.text.terminalSafe]
                    }
                    let lines = Table.render(header: ["FILE", "TIME", "IN", "WHAT"], rows: rows, rightAligned: [1])
                    Terminal.write(lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
                }
                if hits.isEmpty {
                    if !json { Terminal.write("practice: nothing in the library matches '\(text.terminalSafe)'\n", to: STDERR_FILENO) }
                    throw ExitCode(1)
                }
            }
        }
    }

    struct Pick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show today's pick: one track to practise, the same all day.",
            discussion: """
                Chosen among the tracks with markers or loops (any track, when none has them) that
                you have not practised in the last three days, and the reason is given.

                Examples:
                  practice pick
                  practice pick --play
                """)
        @Flag(help: "Use the index as it is, without looking for changes in the folders first.")
        var noScan = false
        @Flag(help: "Open it on the practice screen (at its loop, when the pick is for a loop).")
        var play = false
        @Flag(help: "JSON for scripts.")
        var json = false
        @Option(help: "With --play: the ALSA device to play through (see 'aplay -L').")
        var device: String?

        func run() async throws {
            let index = try noScan ? LibraryIndex() : Library.current()
            guard let pick = try index.pick(practised: LibraryIndex.practised()) else {
                throw PracticeError(.noInput, "the library is empty: add a folder with 'practice library scan FOLDER'")
            }
            if json {
                var o: [String: JSONValue] = ["path": .string(pick.track.path), "title": .string(pick.track.displayTitle),
                                              "artist": .string(pick.track.displayArtist), "reason": .string(pick.reason)]
                if let from = pick.from { o["from"] = .seconds(from) }
                printJSON(.object(o))
            } else {
                Terminal.write("Today's pick: \(pick.track.displayArtist.terminalSafe) — \(pick.track.displayTitle.terminalSafe) (\(pick.reason.terminalSafe))\n  \(pick.track.path.terminalSafe)\n", to: STDOUT_FILENO)
            }
            guard play else { return }
            var arguments = [pick.track.path] + (device.map { ["--device", $0] } ?? [])
            if let loop = pick.loop { arguments += ["--loop=\(loop)"] }   // a name may start with "-"
            let command = try Practice.Play.parse(arguments)
            try await command.run()
        }
    }
}
