// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands

extension Practice {
    /// `practice lyrics` (named so as not to hide PracticeCore's `Lyrics`).
    struct LyricsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lyrics",
            abstract: "Show a track's lyrics (FILE.lrc beside it), or follow a playing track line by line.",
            discussion: """
                The lyrics are an LRC file beside the track: song.mp3.lrc, else song.lrc (or --lyrics PATH). \
                Times include the file's [offset:] and the sidecar's settings.lyricsShift. \
                With --follow, run it in a second terminal: it connects to a player started with \
                '--control socket' (or '--control PATH' and the same PATH here) and prints each line \
                as it is heard, and the current one again after a seek or a loop's turn; it ends \
                when the player does. Lines can be places: --from "line 5", --loop "line 5" "line 8".

                Examples:
                  practice lyrics song.mp3
                  practice lyrics song.mp3 --lyrics ~/Downloads/song.lrc --json
                  practice song.mp3 --control socket            (then, in another terminal:)
                  practice lyrics song.mp3 --follow
                """)

        @Argument(help: "The audio file whose lyrics these are.", completion: .file(extensions: audioExtensions))
        var file: String

        @Option(help: "Read this LRC file instead of FILE.lrc.", completion: .file(extensions: ["lrc"]))
        var lyrics: String?

        @Option(name: .customLong("markers"), help: "Take settings.lyricsShift from this sidecar instead of FILE.practice.json.",
                completion: .file(extensions: ["json"]))
        var sidecar: String?

        @Flag(help: "Print JSON (keys sorted; pretty on a terminal) instead of lines.")
        var json = false

        @Flag(help: "Print each line as a running player reaches it.")
        var follow = false

        @Option(help: ArgumentHelp("With --follow: the player's control socket (default: $XDG_RUNTIME_DIR/practice/control.sock).",
                                   valueName: "path"))
        var control: String?

        func validate() throws {
            if control != nil, !follow { throw ValidationError("'--control' goes with '--follow'") }
            if json, follow { throw ValidationError("'--json' does not go with '--follow'") }
        }

        func run() throws { try TrackCommands.lyrics(file, lyrics: lyrics, sidecar: sidecar, json: json, follow: follow, control: control) }
    }
}
