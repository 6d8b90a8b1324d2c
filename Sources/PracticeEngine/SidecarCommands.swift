// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeSystem

/// A track's sidecar as the commands on markers name it: the audio file, and the sidecar to use
/// instead of its own (`--markers`, a friend's); whether another copy's times are lined up with it.
public struct SidecarTarget: Sendable {
    public var file: String
    public var sidecar: String?
    public var noAlign: Bool

    public init(file: String, sidecar: String? = nil, noAlign: Bool = false) {
        self.file = file
        self.sidecar = sidecar
        self.noAlign = noAlign
    }

    /// Opens the track (checking it is audio) and loads its sidecar, printing any warnings.
    /// (These are one-shot commands: their sidecars are left for the process's exit to free,
    /// `LeftForExit`.)
    public func load() throws(PracticeError) -> (Track, LoadedSidecar) {
        LeftForExit.process.untilExit()
        SidecarStore.aligns = !noAlign
        let track = try Track.describe(file)
        let loaded = try SidecarStore.load(for: track, explicit: sidecar)
        Console.warn(loaded.warnings)
        Console.note(loaded.notices)
        LeftForExit.process.keep(loaded)
        return (track, loaded)
    }

    /// The sidecar as it would be written (sorted), after `load()`.
    public func loadSorted() throws(PracticeError) -> Sidecar {
        var s = try load().1.sidecar
        s.normalize()
        return s
    }

    /// Applies `edit` under the sidecar's lock and writes it; prints warnings.
    public func update<R>(_ edit: (inout Sidecar, Track) throws(PracticeError) -> R) throws(PracticeError) -> (R, LoadedSidecar) {
        LeftForExit.process.untilExit()
        SidecarStore.aligns = !noAlign
        let track = try Track.describe(file)
        let (result, loaded) = try SidecarStore.update(for: track, explicit: sidecar) { (s: inout Sidecar) throws(PracticeError) in
            try edit(&s, track)
        }
        Console.warn(loaded.warnings)
        Console.note(loaded.notices)
        LeftForExit.process.keep(loaded)
        return (result, loaded)
    }

    /// `practice markers list`: the markers by time, as a table or as JSON.
    public func listMarkers(json: Bool) throws(PracticeError) {
        let loaded = try load().1
        var sidecar = loaded.sidecar
        sidecar.normalize()
        let markers = sidecar.liveMarkers
        // Markers whose audio this copy of the song does not have (made on a longer one).
        let missing = Set(loaded.placement?.missing ?? [])
        if json {
            Console.printJSON(.object(["version": .integer(1), "markers": .array(markers.map { m in
                var o: [String: JSONValue] = ["id": .string(m.id), "name": .string(m.name), "time": .seconds(m.time)]
                if let n = m.note { o["note"] = .string(n) }
                if let c = m.color { o["color"] = .string(c) }
                if missing.contains(m.id) { o["notInThisCopy"] = .bool(true) }
                return .object(o)
            })]))
            return
        }
        guard !markers.isEmpty else {
            Console.say("\(file): no markers yet (add one: practice markers add \(shellQuote(file)) NAME TIME)")
            return
        }
        // Names shared after a merge: show the ids' starts, and how to pick one.
        let shared = Dictionary(grouping: markers, by: { $0.name.lowercased() }).values.filter { $0.count > 1 }
        let ids = !shared.isEmpty
        let rows = markers.map { m in
            let note = missing.contains(m.id) ? "[not in this copy] " + (m.note ?? "") : m.note ?? ""
            return [Timecode.format(m.time, decimals: 3), m.name] + (ids ? [String(m.id.prefix(8))] : []) + [note]
        }
        Console.say(lines: Table.render(header: ["TIME", "NAME"] + (ids ? ["ID"] : []) + ["NOTE"], rows: rows, rightAligned: [0]))
        for group in shared.sorted(by: { $0[0].time < $1[0].time }) {
            Console.warn(["\(group.count) markers are named '\(group[0].name)': pick one as '\(group[0].name)#1' … '#\(group.count)' (by time), @TIME or by id; or rename one"])
        }
    }

