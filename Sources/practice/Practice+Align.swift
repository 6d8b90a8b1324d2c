// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeTUI
import PracticeDocuments
import PracticeEngine

/// Another copy's sidecar (a friend's, made on their copy of the song) lined up with `track`
/// (`SidecarStore.lineUp`), without the markers whose music this copy does not have.
struct OtherCopy {
    var sidecar: Sidecar
    var messages: (warnings: [String], notices: [String])

    init(_ theirs: Sidecar, path: String, on track: Track) throws(PracticeError) {
        let linedUp = try SidecarStore.lineUp(theirs, readFrom: path, on: track)
        // Asked for: how it lines up is said every time.
        messages = (linedUp.warnings, (linedUp.notices.isEmpty ? linedUp.alignment.map { [$0] } ?? [] : linedUp.notices).map { "\(path): \($0)" })
        sidecar = linedUp.sidecar
        if let missing = linedUp.placement?.missing, !missing.isEmpty {
            messages.notices.append(Self.leftOut(missing, from: sidecar))
            sidecar = Self.withoutMissing(sidecar, missing)
        }
    }

    /// Markers whose audio a copy does not have are not taken onto it: there is no place for them.
    static func withoutMissing(_ s: Sidecar, _ missing: [String]) -> Sidecar {
        var out = s
        out.markers.removeAll { missing.contains($0.id) }
        return out
    }

    static func leftOut(_ missing: [String], from s: Sidecar) -> String {
        let names = s.markers.filter { missing.contains($0.id) }.map { "'\($0.name)'" }
        return "left out \(names.joined(separator: ", ")): \(names.count == 1 ? "its" : "their") music is not in this copy"
    }
}

extension Practice.Markers {
    struct Align: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Line up a sidecar made on another copy of the song with this one, and keep it on this copy's times.",
            discussion: """
                Copies of a song differ: another encoding, another sample rate, silence added or \
                trimmed, a section cut. Their fingerprints (kept in every sidecar) show how the \
                music lines up, and the markers, loops and the lyrics' shift move with it; \
                markers in audio this copy does not have are shown as such. Every command does \
                this by itself whenever a sidecar meets another copy (and keeps the sidecar on \
                the copy it was made on, so a crew shares one timeline). This command shows it \
                marker by marker, and then makes the sidecar this copy's own: FILE's sidecar \
                (or --markers) is rewritten on this copy's times, or, with --from, the other \
                sidecar's markers are merged into it. --dry-run only shows.

                Examples:
                  practice markers align song.mp3
                  practice markers align song.mp3 --from ~/Downloads/song.flac.practice.json
                  practice markers align song.mp3 --from friend.practice.json --dry-run
                """)
        @OptionGroup var target: SidecarOptions
        @Option(help: "A sidecar made on another copy (a friend's), to line up and merge in.", completion: .file(extensions: ["json"]))
        var from: String?
        @Flag(help: "Show the alignment; change nothing.") var dryRun = false

        func run() throws {
            SidecarStore.aligns = true
            let track = try Track.describe(target.file)
            let source: String, theirs: Sidecar
            if let from {
                source = from
                theirs = try SidecarStore.read(from)
            } else {
                let loaded = try SidecarStore.load(for: track, explicit: target.sidecar)
                guard let path = loaded.readPath else {
                    throw PracticeError(.noInput, "\(target.file): no sidecar to line up (give one with --from)")
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
                say("\(source) was made for this recording (the decoded audio is the same): nothing to line up")
                return
            }
            guard recorded.chromaprint != nil else {
                throw PracticeError(.dataError, "\(source): has no fingerprint of \(recorded.fileName) to line it up by (made by an older practice); use 'markers import --offset'")
            }
            guard let map = try track.alignment(to: recorded) else {
                throw PracticeError(.unavailable, "\(target.file): cannot fingerprint it (Chromaprint is missing)")
            }
            guard map.isConfident else {
                throw PracticeError(.dataError, "\(source) (made for \(recorded.fileName)) does not line up with \(target.file) (\(map.verdict)): nothing changed")
            }
            let (placed, missing) = theirs.placed(by: map)
            say("\(target.file) against \(source) (made for \(recorded.fileName)): \(map.isIdentity ? "no move" : "moved \(map.summary)"), \(map.score) over \(Timecode.format(map.matched, decimals: 1)) of music")
            var there = theirs
            there.normalize()
            let moved = Dictionary(placed.markers.map { ($0.id, $0.time) }, uniquingKeysWith: { a, _ in a })
            let rows = there.liveMarkers.map { m in
                [m.name, Timecode.format(m.time, decimals: 3), Timecode.format(moved[m.id] ?? m.time, decimals: 3),
                 missing.contains(m.id) ? "not in this copy" : ""]
            }
            if !rows.isEmpty {
                for line in Table.render(header: ["NAME", "THERE", "HERE", ""], rows: rows, rightAligned: [1, 2]) { say(line) }
            }
            if dryRun { return }
            if !missing.isEmpty { note([OtherCopy.leftOut(missing, from: placed)]) }
            let taken = OtherCopy.withoutMissing(placed, missing)
            let ((), loaded) = try target.update { (s, track) throws(PracticeError) in
                if from != nil {
                    _ = s.merge(taken)
                } else {
                    s = taken
                    s.audio = try track.identity()
                }
            }
            if from != nil {
                say("merged into \(loaded.writePath)" + (loaded.placement != nil ? " (which keeps the times of \(loaded.sidecar.audio?.fileName ?? "its recording"))" : ""))
            } else {
                say("\(loaded.writePath) is now on the times of \(Path.lastComponent(target.file))")
            }
        }
    }
}
