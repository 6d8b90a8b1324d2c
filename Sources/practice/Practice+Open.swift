// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands
import PracticeSongs

extension Practice {
    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Fetch a FLO song (audio, cover, synced lyrics) into the cache and play it.",
            discussion: """
                SOURCE is a FLO song document, JSON with "singer", "album", "title", "duration" (seconds), \
                "image" (the cover's URL), "file" (the audio's URL) and "lyrics" ("[mm:ss:SSS]text" lines), \
                as a path or an http(s) URL; only "file" is required. Its audio and cover (links relative \
                to the document) are fetched into $XDG_CACHE_HOME/practice/songs/KEY/ \
                (~/.cache/practice/songs/KEY/), the lyrics are written beside the audio as AUDIO.lrc, and the \
                song plays as with 'practice play' (every play option works), showing the document's title, \
                singer and album. A second 'open' of the same SOURCE plays the cached copy without the \
                network; --refresh fetches it again. Downloads show a progress bar on a terminal.

                Exit codes: 65 a bad document, or audio that is not audio; 66 not found (a missing file, \
                HTTP 404 or 410); 69 the network (no connection, a timeout, too many redirects, another \
                HTTP error); 73 the cache cannot be written. A cover that cannot be fetched is only a warning.

                Examples:
                  practice open https://example.com/songs/warmup.json
                  practice open warmup.json --rate 0.8 --loop 0:30 0:45
                  practice open https://example.com/songs/warmup.json --refresh --timeout 10
                """)

        @Argument(help: "The song document: a path, or an http(s) URL.")
        var source: String

        @OptionGroup var options: PlayOptions

        @Option(help: "Seconds to wait for a connection, or for more data, before giving up.")
        var timeout: Double = 30

        @Flag(help: "Fetch the song again even if it is cached.")
        var refresh = false

        func validate() throws {
            guard timeout.isFinite, timeout > 0, timeout <= 3600 else {
                throw ValidationError("'--timeout' must be more than 0 and at most 3600 seconds (got '\(SoundOptions.show(timeout))')")
            }
            guard SongLocation(source: source) != nil else {
                throw ValidationError("SOURCE must be a path or an http(s) URL (got '\(source)')")
            }
        }

        func run() async throws {
            try await TrackCommands.open(SongLocation(source: source)!, name: source, timeout: timeout, refresh: refresh, play: options.command(source))
        }
    }
}