    /// `practice loops list`: the loops, with their ends and lengths, as a table or as JSON.
    public func listLoops(json: Bool) throws(PracticeError) {
        let s = try loadSorted()
        let loops = s.liveLoops, ends = s.loopEnds
        if json {
            Console.printJSON(.object(["version": .integer(1), "loops": .array(loops.map { l in
                var o: [String: JSONValue] = ["id": .string(l.id), "name": .string(l.name)]
                if let a = ends.time(of: l.start) { o["start"] = .seconds(a) }
                if let b = ends.time(of: l.end) { o["end"] = .seconds(b) }
                if case .marker = l.start { o["startMarker"] = .string(ends.describe(l.start)) }
                if case .marker = l.end { o["endMarker"] = .string(ends.describe(l.end)) }
                if let n = l.note { o["note"] = .string(n) }
                return .object(o)
            })]))
            return
        }
        guard !loops.isEmpty else {
            Console.say("\(file): no loops yet (add one: practice loops add \(shellQuote(file)) NAME A B)")
            return
        }
        func end(_ p: LoopPoint) -> String {
            guard case .marker = p else { return ends.describe(p) }
            return "\(ends.describe(p)) (\(ends.time(of: p).map { Timecode.format($0, decimals: 3) } ?? "?"))"
        }
        let rows = loops.map { l -> [String] in
            var length = ""
            if let a = ends.time(of: l.start), let b = ends.time(of: l.end) { length = JSONValue.formatMilliseconds(b - a) + " s" }
            return [l.name, end(l.start), end(l.end), length, l.note ?? ""]
        }
        Console.say(lines: Table.render(header: ["NAME", "FROM", "TO", "LENGTH", "NOTE"], rows: rows, rightAligned: [3]))
    }

    /// `practice markers add`: a marker at `time` (seconds, m:ss or h:mm:ss; with `snap`, on the
    /// nearest beat of the track's grid).
    public func addMarker(name: String, at time: String, note: String?, color: String?, snap: Bool) throws(PracticeError) {
        guard let seconds = Timecode.parse(time) else {
            throw PracticeError(.usage, "'\(time.terminalSafe)' is not a time (83.5, 1:23.5 or 1:02:03.25)")
        }
        if let n = Timecode.ambiguity(time) { Terminal.write("practice: note: \(n)\n", to: STDERR_FILENO) }
        let (m, loaded) = try update { (s, track) throws(PracticeError) in
            var t = seconds
            if snap {
                guard let grid = s.beats, let k = grid.nearest(t) else {
                    throw PracticeError(.usage, "--snap: no beats known for \(Path.lastComponent(track.path)); find them with 'practice beats \(track.path)'")
                }
                t = grid.times[k]
            }
            return try s.addMarker(name: name, time: t, note: note, color: color, duration: track.duration)
        }
        Console.say("added marker '\(m.name)' at \(Timecode.format(m.time, decimals: 3)) (\(loaded.writePath))")
    }

    /// `practice markers merge`: another copy of the sidecar (`other`, a friend's) merged into
    /// this track's, lined up with this copy of the song first; prints what changed.
    public func merge(_ other: String) throws(PracticeError) {
        let theirs = try SidecarStore.read(other)
        if theirs.version > Sidecar.currentVersion {
            throw PracticeError(.dataError, "\(other): written by a newer practice (format version \(theirs.version)); cannot merge it")
        }
        SidecarStore.aligns = !noAlign
        let track = try Track.describe(file)
        // Made on another copy of the song: its times moved onto this one first.
        let copy = try OtherCopy(theirs, path: other, on: track)
        Console.warn(copy.messages.warnings)
        Console.note(copy.messages.notices)
        let (report, loaded) = try update { (s, _) throws(PracticeError) in s.merge(copy.sidecar) }
        if report.lines.isEmpty {
            Console.say("\(other): nothing new for \(loaded.writePath)")
        } else {
            Console.say("merged \(other) into \(loaded.writePath):")
            Console.say(lines: report.lines)
        }
    }

