// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSndFile
import Glibc
import PracticeSystem

/// A sound file opened for reading: with libsndfile where it reads the file (WAV, FLAC, Ogg,
/// MP3, AIFF, …), else with FFmpeg's libraries (MP4/M4A, WebM, Matroska, MOV, ASF, AC-3, …, the
/// first audio stream or the one asked for), loaded only then. Float frames, sample-accurate
/// seek, tags. Reads stream from disk, so memory does not grow with the track's length.
public struct SoundFile: ~Copyable {
    /// Opens libsndfile now, if it is not open yet (a player opens it beside its device).
    public static func loadLibrary() { _ = try? SndFile.api() }

    /// What the decoder says about an opened file.
    public struct Info: Sendable, Equatable {
        public var sampleRate: Int
        public var channels: Int
        /// Frames in the file as its headers give them (decoded, gapless for MP3; see
        /// `AudioFormat.framesAreEstimated`).
        public var frames: Int
        public var format: AudioFormat
        public var seconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
        public init(sampleRate: Int, channels: Int, frames: Int, format: AudioFormat) {
            self.sampleRate = sampleRate; self.channels = channels; self.frames = frames; self.format = format
        }
    }

    private enum Backend {
        /// A libsndfile handle, and libsndfile's functions (opened with dlopen at the first file).
        case sndfile(OpaquePointer, UnsafeMutablePointer<practice_sndfile_api>)
        case ffmpeg(FFmpegDecoder)
    }
    private let backend: Backend
    public let path: String
    public let info: Info
    /// The audio streams of a container FFmpeg reads (one for the files libsndfile reads).
    public let audioStreams: [AudioStreamInfo]

    /// Whether a seek lands on the very frame asked for, so that reading from there gives the
    /// samples reading through would: libsndfile's PCM, FLAC, Ogg and the like (not its MP3, nor
    /// FFmpeg's containers, whose seeks go by packets).
    public var seeksExactly: Bool {
        guard case .sndfile = backend else { return false }
        return info.format.major != Int32(SF_FORMAT_MPEG)
    }

    /// Opens `path` for reading: libsndfile first (`sf_open`), FFmpeg where libsndfile does not
    /// know the format, or where `audioStream` asks for a stream after the first.
    public init(path: String, audioStream: Int? = nil) throws(AudioFileError) {
        let opened = try Self.open(path, audioStream: audioStream)
        backend = opened.backend
        self.path = path
        info = opened.info
        audioStreams = opened.streams
    }

