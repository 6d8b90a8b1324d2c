// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeDocuments
import PracticeEngine

extension Practice {
    struct Loops: ParsableCommand {
        static let configuration = CommandConfiguration(
            group: "loops",
            abstract: "List and edit a track's named loops (kept in FILE.practice.json beside it).",
            discussion: """
                A loop's ends are marker names or times; a loop that starts at a marker follows it \
                when the marker moves. Play one with 'practice FILE --loop NAME'.

                Examples:
                  practice loops song.mp3
                  practice loops add song.mp3 chorus Chorus "Verse 3"
                  practice loops add song.mp3 "shine turn" 1:12 1:20.5
                """,
            subcommands: [List.self, Add.self, Remove.self])

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "Show the loops of a track.",
                discussion: """
                    Example:
                      practice loops list song.mp3 --json
                    """)
            @OptionGroup var target: SidecarOptions
            @Flag(help: "Print JSON (keys sorted; pretty on a terminal) instead of a table.") var json = false

            func run() throws {
                try target.sidecarTarget.listLoops(json: json)
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add a named loop between two markers or times.",
                discussion: """
                    Examples:
                      practice loops add song.mp3 chorus Chorus "Verse 3"
                      practice loops add song.mp3 "shine turn" 1:12 1:20.5
                    """)
            @OptionGroup var target: SidecarOptions
            @Argument(help: "The loop's name (not a time; unique, ignoring case).") var name: String
            @Argument(help: "Where it starts: a marker's name or a time.") var a: String
            @Argument(help: "Where it ends: a marker's name or a time.") var b: String
            @Option(help: "A note to keep with it.") var note: String?

            func run() throws {
                let ((loop, from, to), loaded) = try target.sidecarTarget.update { (s, track) throws(PracticeError) in
                    let l = try s.addLoop(name: name, from: a, to: b, note: note, duration: track.duration)
                    return (l, s.time(of: l.start) ?? 0, s.time(of: l.end) ?? 0)
                }
                Console.say("added loop '\(loop.name)' from \(Timecode.format(from, decimals: 3)) to \(Timecode.format(to, decimals: 3)) (\(loaded.writePath))")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rm",
                abstract: "Remove a loop (its markers stay).",
                discussion: """
                    Example:
                      practice loops rm song.mp3 chorus
                    """)
            @OptionGroup var target: SidecarOptions
            @Argument(help: "The loop's name.") var name: String

            func run() throws {
                let (l, loaded) = try target.sidecarTarget.update { (s, _) throws(PracticeError) in try s.removeLoop(named: name) }
                Console.say("removed loop '\(l.name)' (\(loaded.writePath))")
            }
        }
    }
}