    /// `practice markers import`: markers and loops read from another program's file (`source`,
    /// in `fmt`), moved by `offset` seconds, into this track's sidecar.
    public func importMarkers(from source: String, format fmt: InterchangeFormat, offset: Double) throws(PracticeError) {
        let data = try ReadableFile.contents(of: source)
        let read: (entries: [InterchangeEntry], notes: [String])
        do { read = try Interchange.read(data, format: fmt) } catch {
            throw PracticeError(.dataError, "\(source)\(error.line.map { ":\($0)" } ?? ""): \(error.message)")
        }
        let shifted = read.entries.map { e in
            InterchangeEntry(name: e.name, start: e.start + offset, end: e.end.map { $0 + offset })
        }
        let (summary, loaded) = try update { (s, track) throws(PracticeError) in
            s.importEntries(shifted, from: fmt, duration: track.duration)
        }
        Console.note(read.notes + summary.notes)
        Console.say("imported \(summary.markers) marker\(summary.markers == 1 ? "" : "s") and \(summary.loops) loop\(summary.loops == 1 ? "" : "s") from \(source) into \(loaded.writePath)")
    }

    /// `practice markers export`: the markers and loops in `fmt`, to `output` (atomically; an
    /// existing file only with `force`) or to standard output.
    public func exportMarkers(format fmt: InterchangeFormat, to output: String?, force: Bool) throws(PracticeError) {
        if let output, FileManager.default.fileExists(atPath: output), !force {
            throw PracticeError(.cannotCreate, "\(output): already exists (use --force to replace it)")
        }
        let (track, loaded) = try load()
        let entries = loaded.sidecar.interchangeEntries(for: fmt)
        let written = Interchange.write(entries, format: fmt, audioFileName: Path.lastComponent(track.path),
                                        duration: track.duration, title: track.tags["title"])
        let loops = loaded.sidecar.liveLoops.count
        let kind = fmt == .cue ? "CUE sheets" : "LRC files"
        Console.note((fmt.holdsPointsOnly && loops > 0 ? ["\(kind) hold points only: left out \(loops) loop\(loops == 1 ? "" : "s")"] : []) + written.notes)
        if let output {
            try AtomicFile.write(written.data, to: output)
            let points = entries.filter { $0.end == nil }.count, regions = entries.count - points
            // What the format could not hold (CUE: 99 tracks, one per frame) is not counted as written.
            let what = "\(points) marker\(points == 1 ? "" : "s") and \(regions) loop\(regions == 1 ? "" : "s")"
            let wrote = written.leftOut == 0 ? what : regions == 0 ? "\(points - written.leftOut) of \(what)" : "\(entries.count - written.leftOut) of \(entries.count) (\(what))"
            Terminal.write("practice: wrote \(wrote) to \(output)\n", to: STDERR_FILENO)
        } else {
            // A file's bytes: exact into a pipe or a file, made safe only for a terminal.
            let text = String(decoding: written.data, as: UTF8.self)
            if Terminal.isTTY(STDOUT_FILENO) { Terminal.write(text, to: STDOUT_FILENO) } else { Terminal.writeRaw(text, to: STDOUT_FILENO) }
        }
    }

