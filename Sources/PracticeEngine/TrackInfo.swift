// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeAudio
import PracticeDocuments

/// `practice info`: what a file holds and what plays, as a table or as JSON (Formats/README.md).
public struct TrackInfo {
    public let track: Track
    /// The stream described (a container may hold several).
    public let chosen: Int
    /// Decoded frames: an MP3's header only estimates its length, so it is decoded (the count
    /// is cached with the track's identity, which sidecars use too) to show what plays.
    public let frames: Int

    public init(_ file: String, audioStream: Int?) throws(PracticeError) {
        track = try Track.describe(file, audioStream: audioStream)
        chosen = audioStream ?? 0
        frames = track.info.format.framesAreEstimated ? try TrackIdentity.of(track).pcm.frames : track.info.frames
    }

    var duration: Double { Double(frames) / Double(track.info.sampleRate) }

    public var document: JSONValue {
        let info = track.info
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
        return .object(doc)
    }

    /// `File:  …`, `Format:  …`, one fact a line, the tags last.
    public var text: String {
        let info = track.info
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
        return rows.map { "\($0.0.isEmpty ? " " : $0.0 + ":")\(String(repeating: " ", count: width - $0.0.count)) \($0.1)" }.joined(separator: "\n")
    }
}
