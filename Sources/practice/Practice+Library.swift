// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Glibc
import PracticeCommands
import PracticeTUI

extension Practice {
    struct Library: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            group: "library",
            abstract: "Browse and search your music folders: covers, tags, markers and lyrics.",
            discussion: """
                The folders are the XDG music folder (else ~/Music) until you name others; folders \
                named here are remembered in $XDG_CONFIG_HOME/practice/config.toml ([library] folders). \
                The index is $XDG_CACHE_HOME/practice/library.sqlite; music files are only read.

                Examples:
                  practice library                 the library screen
                  practice library scan ~/Dance    add a folder and index it
                  practice library search turn     tracks, markers, loops and lyric lines
                """,
            subcommands: [Browse.self, Scan.self, List.self, Search.self])

        struct Folders: ParsableArguments {
            @Argument(help: "Music folders to add to the library (remembered).", completion: .directory)
            var folders: [String] = []
        }

        struct Browse: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show", abstract: "Open the library screen (the default).", shouldDisplay: false)
            @OptionGroup var folders: Folders
            @Option(help: "The ALSA device to play through (see 'aplay -L').")
            var device: String?

            func run() async throws {
                let signal = try await LibraryTerminal.browse(folders: folders.folders, device: device) { path, from, loop in
                    try await Practice.Play.parse(LibraryCommands.playArguments(path, from: from, loop: loop, device: device)).run()
                }
                if let signal { Glibc.exit(128 + signal) }
            }
        }

        struct Scan: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "scan",
                abstract: "Index the library's folders (only what changed since the last scan).",
                discussion: """
                    Reads the tags and covers (TagLib), the sidecars and the lyrics of new and \
                    changed files, and drops the ones that are gone. Prints what it did. A folder \
                    named here is added to the library's folders (remembered in config.toml).

                    Examples:
                      practice library scan
                      practice library scan ~/Dance -q
                    """)
            @OptionGroup var folders: Folders
            @Flag(name: .shortAndLong, help: "No progress bar and no warnings.")
            var quiet = false

            func run() throws { try LibraryCommands.scan(folders.folders, quiet: quiet) }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
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

            func run() throws { try LibraryCommands.list(json: json, noScan: noScan) }
        }

        struct Search: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "search",
                abstract: "Find tracks by their tags, file names, markers, loops and lyrics.",
                discussion: """
                    Every word must match the start of a word (case and accents ignored) in one \
                    track's tags, or one marker, loop or lyric line. A hit in a marker, loop or \
                    lyric line gives its time: 'practice FILE --from TIME' starts there. \
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
                if try !LibraryCommands.search(words, json: json, noScan: noScan, verbose: verbose) { throw ExitCode(1) }
            }
        }
    }

    struct Pick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pick",
            abstract: "Show today's pick: one track to practise, the same all day.",
            discussion: """
                Chosen among the tracks with markers or loops (any track, when none has them) that \
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
            let arguments = try LibraryCommands.pick(json: json, noScan: noScan, device: device)
            if play { try await Practice.Play.parse(arguments).run() }
        }
    }
}
