// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeTUI
import PracticeDocuments
import PracticeEngine
import PracticeAudio
import PracticeControl
import PracticeSongs

/// The audio file and, optionally, a sidecar to use instead of the track's own.
struct SidecarOptions: ParsableArguments {
    @Argument(help: "The audio file whose markers these are.", completion: .file(extensions: audioExtensions))
    var file: String

    @Option(name: .customLong("markers"), help: "Use this sidecar file instead of FILE.practice.json (a friend's, say).",
            completion: .file(extensions: ["json"]))
    var sidecar: String?

    @Flag(help: "Leave the times of a sidecar made on another copy of the song as they are, instead of lining them up with this one.")
    var noAlign = false

    /// Opens the track (checking it is audio) and loads its sidecar, printing any warnings.
    func load() throws -> (Track, LoadedSidecar) {
        SidecarStore.aligns = !noAlign
        let track = try Track.describe(file)
        let loaded = try SidecarStore.load(for: track, explicit: sidecar)
        warn(loaded.warnings)
        note(loaded.notices)
        return (track, loaded)
    }

    /// The sidecar as it would be written (sorted), after `load()`.
    func loadSorted() throws -> Sidecar {
        var s = try load().1.sidecar
        s.normalize()
        return s
    }

    /// Applies `edit` under the sidecar's lock and writes it; prints warnings.
    func update<R>(_ edit: (inout Sidecar, Track) throws(PracticeError) -> R) throws -> (R, LoadedSidecar) {
        SidecarStore.aligns = !noAlign
        let track = try Track.describe(file)
        let (result, loaded) = try SidecarStore.update(for: track, explicit: sidecar) { (s: inout Sidecar) throws(PracticeError) in
            try edit(&s, track)
        }
        warn(loaded.warnings)
        note(loaded.notices)
        return (result, loaded)
    }
}

let audioExtensions = ["wav", "flac", "ogg", "opus", "mp3", "aiff"]

func warn(_ lines: [String]) {
    for line in lines { Terminal.write("practice: warning: \(line)\n", to: STDERR_FILENO) }
}

/// What a format could not hold or a file did not say, for the record.
func note(_ lines: [String]) {
    for line in lines { Terminal.write("practice: note: \(line)\n", to: STDERR_FILENO) }
}

func say(_ line: String) { Terminal.write(line + "\n", to: STDOUT_FILENO) }

/// `--json` output: pretty on a terminal, one line otherwise.
func printJSON(_ value: JSONValue) {
    Terminal.write(Terminal.isTTY(STDOUT_FILENO) ? value.pretty() : value.compact() + "\n", to: STDOUT_FILENO)
}

