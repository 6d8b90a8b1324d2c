// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSndFile
import Glibc

/// A sound file opened for writing: with libsndfile, or (an M4A, which phones play) with
/// FFmpeg's AAC encoder and MP4 muxer.
///
/// Integer PCM is written with libsndfile's normalisation off and our own scale of 2^(bits-1), the
/// inverse of what reading does, so 16-bit PCM → float → 16-bit PCM is bit-exact (libsndfile's own
/// write scale is 2^(bits-1) − 1, which is off by one LSB on about 3 % of samples).
public struct SoundFileWriter: ~Copyable {
    /// The containers `practice render` writes, chosen by the output file's extension.
    public enum Container: String, Sendable, CaseIterable {
        case wav, flac, ogg, opus, mp3, aiff, m4a

        public init?(pathExtension: String) {
            switch pathExtension.lowercased() {
            case "wav", "wave": self = .wav
            case "flac": self = .flac
            case "ogg", "oga": self = .ogg
            case "opus": self = .opus
            case "mp3": self = .mp3
            case "aif", "aiff": self = .aiff
            case "m4a": self = .m4a
            default: return nil
            }
        }
        /// Whether the container stores integer PCM or float samples (the others are lossy codecs).
        public var isLossless: Bool { self == .wav || self == .flac || self == .aiff }
        /// Sample rates the encoder accepts, if it is limited (Opus: 8, 12, 16, 24 or 48 kHz).
        public var requiredSampleRate: Int? { self == .opus ? 48_000 : nil }
        public func supports(_ f: SampleFormat) -> Bool {
            switch self {
            case .wav, .aiff: true
            case .flac: f != .float
            case .ogg, .opus, .mp3, .m4a: true   // lossy: the sample format does not apply
            }
        }
    }

    /// Sample formats for lossless containers.
    public enum SampleFormat: String, Sendable, CaseIterable {
        case s16, s24, float
        var scale: Float { self == .s16 ? 32_768 : self == .s24 ? 8_388_608 : 1 }
    }

    private var handle: OpaquePointer?
    /// libsndfile's functions (opened with dlopen at the first file; nil for FFmpeg's M4A).
    private let sf: UnsafeMutablePointer<practice_sndfile_api>?
    private var encoder: FFmpegEncoder?
    public let path: String
    public let channels: Int
    private let scale: Float
    /// 16-bit PCM: converted here (`convertToInt16`) and handed over as shorts.
    private let sixteenBit: Bool
    private var scratch: [Float] = []
    private var shorts: [Int16] = []
    /// Frames scaled at a time for an integer format.
    static let scaleBlock = 4_096

    /// Creates `path` (replacing it) for writing. The corresponding C function is `sf_open`.
    public init(path: String, container: Container, sampleFormat: SampleFormat, sampleRate: Int,
                channels: Int, tags: [String: String] = [:]) throws(AudioFileError) {
        if container == .m4a {
            do { encoder = try FFmpegEncoder(path: path, sampleRate: sampleRate, channels: channels, tags: tags) } catch { throw .ffmpeg(error) }
            sf = nil
            self.path = path
            self.channels = channels
            scale = 1
            sixteenBit = false
            return
        }
        let sf: UnsafeMutablePointer<practice_sndfile_api>
        do { sf = try SndFile.api() } catch { throw .sndfile(error) }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        let subtype: Int
        switch sampleFormat {
        case .s16: subtype = SF_FORMAT_PCM_16
        case .s24: subtype = SF_FORMAT_PCM_24
        case .float: subtype = SF_FORMAT_FLOAT
        }
        switch container {
        case .wav: info.format = Int32(SF_FORMAT_WAV | subtype)
        case .aiff: info.format = Int32(SF_FORMAT_AIFF | subtype)
        case .flac: info.format = Int32(SF_FORMAT_FLAC | subtype)
        case .ogg: info.format = Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .opus: info.format = Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        case .mp3: info.format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        case .m4a: break   // FFmpeg's (above)
        }
        guard sf.pointee.format_check(&info) != 0 else {
            throw .sndfile(SndFileError(code: Int32(SF_ERR_UNSUPPORTED_ENCODING), function: "sf_format_check",
                                        message: "libsndfile cannot write \(container.rawValue) at \(sampleRate) Hz with \(channels) channels",
                                        path: path))
        }
        guard let h = sf.pointee.open(path, Int32(SFM_WRITE), &info) else {
            throw .sndfile(sndfileError("sf_open", nil, path: path, sf))
        }
        handle = h
        self.sf = sf
        self.path = path
        self.channels = channels
        let integer = container.isLossless && sampleFormat != .float
        scale = integer ? sampleFormat.scale : 1
        sixteenBit = integer && sampleFormat == .s16
        if integer {
            _ = sf.pointee.command(h, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_FALSE))
            _ = sf.pointee.command(h, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        }
        for (key, id) in Tag.all {
            guard let value = tags[key] else { continue }
            if container == .mp3 {
                // libsndfile has LAME write ID3 text as ISO 8859-1, byte for byte: UTF-8 would
                // read back as mojibake ("â€“" for "–").
                _ = sf.pointee.set_string(h, id, Self.latin1(value))
            } else {
                _ = sf.pointee.set_string(h, id, value)
            }
        }
    }