    private static func open(_ path: String, audioStream: Int?) throws(AudioFileError) -> (backend: Backend, info: Info, streams: [AudioStreamInfo]) {
        var sfinfo = SF_INFO()
        var refused: SndFileError?
        if (audioStream ?? 0) == 0 {
            let sf: UnsafeMutablePointer<practice_sndfile_api>
            do { sf = try SndFile.api() } catch { throw .sndfile(error) }
            // libmpg123 prints notes ("Trying to resync…") to stderr while libsndfile probes a file.
            if let h = withStandardErrorSilenced({ sf.pointee.open(path, Int32(SFM_READ), &sfinfo) }) {
                let info = Info(sampleRate: Int(sfinfo.samplerate), channels: Int(sfinfo.channels),
                                frames: Int(sfinfo.frames), format: AudioFormat(rawValue: sfinfo.format))
                // Floats in [-1, 1): integer PCM is divided by 2^(bits-1), which SoundFileWriter mirrors.
                _ = sf.pointee.command(h, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
                return (.sndfile(h, sf), info, [AudioStreamInfo(number: 0, codec: info.format.encoding, sampleRate: info.sampleRate, channels: info.channels)])
            }
            let error = sndfileError("sf_open", nil, path: path, sf)
            // A file it cannot open at all (permissions, a folder) is no other decoder's either.
            guard !error.isSystem else { throw .sndfile(error) }
            refused = error
        }
        let decoder: FFmpegDecoder
        do {
            decoder = try FFmpegDecoder(path: path, audioStream: audioStream)
        } catch {
            // Neither reads it: libsndfile's word where FFmpeg found no container either.
            if error.kind == .unreadable || error.kind == .unavailable, let refused {
                // A file libsndfile knows but finds broken (or in an encoding it lacks): its word.
                if refused.code == 3 || refused.code == 4 { throw .sndfile(refused) }
                throw .neither(refused, error)
            }
            throw .ffmpeg(error)
        }
        let format = AudioFormat(container: AudioFormat.containerName(decoder.containerName, path: path),
                                 encoding: AudioFormat.codecName(decoder.codecName), estimated: !decoder.framesAreExact)
        let info = Info(sampleRate: decoder.sampleRate, channels: decoder.channels, frames: decoder.frames, format: format)
        return (.ffmpeg(decoder), info, decoder.streams)
    }

    deinit {
        if case .sndfile(let h, let sf) = backend { _ = sf.pointee.close(h) }
    }

    /// Reads up to `frames` interleaved float frames into `buffer`; returns how many were read
    /// (fewer only at the end of the stream or on a decoding error; see `readError`).
    /// The corresponding C functions are `sf_readf_float` (`sf_readf_short` for 16-bit PCM) and
    /// FFmpeg's `avcodec_receive_frame`.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        switch backend {
        case .sndfile(let h, let sf):
            guard info.format.isPlainPCM16 else { return Int(sf.pointee.readf_float(h, buffer, sf_count_t(frames))) }
            // 16-bit PCM: read as shorts into the buffer's second half, then widened in place by
            // vector code (libsndfile's own conversion is a scalar loop); the same floats.
            let count = frames * info.channels
            let raw = UnsafeMutableRawPointer(buffer)
            let shorts = (raw + 2 * count).bindMemory(to: Int16.self, capacity: count)
            let n = max(0, Int(sf.pointee.readf_short(h, shorts, sf_count_t(frames))))
            convertFromInt16(shorts, buffer, count: n * info.channels)
            raw.bindMemory(to: Float.self, capacity: count)
            return n
        case .ffmpeg(let d): return d.read(into: buffer, frames: frames)
        }
    }

    /// Reads up to `frames` interleaved 16-bit frames (converted and clipped from other
    /// encodings); returns how many were read. The corresponding C function is `sf_readf_short`.
    public func readShorts(into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        switch backend {
        case .sndfile(let h, let sf):
            return Int(sf.pointee.readf_short(h, buffer, sf_count_t(frames)))
        case .ffmpeg(let d):
            let count = frames * info.channels
            var floats = [Float](repeating: 0, count: count)
            let n = floats.withUnsafeMutableBufferPointer { d.read(into: $0.baseAddress!, frames: frames) }
            for i in 0..<(n * info.channels) { buffer[i] = Int16(max(min((floats[i] * 32_768).rounded(), 32_767), -32_768)) }
            return n
        }
    }

    /// The error that stopped the last read early, if the decoder recorded one.
    public var readError: AudioFileError? {
        switch backend {
        case .sndfile(let h, let sf): sf.pointee.error(h) == 0 ? nil : .sndfile(sndfileError("sf_readf_float", h, path: path, sf))
        case .ffmpeg(let d): d.lastError.map { .ffmpeg($0) }
        }
    }

    /// Readies what seeking needs ahead of the first seek, off the caller's thread (FFmpeg's
    /// containers whose time stamps are milliseconds: where each packet starts). libsndfile's
    /// files need nothing.
    public func prepareToSeek() {
        if case .ffmpeg(let d) = backend { d.prepareToSeek() }
    }

    /// Whether the seeks use what `prepareToSeek` built ahead (for the tests).
    var seeksWithIndexBuiltAhead: Bool {
        if case .ffmpeg(let d) = backend { d.indexBuiltAhead } else { false }
    }

    /// Moves the read position to `frame`, counted from the start. The corresponding C functions
    /// are `sf_seek` and FFmpeg's `av_seek_frame` (the packet before, decoded up to the frame).
    public func seek(toFrame frame: Int) throws(AudioFileError) {
        switch backend {
        case .sndfile(let h, let sf):
            if sf.pointee.seek(h, sf_count_t(frame), SEEK_SET) < 0 { throw .sndfile(sndfileError("sf_seek", h, path: path, sf)) }
        case .ffmpeg(let d):
            do { try d.seek(toFrame: frame) } catch { throw .ffmpeg(error) }
        }
    }

    /// A tag's bytes as text: UTF-8 when they are (Vorbis comments, RIFF INFO as written today),
    /// else ISO 8859-1, which libsndfile passes on as it is in MP3s' ID3 frames ("Caf\u{E9}").
    static func text(_ c: UnsafePointer<CChar>) -> String {
        if let s = String(validatingCString: c) { return s }
        var scalars = String.UnicodeScalarView()
        var p = c
        while p.pointee != 0 { scalars.append(Unicode.Scalar(UInt8(bitPattern: p.pointee))); p += 1 }
        return String(scalars)
    }

    /// The tag strings the decoder exposes (title, artist, album, …), keyed by our names.
    /// The corresponding C functions are `sf_get_string` and FFmpeg's `av_dict_get`.
    public var tags: [String: String] {
        switch backend {
        case .sndfile(let h, let sf):
            var out: [String: String] = [:]
            for (key, id) in Tag.all {
                if let c = sf.pointee.get_string(h, id), case let s = Self.text(c), !s.isEmpty { out[key] = s }
            }
            return out
        case .ffmpeg(let d):
            return d.tags
        }
    }
}

