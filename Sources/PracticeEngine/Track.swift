// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeSystem
import PracticeDocuments

/// An audio file that libsndfile can read, checked the way a user needs it checked.
public struct Track: Sendable {
    /// The kinds of audio file we play, by extension (lower case): libsndfile's, and the
    /// containers FFmpeg decodes (a store's M4A, a video site's WebM, a tutorial's MP4).
    public static let fileExtensions: Set<String> = ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "aifc",
                                                     "m4a", "m4b", "mp4", "m4v", "mov", "webm", "mkv", "mka", "wma", "asf", "ac3"]

    public let path: String
    public let info: SoundFile.Info
    public let tags: [String: String]
    /// The frame count the file's headers give: `info.frames` unless an MP3's estimate was
    /// replaced by its decoded count.
    public let headerFrames: Int
    /// The length is a guess: an MP3 without an encoder's frame count (Xing, Info or VBRI), not
    /// decoded yet. Its audio may end a little before `duration` without being cut short.
    public var lengthIsEstimate: Bool = false
    /// The audio stream decoded (`--audio-stream N`, of a container FFmpeg reads); nil: the first.
    public var audioStream: Int?
    /// The file's audio streams (`info` lists them).
    public var audioStreams: [AudioStreamInfo] = []

    /// The title tag, or the file name when the file has none.
    public var displayTitle: String { tags["title"] ?? Path.lastComponent(path) }
    public var duration: Double { info.seconds }

    /// The sample rates a track may have: from below any recording's to 384 kHz, the highest
    /// stretched exactly (at 768 kHz a render came out 10–15 ms short at its end).
    public static let sampleRates = 1_000...384_000

    /// Opens `path`, turning every way it can be wrong into a one-line error naming the file.
    public static func open(_ path: String, audioStream: Int? = nil) throws(PracticeError) -> OpenedTrack {
        try ReadableFile.check(path, noun: "an audio file")
        // (Not FileManager's attributes: without all of Foundation linked, their size is not an `Int`.)
        if FileStamp.size(path) == 0 { throw PracticeError(.dataError, "\(path): file is empty (0 bytes)") }
        let file: SoundFile
        do {
            file = try SoundFile(path: path, audioStream: audioStream)
        } catch {
            switch error {
            case .sndfile(let e) where e.isLibraryMissing:
                throw PracticeError(.unavailable, "\(path): cannot be read: \(e.message)")
            case .sndfile(let e):
                throw PracticeError(.dataError, "\(path): not a supported audio file (libsndfile: \(e.message))")
            case .neither:
                throw PracticeError(.dataError, "\(path): not a supported audio file (neither libsndfile nor FFmpeg reads it)")
            case .ffmpeg(let e):
                switch e.kind {
                case .noSuchStream: throw PracticeError(.usage, "\(path): \(e.message)")
                case .unavailable: throw PracticeError(.unavailable, "\(path): not a format libsndfile reads, and \(e.message)")
                case .noAudio, .protected: throw PracticeError(.dataError, "\(path): \(e.message)")
                case .unreadable, .undecodable: throw PracticeError(.dataError, "\(path): cannot be decoded (FFmpeg: \(e.message))")
                }
            }
        }
        try check(file.info, path: path)
        var info = file.info
        var estimate = false
        // An MP3's length is estimated from its headers; once the audio was decoded (for its
        // identity: `info`, a sidecar), the decoded length is known, and playing uses it.
        if info.format.framesAreEstimated {
            if let known = TrackIdentity.lookup(key: TrackIdentity.cacheKey(path, audioStream: audioStream), fileName: Path.lastComponent(path)),
               known.pcm.sampleRate == info.sampleRate, known.pcm.channels == info.channels, known.pcm.frames > 0 {
                info.frames = known.pcm.frames
            } else {
                // An MP3 with the encoder's frame count is exact; a container whose time stamps
                // do not count samples (Matroska's milliseconds) is not.
                estimate = info.format.container == "MP3" ? !MPEGHeader.hasFrameCount(path) : true
            }
        }
        var track = Track(path: path, info: info, tags: file.tags, headerFrames: file.info.frames)
        track.lengthIsEstimate = estimate
        track.audioStream = audioStream
        track.audioStreams = file.audioStreams
        return OpenedTrack(track: track, file: file)
    }

    /// The track at `path` for a command that reads what it is and does not play it (`info`,
    /// markers, places): an MP4/M4A/MOV's header read without loading FFmpeg where `MP4Header`
    /// is sure of it (the same facts, checked the same way), else the opened file's (`open`,
    /// which also says what is wrong with a file that cannot be read).
    public static func describe(_ path: String, audioStream: Int? = nil) throws(PracticeError) -> Track {
        if let header = MP4Header.read(path, audioStream: audioStream) {
            try check(header.info, path: path)
            var track = Track(path: path, info: header.info, tags: header.tags, headerFrames: header.info.frames)
            track.audioStream = audioStream
            track.audioStreams = header.streams
            return track
        }
        return try open(path, audioStream: audioStream).track
    }

    /// What a decoder said of `path`, refused where no recording could have it.
    private static func check(_ info: SoundFile.Info, path: String) throws(PracticeError) {
        guard info.channels > 0, info.sampleRate > 0 else {
            throw PracticeError(.dataError, "\(path): not a supported audio file (no channels or sample rate)")
        }
        // Below 1000 Hz SoundTouch's windows shrink to nothing (a stretch never ends) and Chromaprint
        // refuses; a header that says 2 GHz hung playing, rendering and marking. No recording is
        // made at either; such a header is wrong.
        guard Self.sampleRates.contains(info.sampleRate) else {
            throw PracticeError(.dataError, "\(path): a sample rate of \(info.sampleRate) Hz is not one practice plays (\(Self.sampleRates.lowerBound) to \(Self.sampleRates.upperBound) Hz)")
        }
        guard info.channels <= TimeStretcher.maxChannels else {
            throw PracticeError(.dataError, "\(path): \(info.channels) channels are more than practice plays (\(TimeStretcher.maxChannels) at most)")
        }
        guard info.frames > 0 else { throw PracticeError(.dataError, "\(path): contains no audio") }
    }

    /// The frame nearest `seconds`, within the track.
    public func frame(clamping seconds: Double) -> Int {
        min(max(Int((seconds * Double(info.sampleRate)).rounded()), 0), info.frames)
    }

    /// Converts a user's time to a frame, or an error if it lies outside the track.
    public func frame(at seconds: Double, option: String, allowEnd: Bool = false) throws(PracticeError) -> Int {
        let frame = Int((seconds * Double(info.sampleRate)).rounded())
        guard seconds >= 0, allowEnd ? frame <= info.frames : frame < info.frames else {
            throw PracticeError(.usage, "\(option) \(Timecode.format(seconds, decimals: 3)) is past the end of \(path) (\(Timecode.format(duration, decimals: 3)))")
        }
        return frame
    }
}

