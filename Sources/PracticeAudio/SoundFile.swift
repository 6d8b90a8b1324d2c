internal import CSndFile
import Glibc
import Synchronization

/// A sound file opened for reading with libsndfile: float frames, sample-accurate seek, tags.
/// Reads stream from disk, so memory does not grow with the track's length.
public struct SoundFile: ~Copyable {
    /// What libsndfile says about an opened file.
    public struct Info: Sendable, Equatable {
        public var sampleRate: Int
        public var channels: Int
        /// Frames in the file as libsndfile reports them (decoded, gapless for MP3).
        public var frames: Int
        public var format: AudioFormat
        public var seconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
        public init(sampleRate: Int, channels: Int, frames: Int, format: AudioFormat) {
            self.sampleRate = sampleRate; self.channels = channels; self.frames = frames; self.format = format
        }
    }

    private let handle: OpaquePointer
    public let path: String
    public let info: Info

    /// Opens `path` for reading. The corresponding C function is `sf_open`.
    public init(path: String) throws(SndFileError) {
        var sfinfo = SF_INFO()
        // libmpg123 prints notes ("Trying to resync…") to stderr while libsndfile probes a file.
        guard let h = withStandardErrorSilenced({ sf_open(path, Int32(SFM_READ), &sfinfo) }) else {
            throw sndfileError("sf_open", nil, path: path)
        }
        handle = h
        self.path = path
        info = Info(sampleRate: Int(sfinfo.samplerate), channels: Int(sfinfo.channels),
                    frames: Int(sfinfo.frames), format: AudioFormat(rawValue: sfinfo.format))
        // Floats in [-1, 1): integer PCM is divided by 2^(bits-1), which SoundFileWriter mirrors.
        sf_command(h, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
    }

    deinit { sf_close(handle) }

    /// Reads up to `frames` interleaved float frames into `buffer`; returns how many were read
    /// (fewer only at the end of the stream or on a decoding error; see `readError`).
    /// The corresponding C function is `sf_readf_float`.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
    }

    /// Reads up to `frames` interleaved 16-bit frames (libsndfile converts and clips other
    /// encodings); returns how many were read. The corresponding C function is `sf_readf_short`.
    public func readShorts(into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        Int(sf_readf_short(handle, buffer, sf_count_t(frames)))
    }

    /// The error that stopped the last read early, if libsndfile recorded one.
    /// The corresponding C function is `sf_error`.
    public var readError: SndFileError? {
        sf_error(handle) == 0 ? nil : sndfileError("sf_readf_float", handle, path: path)
    }

    /// Moves the read position to `frame`, counted from the start. The corresponding C function is `sf_seek`.
    public func seek(toFrame frame: Int) throws(SndFileError) {
        if sf_seek(handle, sf_count_t(frame), SEEK_SET) < 0 {
            throw sndfileError("sf_seek", handle, path: path)
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

    /// The tag strings libsndfile exposes (title, artist, album, …), keyed by our names.
    /// The corresponding C function is `sf_get_string`.
    public var tags: [String: String] {
        var out: [String: String] = [:]
        for (key, id) in Tag.all {
            if let c = sf_get_string(handle, id), case let s = Self.text(c), !s.isEmpty { out[key] = s }
        }
        return out
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
    public init(rawValue: Int32) { self.rawValue = rawValue }

    var major: Int32 { rawValue & Int32(SF_FORMAT_TYPEMASK) }
    var subtype: Int32 { rawValue & Int32(SF_FORMAT_SUBMASK) }

    /// Whether libsndfile's frame count is only an estimate from the header (MPEG: the decoder's
    /// delay and padding, and VBR files without a frame count, make the decoded audio differ).
    public var framesAreEstimated: Bool { container == "MP3" }

    /// The container, as a user would name it: "WAV", "FLAC", "Ogg", "MP3", "AIFF", …
    public var container: String {
        switch Int(major) {
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
        switch Int(subtype) {
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
        switch Int(subtype) {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8: 8
        case SF_FORMAT_PCM_16: 16
        case SF_FORMAT_PCM_24: 24
        case SF_FORMAT_PCM_32: 32
        default: nil
        }
    }
    public var isFloat: Bool { Int(subtype) == SF_FORMAT_FLOAT || Int(subtype) == SF_FORMAT_DOUBLE }

    public var description: String {
        if container == "Ogg" { return "Ogg \(encoding)" }
        if container == "MP3" { return "MP3" }
        return "\(container), \(encoding)"
    }

    private func formatInfoName(_ format: Int32, command: Int32) -> String? {
        var fi = SF_FORMAT_INFO()
        fi.format = format
        guard sf_command(nil, command, &fi, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let n = fi.name else { return nil }
        return String(cString: n)
    }
}

/// Serialises the stderr swap: two threads silencing at once would restore the wrong descriptor.
private let stderrSwap = Mutex<Void>(())

/// Runs `body` with file descriptor 2 pointed at /dev/null (control and decoder threads only).
func withStandardErrorSilenced<T>(_ body: () -> T) -> T {
    stderrSwap.withLock { _ in
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