/// Why a sound file cannot be read: libsndfile's error, FFmpeg's, or (a file neither reads) both.
public enum AudioFileError: Error, CustomStringConvertible, Sendable {
    case sndfile(SndFileError)
    case ffmpeg(FFmpegError)
    case neither(SndFileError, FFmpegError)

    /// What is wrong, for a line after the file's name.
    public var message: String {
        switch self {
        case .sndfile(let e): e.message
        case .ffmpeg(let e): e.message
        case .neither(let s, let f): "\(s.message); FFmpeg: \(f.message)"
        }
    }
    public var description: String {
        switch self {
        case .sndfile(let e): e.description
        case .ffmpeg(let e): e.description
        case .neither(let s, let f): "\(s.description); \(f.description)"
        }
    }
}

/// The tag names we expose, with libsndfile's `SF_STR_*` ids.
enum Tag {
    static let all: [(String, Int32)] = [
        ("title", Int32(SF_STR_TITLE)), ("artist", Int32(SF_STR_ARTIST)), ("album", Int32(SF_STR_ALBUM)),
        ("date", Int32(SF_STR_DATE)), ("genre", Int32(SF_STR_GENRE)), ("tracknumber", Int32(SF_STR_TRACKNUMBER)),
        ("comment", Int32(SF_STR_COMMENT)), ("copyright", Int32(SF_STR_COPYRIGHT)),
        ("license", Int32(SF_STR_LICENSE)), ("software", Int32(SF_STR_SOFTWARE)),
    ]
}

/// libsndfile's format word: a container (major) and an encoding (subtype), with readable names.
public struct AudioFormat: Sendable, Equatable, CustomStringConvertible {
    public let rawValue: Int32
    /// A format FFmpeg reads: its container's and codec's names, and whether the container's
    /// length is an estimate (no time base that counts samples, as Matroska's milliseconds).
    private var named: (container: String, encoding: String, estimated: Bool)?
    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(container: String, encoding: String, estimated: Bool) {
        rawValue = 0
        named = (container, encoding, estimated)
    }
    public static func == (a: AudioFormat, b: AudioFormat) -> Bool {
        a.rawValue == b.rawValue && a.named?.container == b.named?.container && a.named?.encoding == b.named?.encoding && a.named?.estimated == b.named?.estimated
    }