/// Where playback or a render runs, in frames: `start..<end`, or a loop after a lead-in from `start`.
struct PlayRange {
    var start: Int
    var end: Int
    var loop: LoopRegion?
}

extension Track {
    /// Checks `--from`, `--to` and a loop against the track. A loop starts at `from` when given
    /// (a lead-in), else at its own start; `--to` does not apply to it.
    func playRange(from: Double?, to: Double?, loop: LoopRange?) throws(PracticeError) -> PlayRange {
        var region: LoopRegion?
        if let loop {
            try Player.check(loop, in: self)
            region = LoopRegion(start: frame(clamping: loop.start), end: frame(clamping: loop.end), passes: loop.passes, rehearsal: loop.rehearsal)
        }
        let start = try from.map { (s) throws(PracticeError) in try frame(at: s, option: "--from") } ?? region?.start ?? 0
        let end = try to.map { (s) throws(PracticeError) in try frame(at: s, option: "--to", allowEnd: true) } ?? info.frames
        guard end > start else { throw PracticeError(.usage, "--to must be after --from") }
        if let region, start >= region.end {
            throw PracticeError(.usage, "--from must be before the loop's end (\(Timecode.format(Double(region.end) / Double(info.sampleRate), decimals: 3)))")
        }
        return PlayRange(start: start, end: end, loop: region)
    }
}

/// A checked track and its open file, ready to hand to a pipeline.
public struct OpenedTrack: ~Copyable {
    public let track: Track
    public var file: SoundFile
}

/// What an MPEG audio file's first frame says about its length.
enum MPEGHeader {
    /// Whether the first audio frame carries an encoder's frame count (LAME's "Xing" or "Info",
    /// Fraunhofer's "VBRI"), so the length from the headers is exact. Skips an ID3v2 tag first.
    static func hasFrameCount(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 10)
        guard pread(fd, &head, 10, 0) == 10 else { return false }
        var offset = 0
        if head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 {   // "ID3": a syncsafe size follows the flags
            offset = 10 + (Int(head[6] & 0x7F) << 21 | Int(head[7] & 0x7F) << 14 | Int(head[8] & 0x7F) << 7 | Int(head[9] & 0x7F))
            if head[5] & 0x10 != 0 { offset += 10 }             // a footer
        }
        var frame = [UInt8](repeating: 0, count: 4_096)
        let n = pread(fd, &frame, frame.count, off_t(offset))
        guard n > 4 else { return false }
        // The frame count sits in the first frame, after its side information (within 200 bytes of its sync).
        guard let sync = (0..<(n - 1)).first(where: { frame[$0] == 0xFF && frame[$0 + 1] & 0xE0 == 0xE0 }) else { return false }
        let window = frame[sync..<min(sync + 200, n)]
        for tag in ["Xing", "Info", "VBRI"].map({ Array($0.utf8) }) {
            if window.indices.contains(where: { i in i + 4 <= window.endIndex && Array(window[i..<(i + 4)]) == tag }) { return true }
        }
        return false
    }
}
