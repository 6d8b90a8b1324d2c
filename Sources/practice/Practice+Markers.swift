// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeDocuments
import PracticeEngine

/// The audio file and, optionally, a sidecar to use instead of the track's own.
struct SidecarOptions: ParsableArguments {
    @Argument(help: "The audio file whose markers these are.", completion: .file(extensions: audioExtensions))
    var file: String

    @Option(name: .customLong("markers"), help: "Use this sidecar file instead of FILE.practice.json (a friend's, say).",
            completion: .file(extensions: ["json"]))
    var sidecar: String?

    @Flag(help: "Leave the times of a sidecar made on another copy of the song as they are, instead of lining them up with this one.")
    var noAlign = false

    /// The track's sidecar these options name.
    var sidecarTarget: SidecarTarget { SidecarTarget(file: file, sidecar: sidecar, noAlign: noAlign) }
}

let audioExtensions = Track.fileExtensions.sorted()


extension Practice {
    struct Markers: ParsableCommand {
        static let configuration = CommandConfiguration(
            group: "markers",
            abstract: "List and edit a track's markers (kept in FILE.practice.json beside it).",
            discussion: """
                Marker names are any text that is not a time; case is ignored when matching them. \
                Times are seconds (83.5), m:ss (1:23.5) or h:mm:ss (1:02:03.25) on the decoded track.

                Examples:
                  practice markers song.mp3
                  practice markers add song.mp3 "Verse 2" 1:12.5 --note "watch the turn"
                  practice markers move song.mp3 "Verse 2" +0.25
                """,
            subcommands: [List.self, Add.self, Remove.self, Rename.self, Move.self, Align.self, Import.self, Export.self, Merge.self, MergeDriver.self])

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "Show the markers of a track, by time.",
                discussion: """
                    Examples:
                      practice markers list song.mp3
                      practice markers song.mp3 --json
                    """)
            @OptionGroup var target: SidecarOptions
            @Flag(help: "Print JSON (keys sorted; pretty on a terminal) instead of a table.") var json = false

            func run() throws {
                try target.sidecarTarget.listMarkers(json: json)
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add a marker.",
                discussion: """
                    Examples:
                      practice markers add song.mp3 Chorus 0:45
                      practice markers add song.mp3 "Shine turn" 1:12.5 --note "spot left" --color "#ff8800"
                      practice markers add song.mp3 Turn 1:12.4 --snap    # on the nearest beat
                    """)
            @OptionGroup var target: SidecarOptions
            @Argument(help: "The marker's name (not a time; unique, ignoring case).") var name: String
            @Argument(help: "Where: seconds, m:ss or h:mm:ss.") var time: String
            @Option(help: "A note to keep with it.") var note: String?
            @Option(help: "A colour for views, as #rrggbb.") var color: String?
            @Flag(help: "Put it on the nearest beat of the track's beat grid ('practice beats').") var snap = false

            func run() throws {
                try target.sidecarTarget.addMarker(name: name, at: time, note: note, color: color, snap: snap)
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rm",
                abstract: "Remove a marker (loops that used it keep its time).",
                discussion: """
                    Example:
                      practice markers rm song.mp3 "Verse 2"
                    """)
            @OptionGroup var target: SidecarOptions
            @Argument(help: "The marker: its name, @TIME, NAME#N (the Nth of that name, by time) or its id's start.") var name: String

            func run() throws {
                let (m, loaded) = try target.sidecarTarget.update { (s, _) throws(PracticeError) in try s.removeMarker(named: name) }
                Console.say("removed marker '\(m.name)' at \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))")
            }
        }

        struct Rename: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rename",
                abstract: "Rename a marker (loops that use it follow).",
                discussion: """
                    Example:
                      practice markers rename song.mp3 "Verse 2" "Verse 2 (turn)"
                    """)
            @OptionGroup var target: SidecarOptions
            @Argument(help: "The marker: its name, @TIME, NAME#N (the Nth of that name, by time) or its id's start.") var old: String
            @Argument(help: "Its new name.") var new: String

            func run() throws {
                let (was, loaded) = try target.sidecarTarget.update { (s, _) throws(PracticeError) in try s.renameMarker(old, to: new) }
                Console.say("renamed marker '\(was.name)' to '\(new.trimmingWhitespaceAndNewlines())' (\(loaded.writePath))")
            }
        }

        struct Move: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "move",
                abstract: "Move a marker to a time, or nudge it by +/- seconds.",
                discussion: """
                    Examples:
                      practice markers move song.mp3 Chorus 0:45.2
                      practice markers move song.mp3 Chorus +0.1
                      practice markers move song.mp3 Chorus -0.25
                      practice markers move song.mp3 Intro#2 -0.05
                    """)
            @OptionGroup var target: SidecarOptions
            @Argument(help: "The marker: its name, @TIME, NAME#N (the Nth of that name, by time) or its id's start.") var name: String
            @Argument(help: "A time (1:12.5), or a nudge (+0.1, -0.25).") var time: String

            func validate() throws {
                guard TimeChange(time) != nil else {
                    throw ValidationError("'\(time)' is not a time (83.5, 1:23.5) or a nudge (+0.1, -0.25)")
                }
            }

            func run() throws {
                let change = TimeChange(time)!
                let (m, loaded) = try target.sidecarTarget.update { (s, track) throws(PracticeError) in
                    try s.moveMarker(name, change, duration: track.duration)
                }
                Console.say("moved marker '\(m.name)' to \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))")
            }
        }
    }
}

extension Practice.Markers {
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Merge another copy of a sidecar (a friend's, say) into this track's.",
            discussion: """
                Markers and loops are matched by id: what only one side has is kept, and where both \
                edited the same one, the newer edit wins. Settings (the tempo, the lyrics' shift) \
                merge one by one, the newer edit of each winning; fields this version does not \
                know are kept. Two different markers with the same name are both kept and \
                reported. Prints what changed (+ - ~), what was decided where the copies \
                disagree (*), and what to look at (! ?).

                Example:
                  practice markers merge song.mp3 ~/Downloads/song.mp3.practice.json
                """)
        @OptionGroup var target: SidecarOptions
        @Argument(help: "The other sidecar file.", completion: .file(extensions: ["json"])) var other: String

        func run() throws {
            try target.sidecarTarget.merge(other)
        }
    }

    struct MergeDriver: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge-driver",
            abstract: "Merge two versions of a sidecar for git; the result replaces OURS.",
            discussion: """
                Set it up once per repository:
                  echo '*.practice.json merge=practice' >> .gitattributes
                  git config merge.practice.driver "practice markers merge-driver %O %A %B %P"
                Exits 0 when merged; a file it cannot read is left for git to mark as a conflict.
                """)
        @Argument(help: "The common ancestor (git's %O): ids, edit times and removals decide; the ancestor tells the report which edits were made on both sides.") var ancestor: String
        @Argument(help: "Our version (git's %A); the merge is written here.") var ours: String
        @Argument(help: "Their version (git's %B).") var theirs: String
        @Argument(help: "The sidecar's path in the repository (git's %P), for the report, and to find this checkout's copy of the song when the two versions were made on different copies.") var path: String?

        func run() throws {
            try SidecarMergeDriver.merge(ancestor: ancestor, ours: ours, theirs: theirs, path: path)
        }
    }
}
