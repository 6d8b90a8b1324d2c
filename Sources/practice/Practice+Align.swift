// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeEngine

extension Practice.Markers {
    struct Align: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "align",
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
            try target.sidecarTarget.align(from: from, dryRun: dryRun)
        }
    }
}