    /// `practice markers align`: the sidecar made on another copy of the song (`from`, or the
    /// track's own when it was made on another copy) lined up with this one, marker by marker;
    /// then kept on this copy's times (merged in, with `from`), unless `dryRun`.
    public func align(from: String?, dryRun: Bool) throws(PracticeError) {
        SidecarStore.aligns = true
        let track = try Track.describe(file)
        let source: String, theirs: Sidecar
        if let from {
            source = from
            theirs = try SidecarStore.read(from)
        } else {
            let loaded = try SidecarStore.load(for: track, explicit: sidecar)
            guard let path = loaded.readPath else {
                throw PracticeError(.noInput, "\(file): no sidecar to line up (give one with --from)")
            }
            source = path
            theirs = loaded.placement?.reference ?? loaded.sidecar
        }
        if theirs.version > Sidecar.currentVersion {
            throw PracticeError(.dataError, "\(source): written by a newer practice (format version \(theirs.version)); not lined up")
        }
        guard let recorded = theirs.audio else {
            throw PracticeError(.dataError, "\(source): does not say which recording it was made for, so it cannot be lined up")
        }
        let here = try track.identity()
        guard recorded.differences(from: here) != nil else {
            Console.say("\(source) was made for this recording (the decoded audio is the same): nothing to line up")
            return
        }
        guard recorded.chromaprint != nil else {
            throw PracticeError(.dataError, "\(source): has no fingerprint of \(recorded.fileName) to line it up by (made by an older practice); use 'markers import --offset'")
        }
        guard let map = try track.alignment(to: recorded) else {
            throw PracticeError(.unavailable, "\(file): cannot fingerprint it (Chromaprint is missing)")
        }
        guard map.isConfident else {
            throw PracticeError(.dataError, "\(source) (made for \(recorded.fileName)) does not line up with \(file) (\(map.verdict)): nothing changed")
        }
        let (placed, missing) = theirs.placed(by: map)
        Console.say("\(file) against \(source) (made for \(recorded.fileName)): \(map.isIdentity ? "no move" : "moved \(map.summary)"), \(map.score) over \(Timecode.format(map.matched, decimals: 1)) of music")
        var there = theirs
        there.normalize()
        let moved = Dictionary(placed.markers.map { ($0.id, $0.time) }, uniquingKeysWith: { a, _ in a })
        let rows = there.liveMarkers.map { m in
            [m.name, Timecode.format(m.time, decimals: 3), Timecode.format(moved[m.id] ?? m.time, decimals: 3),
             missing.contains(m.id) ? "not in this copy" : ""]
        }
        if !rows.isEmpty {
            Console.say(lines: Table.render(header: ["NAME", "THERE", "HERE", ""], rows: rows, rightAligned: [1, 2]))
        }
        if dryRun { return }
        if !missing.isEmpty { Console.note([OtherCopy.leftOut(missing, from: placed)]) }
        let taken = OtherCopy.withoutMissing(placed, missing)
        let ((), loaded) = try update { (s, track) throws(PracticeError) in
            if from != nil {
                _ = s.merge(taken)
            } else {
                s = taken
                s.audio = try track.identity()
            }
        }
        if from != nil {
            Console.say("merged into \(loaded.writePath)" + (loaded.placement != nil ? " (which keeps the times of \(loaded.sidecar.audio?.fileName ?? "its recording"))" : ""))
        } else {
            Console.say("\(loaded.writePath) is now on the times of \(Path.lastComponent(file))")
        }
    }
}

/// `practice markers merge-driver`: git's merge of two versions of a sidecar.
public enum SidecarMergeDriver {
    /// Merges `theirs` into `ours` (written there, atomically, only if it reads back), with
    /// `ancestor` telling the report which edits both sides made; `path` is the sidecar's path in
    /// the repository. What was decided is printed for git to show.
    public static func merge(ancestor: String, ours: String, theirs: String, path: String?) throws(PracticeError) {
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
           let map = try localCopy(of: ra, beside: path ?? ours)?.alignment(to: rb) ?? TimeMap.between(reference: rb, this: ra) {
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
        let candidates = [stem] + names.sorted().filter { $0.hasPrefix(stem + ".") && Track.fileExtensions.contains(Path.pathExtension($0).lowercased()) }
        for name in candidates {
            let file = folder.isEmpty ? name : folder + "/" + name
            guard FileManager.default.fileExists(atPath: file), let track = try? Track.describe(file),
                  let here = try? track.identity(), here.differences(from: identity) == nil else { continue }
            return track
        }
        return nil
    }
}