    /// A container as a user names it, from FFmpeg's demuxer name and the file's extension.
    static func containerName(_ demuxer: String, path: String) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if demuxer.hasPrefix("mov") { return ["m4a": "M4A", "m4b": "M4A", "m4p": "M4A", "mov": "MOV", "3gp": "3GP"][ext] ?? "MP4" }
        if demuxer.hasPrefix("matroska") { return ext == "webm" ? "WebM" : "Matroska" }
        return ["asf": "ASF", "ac3": "AC-3", "eac3": "E-AC-3", "aac": "ADTS", "wv": "WavPack", "ape": "APE", "tta": "TTA", "dts": "DTS", "mpc": "Musepack", "flv": "FLV", "avi": "AVI"][demuxer]
            ?? demuxer.split(separator: ",").first.map { $0.uppercased() } ?? "?"
    }

    /// A codec as a user names it.
    public static func codecName(_ codec: String) -> String {
        ["aac": "AAC", "alac": "ALAC", "opus": "Opus", "vorbis": "Vorbis", "wmav1": "WMA", "wmav2": "WMA", "wmapro": "WMA Pro", "wmalossless": "WMA Lossless",
         "ac3": "AC-3", "eac3": "E-AC-3", "mp3": "MPEG layer III", "mp3float": "MPEG layer III", "flac": "FLAC", "dts": "DTS", "wavpack": "WavPack", "ape": "APE"][codec]
            ?? (codec.hasPrefix("pcm_") ? "PCM" : codec.uppercased())
    }

    var major: Int32 { rawValue & Int32(SF_FORMAT_TYPEMASK) }
    var subtype: Int32 { rawValue & Int32(SF_FORMAT_SUBMASK) }
    /// 16-bit PCM in a container whose samples libsndfile reads with its plain PCM code (WAV,
    /// AIFF and their kin), where a float is the short divided by 32,768, as `convertFromInt16`
    /// makes it.
    var isPlainPCM16: Bool {
        subtype == Int32(SF_FORMAT_PCM_16)
            && [SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_AIFF, SF_FORMAT_W64, SF_FORMAT_RF64, SF_FORMAT_CAF].contains(Int(major))
    }

    /// Whether libsndfile's frame count is only an estimate from the header (MPEG: the decoder's
    /// delay and padding, and VBR files without a frame count, make the decoded audio differ).
    public var framesAreEstimated: Bool { named?.estimated ?? (container == "MP3") }

    /// The container, as a user would name it: "WAV", "FLAC", "Ogg", "MP3", "AIFF", …
    public var container: String {
        if let named { return named.container }
        return switch Int(major) {
        case SF_FORMAT_WAV: "WAV"
        case SF_FORMAT_WAVEX: "WAV"
        case SF_FORMAT_RF64: "RF64"
        case SF_FORMAT_AIFF: "AIFF"
        case SF_FORMAT_FLAC: "FLAC"
        case SF_FORMAT_OGG: "Ogg"
        case SF_FORMAT_MPEG: "MP3"
        case SF_FORMAT_CAF: "CAF"
        case SF_FORMAT_W64: "W64"
        case SF_FORMAT_AU: "AU"
        default: formatInfoName(major, command: Int32(SFC_GET_FORMAT_INFO)) ?? "unknown"
        }
    }

    /// The encoding: "16-bit PCM", "32-bit float", "Vorbis", "Opus", "MPEG layer III", …
    public var encoding: String {
        if let named { return named.encoding }
        return switch Int(subtype) {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8: "8-bit PCM"
        case SF_FORMAT_PCM_16: "16-bit PCM"
        case SF_FORMAT_PCM_24: "24-bit PCM"
        case SF_FORMAT_PCM_32: "32-bit PCM"
        case SF_FORMAT_FLOAT: "32-bit float"
        case SF_FORMAT_DOUBLE: "64-bit float"
        case SF_FORMAT_VORBIS: "Vorbis"
        case SF_FORMAT_OPUS: "Opus"
        case SF_FORMAT_MPEG_LAYER_III: "MPEG layer III"
        case SF_FORMAT_MPEG_LAYER_II: "MPEG layer II"
        case SF_FORMAT_MPEG_LAYER_I: "MPEG layer I"
        default: formatInfoName(subtype, command: Int32(SFC_GET_FORMAT_INFO)) ?? "unknown"
        }
    }

    /// Bits per sample for integer PCM encodings, nil for float and compressed ones.
    public var pcmBits: Int? {
        if named != nil { return nil }
        return switch Int(subtype) {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8: 8
        case SF_FORMAT_PCM_16: 16
        case SF_FORMAT_PCM_24: 24
        case SF_FORMAT_PCM_32: 32
        default: nil
        }
    }
    public var isFloat: Bool { named == nil && (Int(subtype) == SF_FORMAT_FLOAT || Int(subtype) == SF_FORMAT_DOUBLE) }

    public var description: String {
        if container == "Ogg" { return "Ogg \(encoding)" }
        if container == "MP3" { return "MP3" }
        return "\(container), \(encoding)"
    }

    private func formatInfoName(_ format: Int32, command: Int32) -> String? {
        var fi = SF_FORMAT_INFO()
        fi.format = format
        guard let sf = try? SndFile.api(), sf.pointee.command(nil, command, &fi, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
              let n = fi.name else { return nil }
        return String(cString: n)
    }
}

/// Serialises the stderr swap: two threads silencing at once would restore the wrong descriptor.
private let stderrSwap = Lock()

/// Runs `body` with file descriptor 2 pointed at /dev/null (control and decoder threads only).
func withStandardErrorSilenced<T>(_ body: () -> T) -> T {
    stderrSwap.withLock {
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        guard saved >= 0, null >= 0 else {
            if saved >= 0 { close(saved) }
            if null >= 0 { close(null) }
            return body()
        }
        dup2(null, STDERR_FILENO)
        close(null)
        defer { dup2(saved, STDERR_FILENO); close(saved) }
        return body()
    }
}