extension Practice {
    struct Markers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List and edit a track's markers (kept in FILE.practice.json beside it).",
            discussion: """
                Marker names are any text that is not a time; case is ignored when matching them. \
                Times are seconds (83.5), m:ss (1:23.5) or h:mm:ss (1:02:03.25) on the decoded track.

                Examples:
                  practice markers song.mp3
                  practice markers add song.mp3 "Verse 2" 1:12.5 --note "watch the turn"
                  practice markers move song.mp3 "Verse 2" +0.25
                """,
            subcommands: [List.self, Add.self, Remove.self, Rename.self, Move.self, Align.self, Import.self, Export.self, Merge.self, MergeDriver.self],
            defaultSubcommand: List.self)

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show the markers of a track, by time.",
                discussion: """
                    Examples:
                      practice markers list song.mp3
                      practice markers song.mp3 --json
                    """)
            @OptionGroup var target: SidecarOptions
            @Flag(help: "Print JSON (keys sorted; pretty on a terminal) instead of a table.") var json = false

            func run() throws {
                let loaded = try target.load().1
                var sidecar = loaded.sidecar
                sidecar.normalize()
                let markers = sidecar.liveMarkers
                // Markers whose audio this copy of the song does not have (made on a longer one).
                let missing = Set(loaded.placement?.missing ?? [])
                if json {
                    printJSON(.object(["version": .integer(1), "markers": .array(markers.map { m in
                        var o: [String: JSONValue] = ["id": .string(m.id), "name": .string(m.name), "time": .seconds(m.time)]
                        if let n = m.note { o["note"] = .string(n) }
                        if let c = m.color { o["color"] = .string(c) }
                        if missing.contains(m.id) { o["notInThisCopy"] = .bool(true) }
                        return .object(o)
                    })]))
                    return
                }
                guard !markers.isEmpty else {
                    say("\(target.file): no markers yet (add one: practice markers add \(shellQuote(target.file)) NAME TIME)")
                    return
                }
                // Names shared after a merge: show the ids' starts, and how to pick one.
                let shared = Dictionary(grouping: markers, by: { $0.name.lowercased() }).values.filter { $0.count > 1 }
                let ids = !shared.isEmpty
                let rows = markers.map { m in
                    let note = missing.contains(m.id) ? "[not in this copy] " + (m.note ?? "") : m.note ?? ""
                    return [Timecode.format(m.time, decimals: 3), m.name] + (ids ? [String(m.id.prefix(8))] : []) + [note]
                }
                for line in Table.render(header: ["TIME", "NAME"] + (ids ? ["ID"] : []) + ["NOTE"], rows: rows, rightAligned: [0]) { say(line) }
                for group in shared.sorted(by: { $0[0].time < $1[0].time }) {
                    warn(["\(group.count) markers are named '\(group[0].name)': pick one as '\(group[0].name)#1' … '#\(group.count)' (by time), @TIME or by id; or rename one"])
                }
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
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
                guard let seconds = Timecode.parse(time) else {
                    throw PracticeError(.usage, "'\(time.terminalSafe)' is not a time (83.5, 1:23.5 or 1:02:03.25)")
                }
                if let n = Timecode.ambiguity(time) { Terminal.write("practice: note: \(n)\n", to: STDERR_FILENO) }
                let (m, loaded) = try target.update { (s, track) throws(PracticeError) in
                    var t = seconds
                    if snap {
                        guard let grid = s.beats, let k = grid.nearest(t) else {
                            throw PracticeError(.usage, "--snap: no beats known for \(Path.lastComponent(track.path)); find them with 'practice beats \(track.path)'")
                        }
                        t = grid.times[k]
                    }
                    return try s.addMarker(name: name, time: t, note: note, color: color, duration: track.duration)
                }
                say("added marker '\(m.name)' at \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))")
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
                let (m, loaded) = try target.update { (s, _) throws(PracticeError) in try s.removeMarker(named: name) }
                say("removed marker '\(m.name)' at \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))")
            }
        }

        struct Rename: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Rename a marker (loops that use it follow).",
                discussion: """
                    Example:
                      practice markers rename song.mp3 "Verse 2" "Verse 2 (turn)"
                    """)
            @OptionGroup var target: SidecarOptions
            @Argument(help: "The marker: its name, @TIME, NAME#N (the Nth of that name, by time) or its id's start.") var old: String
            @Argument(help: "Its new name.") var new: String

            func run() throws {
                let (was, loaded) = try target.update { (s, _) throws(PracticeError) in try s.renameMarker(old, to: new) }
                say("renamed marker '\(was.name)' to '\(new.trimmingWhitespaceAndNewlines())' (\(loaded.writePath))")
            }
        }

        struct Move: ParsableCommand {
            static let configuration = CommandConfiguration(
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
                let (m, loaded) = try target.update { (s, track) throws(PracticeError) in
                    try s.moveMarker(name, change, duration: track.duration)
                }
                say("moved marker '\(m.name)' to \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))")
            }
        }
    }
}

