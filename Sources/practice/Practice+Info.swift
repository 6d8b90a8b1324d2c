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

extension Practice {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a track's format, duration, sample rate, channels and tags.",
            discussion: """
                Examples:
                  practice info song.flac
                  practice info song.mp3 --json
                  practice info tutorial.mkv --audio-stream 1
                """)

        @Argument(help: "The audio file to describe.", completion: .file(extensions: ["wav", "flac", "ogg", "opus", "mp3", "aiff", "m4a", "mp4", "webm", "mkv", "mov"]))
        var file: String

        @Option(help: ArgumentHelp("Describe this audio stream of a container with several (from 0).", valueName: "n"))
        var audioStream: Int?

        @Flag(help: "Print a JSON document (sorted keys, with a \"version\") instead of a table.")
        var json = false

        func run() throws {
            if let audioStream, audioStream < 0 { throw ValidationError("'--audio-stream' must be 0 or more (got '\(audioStream)')") }
            let track = try Track.describe(file, audioStream: audioStream)
            let info = track.info
            let chosen = audioStream ?? 0
            // An MP3's header only estimates its length: decode it (the count is cached with the
            // track's identity, which sidecars use too) and show what plays.
            let frames = info.format.framesAreEstimated ? try TrackIdentity.of(track).pcm.frames : info.frames
            let duration = Double(frames) / Double(info.sampleRate)
            if json {
                var doc: [String: JSONValue] = [
                    "version": .integer(1), "path": .string(track.path), "container": .string(info.format.container),
                    "encoding": .string(info.format.encoding), "duration": .seconds(duration), "frames": .integer(frames),
                    "sampleRate": .integer(info.sampleRate), "channels": .integer(info.channels),
                    "tags": .object(track.tags.mapValues { .string($0) }),
                    "audioStream": .integer(chosen),
                    "audioStreams": .array(track.audioStreams.map { s in
                        var o: [String: JSONValue] = ["number": .integer(s.number), "codec": .string(s.codec), "sampleRate": .integer(s.sampleRate), "channels": .integer(s.channels)]
                        if let l = s.language { o["language"] = .string(l) }
                        if let t = s.title { o["title"] = .string(t) }
                        return .object(o)
                    }),
                ]
                // What the header said, where it differs from the decoded count (MP3).
                if frames != track.headerFrames { doc["headerFrames"] = .integer(track.headerFrames) }
                printJSON(.object(doc))
                return
            }
            var rows: [(String, String)] = [
                ("File", track.path),
                ("Format", info.format.description),
                ("Duration", frames == track.headerFrames ? "\(Timecode.format(duration, decimals: 3)) (\(frames) frames)"
                    : "\(Timecode.format(duration, decimals: 3)) (\(frames) frames decoded; the header says \(Timecode.format(Double(track.headerFrames) / Double(info.sampleRate), decimals: 3)), \(track.headerFrames) frames)"),
                ("Sample rate", "\(info.sampleRate) Hz"),
                ("Channels", "\(info.channels)"),
            ]
            // A container with several audio streams: each, and which one this is.
            if track.audioStreams.count > 1 {
                for s in track.audioStreams {
                    let about = [s.codec, "\(s.sampleRate) Hz", "\(s.channels) channel\(s.channels == 1 ? "" : "s")", s.language, s.title.map { "\"\($0)\"" }]
                        .compactMap { $0 }.joined(separator: ", ")
                    rows.append((s.number == 0 ? "Audio streams" : "", "\(s.number): \(about)\(s.number == chosen ? " (this one)" : "")"))
                }
            }
            for key in ["title", "artist", "album", "date", "genre", "tracknumber", "comment", "copyright", "license", "software"] {
                if let value = track.tags[key] { rows.append((key.prefix(1).uppercased() + key.dropFirst(), value)) }
            }
            let width = rows.map(\.0.count).max()! + 1
            let text = rows.map { "\($0.0.isEmpty ? " " : $0.0 + ":")\(String(repeating: " ", count: width - $0.0.count)) \($0.1)" }.joined(separator: "\n")
            Terminal.write(text + "\n", to: STDOUT_FILENO)
        }
    }
}