    /// `text` as ISO 8859-1 bytes (NUL-terminated): dashes, curly quotes and the ellipsis as
    /// their nearest ASCII, anything else beyond Latin-1 as "?".
    static func latin1(_ text: String) -> [CChar] {
        var out: [CChar] = []
        for u in text.unicodeScalars {
            switch u.value {
            case 0: continue
            case 1...0xFF: out.append(CChar(bitPattern: UInt8(u.value)))
            case 0x2010...0x2015, 0x2212: out.append(CChar(UInt8(ascii: "-")))
            case 0x2018, 0x2019, 0x201A, 0x2032: out.append(CChar(UInt8(ascii: "'")))
            case 0x201C, 0x201D, 0x201E, 0x2033: out.append(CChar(UInt8(ascii: "\"")))
            case 0x2026: out += [46, 46, 46]
            default: out.append(CChar(UInt8(ascii: "?")))
            }
        }
        return out + [0]
    }

    deinit { if let handle, let sf { _ = sf.pointee.close(handle) } }

    /// Writes `frames` interleaved float frames. The corresponding C functions are `sf_writef_short`
    /// (16-bit PCM) and `sf_writef_float`.
    public mutating func write(_ buffer: UnsafePointer<Float>, frames: Int) throws(AudioFileError) {
        guard frames > 0 else { return }
        if let encoder {
            do { try encoder.write(buffer, frames: frames) } catch { throw .ffmpeg(error) }
            return
        }
        guard let handle, let sf else { return }
        let written: sf_count_t
        if sixteenBit {
            // libsndfile's own conversion is a scalar loop that floors WAV and AIFF; this one is
            // vector code and rounds (`convertToInt16`). A block at a time, so that the shorts
            // stay in the cache.
            let block = Self.scaleBlock
            if shorts.count < min(frames, block) * channels { shorts = [Int16](repeating: 0, count: block * channels) }
            var done = 0
            written = shorts.withUnsafeMutableBufferPointer { out in
                while done < frames {
                    let m = min(block, frames - done)
                    convertToInt16(buffer + done * channels, out.baseAddress!, count: m * channels)
                    let w = sf.pointee.writef_short(handle, out.baseAddress!, sf_count_t(m))
                    done += Int(w)
                    if w != m { break }
                }
                return sf_count_t(done)
            }
        } else if scale == 1 {
            written = sf.pointee.writef_float(handle, buffer, sf_count_t(frames))
        } else {
            // Scaled a block at a time, so that the copy stays in the cache on its way to libsndfile
            // (a render hands over 10 s at once).
            let block = Self.scaleBlock
            if scratch.count < min(frames, block) * channels { scratch = [Float](repeating: 0, count: block * channels) }
            let s = scale
            var done = 0
            written = scratch.withUnsafeMutableBufferPointer { out in
                while done < frames {
                    let m = min(block, frames - done)
                    let from = buffer + done * channels
                    // NaN as 0, as in 16 bits (libsndfile's FLAC encoder refuses the file otherwise).
                    for i in 0..<(m * channels) { let v = from[i] * s; out[i] = v == v ? v : 0 }
                    let w = sf.pointee.writef_float(handle, out.baseAddress!, sf_count_t(m))
                    done += Int(w)
                    if w != m { break }
                }
                return sf_count_t(done)
            }
        }
        if written != frames { throw .sndfile(sndfileError(sixteenBit ? "sf_writef_short" : "sf_writef_float", handle, path: path, sf)) }
    }

    /// Finishes the file (headers, encoder flush). The corresponding C function is `sf_close`.
    public mutating func close() throws(AudioFileError) {
        if let encoder {
            self.encoder = nil
            do { try encoder.close() } catch { throw .ffmpeg(error) }
            return
        }
        guard let h = handle, let sf else { return }
        handle = nil
        let rc = sf.pointee.close(h)
        if rc != 0 {
            throw .sndfile(SndFileError(code: rc, function: "sf_close", message: sf.pointee.error_number(rc).map { String(cString: $0) } ?? "error \(rc)", path: nil))
        }
    }
}