extension Practice.Markers {
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
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
            let theirs = try SidecarStore.read(other)
            if theirs.version > Sidecar.currentVersion {
                throw PracticeError(.dataError, "\(other): written by a newer practice (format version \(theirs.version)); cannot merge it")
            }
            SidecarStore.aligns = !target.noAlign
            let track = try Track.describe(target.file)
            // Made on another copy of the song: its times moved onto this one first.
            let copy = try OtherCopy(theirs, path: other, on: track)
            warn(copy.messages.warnings)
            note(copy.messages.notices)
            let (report, loaded) = try target.update { (s, _) throws(PracticeError) in s.merge(copy.sidecar) }
            if report.lines.isEmpty {
                say("\(other): nothing new for \(loaded.writePath)")
            } else {
                say("merged \(other) into \(loaded.writePath):")
                for line in report.lines { say(line) }
            }
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
            var a = try SidecarStore.read(ours)
            var b = try SidecarStore.read(theirs)
            for (path, s) in [(ours, a), (theirs, b)] where s.version > Sidecar.currentVersion {
                throw PracticeError(.dataError, "\(path): written by a newer practice (format version \(s.version)); not merged")
            }
            // The ancestor only tells edits made on both sides from edits made on one, for the
            // report; git gives an empty one when both sides added the file.
            var base = try? SidecarStore.read(ancestor)
            // Versions on the times of different copies of the song (someone ran 'markers align'
            // on theirs): theirs is lined up with ours by the fingerprints both keep.
            var notices: [String] = []
            if let ra = a.audio, let rb = b.audio, ra.differences(from: rb) != nil,
               let map = try Self.localCopy(of: ra, beside: path ?? ours)?.alignment(to: rb) ?? TimeMap.between(reference: rb, this: ra) {
                if map.isConfident {
                    let (placed, missing) = b.placed(by: map)
                    b = OtherCopy.withoutMissing(placed, missing)
                    if let ancestor = base, ancestor.audio?.differences(from: rb) == nil { base = OtherCopy.withoutMissing(ancestor.placed(by: map).sidecar, missing) }
                    notices.append("their version is on the times of \(rb.fileName), ours on those of \(ra.fileName): " + SidecarStore.placedNotice(map, placed: placed, missing: missing, whose: "their markers", match: "ours"))
                } else {
                    notices.append("their version was made for \(rb.fileName), which does not line up with ours (\(map.verdict)): its times are taken as they are")
                }
            }
            let report = a.merge(b, ancestor: base)
            let data = a.encoded()
            // Never write what we could not read back: git then leaves the conflict to a person.
            do { _ = try Sidecar.decode(data) } catch {
                throw PracticeError(.software, "\(path ?? ours): not merged: the merge would not read back (\(error.field) \(error.message))")
            }
            try AtomicFile.write(data, to: ours)
            // git shows what a driver prints: what came in, and what was decided.
            if !report.lines.isEmpty || !notices.isEmpty {
                Terminal.write("practice: merged \(path ?? "the sidecar") with their version:\n" + (notices.map { "  " + $0 } + report.lines).map { "practice: \($0)\n" }.joined(), to: STDERR_FILENO)
            }
        }

        /// The audio file beside the sidecar at `path` (git's %P, from the work tree's top, where
        /// git runs drivers) whose decoded audio is `identity`, if this checkout has it: `song.mp3`
        /// for `song.mp3.practice.json`, or any `song.*` for `song.practice.json`. With it, theirs
        /// lines up to about 15 ms instead of the fingerprints' 62.
        static func localCopy(of identity: TrackIdentity, beside path: String) -> Track? {
            guard path.hasSuffix(SidecarStore.suffix) else { return nil }
            let audio = String(path.dropLast(SidecarStore.suffix.count))
            let folder = Path.directory(audio), stem = Path.lastComponent(audio)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
            let candidates = [stem] + names.sorted().filter { $0.hasPrefix(stem + ".") && audioExtensions.contains(Path.pathExtension($0).lowercased()) }
            for name in candidates {
                let file = folder.isEmpty ? name : folder + "/" + name
                guard FileManager.default.fileExists(atPath: file), let track = try? Track.describe(file),
                      let here = try? track.identity(), here.differences(from: identity) == nil else { continue }
                return track
            }
            return nil
        }
    }
}

/// Quotes a path for a command line a user can paste.
func shellQuote(_ s: String) -> String {
    s.allSatisfy { $0.isLetter || $0.isNumber || "-_./".contains($0) } ? s : "'" + s.replacing("'", with: "'\\''") + "'"
}
