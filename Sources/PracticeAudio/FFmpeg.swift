// SPDX-License-Identifier: GPL-3.0-or-later
internal import CFFmpeg
import Glibc
import PracticeSystem
import Synchronization

/// An error reported by FFmpeg's libraries (or found in what they returned): what is wrong, the
/// C function, FFmpeg's code and message (`av_strerror`), and the path.
public struct FFmpegError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The libraries could not be loaded.
        case unavailable
        /// No container FFmpeg knows, or a broken one.
        case unreadable
        /// A container with no audio stream (a silent video).
        case noAudio
        /// `--audio-stream N` past the streams there are.
        case noSuchStream
        /// Encrypted samples (an iTunes `.m4p`, CENC).
        case protected
        /// A stream FFmpeg has no decoder for, or whose packets it cannot decode.
        case undecodable
    }
    public let kind: Kind
    public let code: Int32
    public let function: String
    public let message: String
    public let path: String?

    public var description: String {
        let prefix = path.map { "\($0): " } ?? ""
        return "\(prefix)\(function): \(message)\(code != 0 ? " (\(code))" : "")"
    }
}

/// FFmpeg's functions, resolved the first time a file needs them.
private let loaded: (api: practice_ffmpeg_api?, problem: String?) = {
    var api = practice_ffmpeg_api()
    if let problem = practice_ffmpeg_load(&api) { return (nil, String(cString: problem)) }
    // FFmpeg's own notes go nowhere: every failure reaches the user as one line of ours.
    api.log_set_level(AV_LOG_QUIET)
    return (api, nil)
}()

extension SoundFile {
    /// Whether the file starts as the containers FFmpeg reads for us do (MP4/M4A/MOV, Matroska/
    /// WebM, ASF/WMA): read from its first 8 bytes, without loading FFmpeg.
    public static func isContainer(_ path: String) -> Bool {
        var head = [UInt8](repeating: 0, count: 8)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        let n = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 8) }
        Glibc.close(fd)
        guard n == 8 else { return false }
        let mp4 = head[4..<8].elementsEqual("ftyp".utf8)
        let ebml = head[0..<4].elementsEqual([0x1A, 0x45, 0xDF, 0xA3])
        let asf = head.elementsEqual([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11])
        return mp4 || ebml || asf
    }

    /// Starts loading FFmpeg's libraries on a thread of their own when `path` begins as a
    /// container libsndfile does not read (MP4/M4A/MOV's `ftyp`, Matroska/WebM's EBML, ASF):
    /// about 33 ms of binding 134 libraries, done beside the rest of a player's setup; the first
    /// decoder waits for what is left. Nothing otherwise, or once they are loading.
    public static func prepare(_ path: String) {
        guard isContainer(path), !loading.exchange(true, ordering: .relaxed) else { return }
        _ = ControlThread(name: "practice-ffmpeg") { _ = loaded }   // not joined: detached
    }
}

private let loading = Atomic<Bool>(false)

private func ffmpegAPI() throws(FFmpegError) -> practice_ffmpeg_api {
    guard let api = loaded.api else {
        throw FFmpegError(kind: .unavailable, code: 0, function: "dlopen", message: "FFmpeg's libraries cannot be loaded (\(loaded.problem ?? "?"))", path: nil)
    }
    return api
}

/// FFmpeg's text for an error code (the one chokepoint for its codes).
private func ffmpegMessage(_ api: practice_ffmpeg_api, _ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    _ = api.strerror(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension FFmpegError {
    /// What FFmpeg's `function` returned (`code`), in its own words unless `message` says it:
    /// the one chokepoint for its codes.
    init(_ kind: Kind, _ function: String, _ code: Int32, api: practice_ffmpeg_api, path: String?, message: String? = nil) {
        self.init(kind: kind, code: code, function: function, message: message ?? ffmpegMessage(api, code), path: path)
    }
}

/// FFmpeg's name for a codec ("aac", "opus").
/// A decoder opened for `parameters` (on one thread), or the function that failed with FFmpeg's
/// code (`avcodec_find_decoder` and 0: FFmpeg has none for the codec). The caller frees it.
private func openDecoder(_ parameters: UnsafeMutablePointer<AVCodecParameters>, api: practice_ffmpeg_api)
    -> (context: UnsafeMutablePointer<AVCodecContext>?, failed: String, code: Int32) {
    guard let decoder = api.find_decoder(parameters.pointee.codec_id) else { return (nil, "avcodec_find_decoder", 0) }
    var codec = api.alloc_context(decoder)
    guard let context = codec else { return (nil, "avcodec_alloc_context3", -ENOMEM) }
    var rc = api.parameters_to_context(context, parameters)
    if rc >= 0 {
        context.pointee.thread_count = 1
        rc = api.open_codec(context, decoder, nil)
    }
    guard rc >= 0 else { api.free_context(&codec); return (nil, "avcodec_open2", rc) }
    return (context, "", 0)
}

private func ffmpegCodecName(_ api: practice_ffmpeg_api, _ id: AVCodecID) -> String {
    api.codec_name(id).map { String(cString: $0) } ?? "unknown"
}

/// One audio stream of a container, as `info` lists them.
public struct AudioStreamInfo: Sendable, Equatable {
    /// Counted among the container's audio streams, from 0 (`--audio-stream N`).
    public var number: Int
    /// As `AudioFormat.encoding` names it ("AAC", "Opus").
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var language: String?
    public var title: String?
}

/// A file FFmpeg reads (MP4/M4A, WebM, Matroska, MOV, ASF, AC-3, …): one of its audio streams
/// decoded to interleaved floats, with sample-accurate seeks (from the packet before, what
/// precedes the requested sample dropped) and the length the container gives (the encoder's
/// priming removed by FFmpeg; its padding cut where the container's time base counts samples).
final class FFmpegDecoder {
    let api: practice_ffmpeg_api
    let path: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let stream: Int32
    let streams: [AudioStreamInfo]
    let sampleRate: Int
    let channels: Int
    /// The frames the container says the stream has, and whether that is exact.
    let frames: Int
    let framesAreExact: Bool
    /// The container's and the codec's names, as FFmpeg gives them ("mov,mp4,m4a,3gp,3g2,mj2", "aac").
    let containerName: String
    let codecName: String
    let tags: [String: String]
    /// The stream's time base (seconds a tick).
    private let timeBase: Double
    /// The time stamp (ticks) of the first sample heard: frame positions count from it.
    private var origin: Int64?
    /// Decoded samples not handed out yet (interleaved), from `pendingStart`.
    private var pending: [Float] = []
    private var pendingStart = 0
    /// The frame (of the stream) `pending[pendingStart]` is.
    private var position = 0
    /// After a seek: where the next decoded frame is, from its time stamp; samples before
    /// `target` dropped.
    private var placing = false
    private var target = 0
    /// Where the first frame decoded after the last seek starts.
    private var placed = 0
    private var ended = false
    private(set) var lastError: FFmpegError?
    /// A packet came with encryption info (it cannot be decoded without its key).
    private var encrypted = false
    /// Where each packet's audio starts, for containers whose time stamps are rounded (built
    /// ahead by `prepareToSeek`, else at the first seek).
    private var index: PacketIndex?
    /// The index being built on a thread of its own (`prepareToSeek`), and whether the one in
    /// use came from there.
    private var building: IndexBuild?
    private(set) var indexBuiltAhead = false

    /// Opens `path` (its `audioStream`th audio stream, the first by default).
    init(path: String, audioStream: Int? = nil) throws(FFmpegError) {
        let api = try ffmpegAPI()
        self.api = api
        self.path = path
        func fail(_ kind: FFmpegError.Kind, _ function: String, _ code: Int32 = 0, _ message: String? = nil) -> FFmpegError {
            FFmpegError(kind, function, code, api: api, path: path, message: message)
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        var rc = api.open_input(&context, path, nil, nil)
        guard rc >= 0, let context else { throw fail(.unreadable, "avformat_open_input", rc) }
        format = context
        rc = api.find_stream_info(context, nil)
        guard rc >= 0 else { api.close_input(&format); throw fail(.unreadable, "avformat_find_stream_info", rc) }
        // The audio streams, numbered among themselves.
        var audio: [(index: Int32, info: AudioStreamInfo)] = []
        for i in 0..<Int(context.pointee.nb_streams) {
            guard let s = context.pointee.streams[i], let p = s.pointee.codecpar, p.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            func entry(_ key: String) -> String? { api.dict_get(s.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) } }
            audio.append((Int32(i), AudioStreamInfo(number: audio.count, codec: AudioFormat.codecName(ffmpegCodecName(api, p.pointee.codec_id)),
                                                    sampleRate: Int(p.pointee.sample_rate), channels: Int(p.pointee.ch_layout.nb_channels),
                                                    language: entry("language"), title: entry("title"))))
        }
        streams = audio.map(\.info)
        guard !audio.isEmpty else { api.close_input(&format); throw fail(.noAudio, "avformat_find_stream_info", 0, "has no audio track") }
        let chosen = audioStream ?? 0
        guard audio.indices.contains(chosen) else {
            api.close_input(&format)
            throw fail(.noSuchStream, "--audio-stream", 0, "has no audio stream \(chosen) (\(audio.count == 1 ? "only 0" : "0 to \(audio.count - 1)"))")
        }
        stream = audio[chosen].index
        let s = context.pointee.streams[Int(stream)]!
        let parameters = s.pointee.codecpar!
        // Encrypted samples: an iTunes store's protected AAC ('drms'), or common encryption.
        let tag = parameters.pointee.codec_tag
        let protectedTags: [UInt32] = ["drms", "drmi", "enca", "encv"].map { $0.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) } }
        let keyed = (0..<Int(s.pointee.nb_side_data)).contains { s.pointee.side_data[$0].type == AV_PKT_DATA_ENCRYPTION_INIT_INFO }
        if protectedTags.contains(tag) || keyed {
            api.close_input(&format)
            throw fail(.protected, "avformat_open_input", 0, "is protected (DRM); practice cannot decode it")
        }
        let opened = openDecoder(parameters, api: api)
        guard let decoding = opened.context else {
            // (Named before the container, which holds the parameters, is closed.)
            let name = ffmpegCodecName(api, parameters.pointee.codec_id)
            api.close_input(&format)
            if opened.code == 0 { throw fail(.undecodable, opened.failed, 0, "FFmpeg has no decoder for its \(name) audio") }
            throw fail(.undecodable, opened.failed, opened.code)
        }
        codec = decoding
        packet = api.packet_alloc()
        frame = api.frame_alloc()
        sampleRate = Int(codec!.pointee.sample_rate)
        channels = Int(codec!.pointee.ch_layout.nb_channels)
        timeBase = Double(s.pointee.time_base.num) / Double(max(s.pointee.time_base.den, 1))
        codecName = ffmpegCodecName(api, parameters.pointee.codec_id)
        containerName = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "?"
        // The length: the stream's duration, exact where its ticks are samples (MP4's edit
        // list); else the stream's or the container's duration, an estimate.
        let nopts = practice_av_nopts()
        let ticksAreSamples = s.pointee.time_base.num == 1 && Int(s.pointee.time_base.den) == sampleRate
        if s.pointee.duration != nopts, s.pointee.duration > 0 {
            frames = ticksAreSamples ? Int(s.pointee.duration) : Int((Double(s.pointee.duration) * timeBase * Double(sampleRate)).rounded())
            framesAreExact = ticksAreSamples
        } else if let tagged = api.dict_get(s.pointee.metadata, "DURATION", nil, 0).flatMap({ Self.duration(String(cString: $0.pointee.value)) }) {
            // Matroska keeps a stream's length in its tags (the container's is its longest
            // stream's: a tutorial's shorter second soundtrack is not that long).
            frames = Int((tagged * Double(sampleRate)).rounded())
            framesAreExact = false
        } else if context.pointee.duration != nopts, context.pointee.duration > 0 {
            frames = Int((Double(context.pointee.duration) / Double(AV_TIME_BASE) * Double(sampleRate)).rounded())
            framesAreExact = false
        } else {
            frames = 0
            framesAreExact = false
        }
        // Tags: the container's, then the stream's (Matroska keeps them on either), keyed by our
        // names (lower case, as FFmpeg's are; "track" is our "tracknumber").
        var tags: [String: String] = [:]
        for (dictionary, ofStream) in [(context.pointee.metadata, false), (s.pointee.metadata, true)] {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>?
            while let e = api.dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
                entry = e
                var key = String(cString: e.pointee.key).lowercased()
                if key == "track" { key = "tracknumber" }
                let value = String(cString: e.pointee.value)
                // A stream's title names the stream ("Voice"), not the song.
                if ofStream && key == "title" { continue }
                if ["title", "artist", "album", "date", "genre", "tracknumber", "comment", "copyright"].contains(key), !value.isEmpty, tags[key] == nil { tags[key] = value }
            }
        }
        self.tags = tags
        // The first frame decoded now: a stream whose packets do not decode is refused here, and
        // where the audio starts (its first time stamp) is known.
        // A stream whose decoder knows no rate or channels (a damaged header) plays nothing.
        guard sampleRate > 0, channels > 0 else {
            close()
            throw fail(.undecodable, "avcodec_open2", 0, "its audio has no sample rate or channels")
        }
        let decoded = decode()
        // Encrypted samples without their key (common encryption): FFmpeg's demuxer refuses to
        // read them (EPERM) or passes them on marked.
        if encrypted || lastError?.code == -EPERM {
            close()
            throw fail(.protected, "av_read_frame", 0, "is protected (DRM); practice cannot decode it")
        }
        guard decoded else {
            let error = lastError ?? fail(.undecodable, "avcodec_receive_frame", 0, "contains no audio FFmpeg can decode")
            close()
            throw error
        }
    }

    deinit { close() }

    /// Seconds from a Matroska `DURATION` tag ("00:03:25.480000000"); nil if it is not one.
    static func duration(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]), let s = Double(parts[2]),
              (0..<100_000).contains(h), (0..<60).contains(m), s >= 0, s < 60 else { return nil }
        let seconds = Double(h * 3_600 + m * 60) + s
        return seconds > 0 && seconds < 1e7 ? seconds : nil
    }

    private func close() {
        building = nil   // (its deinit waits for its thread)
        if frame != nil { api.frame_free(&frame) }
        if packet != nil { api.packet_free(&packet) }
        if codec != nil { api.free_context(&codec) }
        if format != nil { api.close_input(&format) }
    }

    /// Decodes the next frame of the stream into `pending`; false at the end (or on an error,
    /// kept in `lastError`).
    private func decode() -> Bool {
        guard !ended, let codec, let frame, let packet, let format else { return false }
        while true {
            let rc = api.receive_frame(codec, frame)
            if rc >= 0 {
                defer { api.frame_unref(frame) }
                append(frame)
                return true
            }
            if rc == practice_averror_eof() { ended = true; return false }
            guard rc == practice_averror_eagain() else {
                lastError = FFmpegError(.undecodable, "avcodec_receive_frame", rc, api: api, path: path)
                ended = true
                return false
            }
            // Another packet of our stream (others skipped), or the end: the decoder drained.
            var read: Int32
            repeat {
                api.packet_unref(packet)
                read = api.read_frame(format, packet)
            } while read >= 0 && packet.pointee.stream_index != stream
            if read < 0 {
                if read != practice_averror_eof() {
                    lastError = FFmpegError(.undecodable, "av_read_frame", read, api: api, path: path)
                }
                _ = api.send_packet(codec, nil)
                continue
            }
            // Encrypted without its key (common encryption): FFmpeg passes the packets on as they
            // are, with how they were encrypted beside them.
            if !encrypted, let side = packet.pointee.side_data {
                encrypted = (0..<Int(packet.pointee.side_data_elems)).contains { side[$0].type == AV_PKT_DATA_ENCRYPTION_INFO }
            }
            let sent = api.send_packet(codec, packet)
            api.packet_unref(packet)
            // A packet that does not decode (a damaged one) is skipped, as players do.
            if sent < 0, sent != practice_averror_eagain() { lastError = FFmpegError(.undecodable, "avcodec_send_packet", sent, api: api, path: path) }
        }
    }

    /// A decoded frame appended to `pending` as interleaved floats (after a seek, placed by its
    /// time stamp, what precedes the target dropped); or, where `direct` has room for all of it
    /// and nothing is pending or dropped, written there and counted in `directFrames` (the
    /// reader's buffer: one copy fewer of every sample).
    private func append(_ frame: UnsafeMutablePointer<AVFrame>) {
        let count = Int(frame.pointee.nb_samples), channels = self.channels
        guard count > 0, Int(frame.pointee.ch_layout.nb_channels) == channels else { return }
        let stamp = frame.pointee.best_effort_timestamp
        if origin == nil { origin = stamp == practice_av_nopts() ? 0 : stamp }
        let remaining = (pending.count - pendingStart) / channels
        // The frame (of the stream) this one starts at: counted on from the last one, or after a
        // seek, from its time stamp.
        var first = position + remaining
        let wasPlacing = placing
        if placing {
            if stamp != practice_av_nopts(), let exact = index?.position(of: stamp) {
                first = exact
            } else if stamp != practice_av_nopts(), let origin {
                first = Int((Double(stamp - origin) * timeBase * Double(sampleRate)).rounded())
            } else {
                first = target
            }
            placed = first
            placing = false
        }
        if wasPlacing || remaining == 0 {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            position = first
        }
        guard let data = frame.pointee.extended_data else { return }
        let drop = min(max(target - first, 0), count)
        // Straight into the reader's buffer: all of it fits, none is dropped, and (where the
        // length is exact) none is past the end.
        if let direct, remaining == 0, drop == 0, count <= direct.room, !framesAreExact || first + count <= frames {
            convert(data, count: count, format: frame.pointee.format, into: direct.to)
            directFrames = count
            position = first + count
            return
        }
        let base = pending.count
        pending.append(contentsOf: repeatElement(0, count: count * channels))
        pending.withUnsafeMutableBufferPointer { out in convert(data, count: count, format: frame.pointee.format, into: out.baseAddress! + base) }
        // Samples before the target of a seek dropped (nothing is pending before them: what
        // was, was before the target too).
        if drop > 0 { pendingStart += drop * channels; position += drop }
    }

    /// The reader's buffer while `read` decodes with nothing pending, and its room in frames.
    private var direct: (to: UnsafeMutablePointer<Float>, room: Int)?
    /// Frames the last `decode` wrote to `direct` (0: it appended to `pending`).
    private var directFrames = 0

    /// `count` frames of decoded samples (`data`, in FFmpeg's `format`) as interleaved floats
    /// in [-1, 1) at `o`.
    private func convert(_ data: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int, format raw: Int32, into o: UnsafeMutablePointer<Float>) {
        let channels = self.channels
        let format = AVSampleFormat(rawValue: raw)
        let planar = [AV_SAMPLE_FMT_U8P, AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S32P, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_DBLP, AV_SAMPLE_FMT_S64P].contains(format)
        do {
            // One loop per plane (or one over the interleaved samples): sample k of channel c
            // goes to o[k * channels + c], scaled to [-1, 1).
            func convert<T>(_ type: T.Type, _ scale: (T) -> Float) {
                if planar {
                    for c in 0..<channels {
                        let plane = UnsafeRawPointer(data[c]!).assumingMemoryBound(to: T.self)
                        var k = 0
                        while k < count { o[k * channels + c] = scale(plane[k]); k += 1 }
                    }
                } else {
                    let samples = UnsafeRawPointer(data[0]!).assumingMemoryBound(to: T.self)
                    var i = 0
                    while i < count * channels { o[i] = scale(samples[i]); i += 1 }
                }
            }
            switch format {
            case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP: convert(Float.self) { $0.isFinite ? $0 : 0 }
            case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: convert(Int16.self) { Float($0) / 32_768 }
            case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P: convert(Int32.self) { Float(Double($0) / 2_147_483_648) }
            case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P: convert(UInt8.self) { (Float($0) - 128) / 128 }
            case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP: convert(Double.self) { $0.isFinite ? Float($0) : 0 }
            case AV_SAMPLE_FMT_S64, AV_SAMPLE_FMT_S64P: convert(Int64.self) { Float(Double($0) / 9_223_372_036_854_775_808) }
            default: o.update(repeating: 0, count: count * channels)   // silence
            }
        }
    }

    /// Up to `frames` interleaved frames into `buffer`; fewer only at the end (where the
    /// container's exact length is, the encoder's padding after it is cut).
    func read(into buffer: UnsafeMutablePointer<Float>, frames wanted: Int) -> Int {
        var done = 0
        while done < wanted {
            if pendingStart >= pending.count {
                // Nothing pending: the next frame decoded into the buffer where it fits.
                direct = (buffer + done * channels, wanted - done)
                directFrames = 0
                let decoded = decode()
                direct = nil
                guard decoded else { break }
                done += directFrames
                continue
            }
            var n = min(wanted - done, (pending.count - pendingStart) / channels)
            if framesAreExact { n = min(n, max(frames - position, 0)) }
            guard n > 0 else { ended = true; pending.removeAll(); pendingStart = 0; break }
            pending.withUnsafeBufferPointer { p in
                (buffer + done * channels).update(from: p.baseAddress! + pendingStart, count: n * channels)
            }
            pendingStart += n * channels
            position += n
            done += n
        }
        return done
    }

    /// Starts building the packet index a seek needs on a thread of its own (a player, which
    /// will seek, asks at once: reading every packet of an hour's WebM takes about a quarter
    /// of a second, which the first jump would otherwise wait for).
    func prepareToSeek() {
        guard !framesAreExact, index == nil, building == nil else { return }
        building = IndexBuild(path: path, stream: stream, api: api)
    }

    /// Moves to `frame`: to the packet at least 0.2 s before it (further back where the
    /// container's index lands later), the decoder flushed, what precedes `frame` dropped.
    func seek(toFrame frame: Int) throws(FFmpegError) {
        guard let format, let codec else { return }
        // Time stamps that do not count samples: where each packet's audio starts, counted once.
        if !framesAreExact, index == nil {
            if let building {
                index = building.wait() ?? PacketIndex(entries: [])
                indexBuiltAhead = true
            } else {
                index = PacketIndex(path: path, stream: stream, api: api) ?? PacketIndex(entries: [])
            }
            building = nil
        }
        var preroll = 0.2
        while true {
            let seconds = max(Double(frame) / Double(sampleRate) - preroll, 0)
            let ticks = (origin ?? 0) + Int64((seconds / timeBase).rounded(.down))
            // Near the start, to the first packet (the one before 0, where the encoder's delay is).
            var rc = seconds == 0 ? api.seek_frame(format, stream, Int64.min / 4, 0) : api.seek_frame(format, stream, ticks, AVSEEK_FLAG_BACKWARD)
            // Before the first index entry (a stream whose first packet is stamped before 0).
            if rc < 0 { rc = api.seek_frame(format, stream, ticks, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY) }
            if rc < 0 { rc = api.seek_frame(format, -1, Int64.min / 4, AVSEEK_FLAG_BACKWARD) }
            guard rc >= 0 else {
                throw FFmpegError(.undecodable, "av_seek_frame", rc, api: api, path: path)
            }
            api.flush_buffers(codec)
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            ended = false
            placing = true
            target = frame
            position = frame
            guard decode() else { break }
            if placed <= frame || seconds == 0 { break }
            // Landed after the target: from further back.
            preroll *= 10
        }
    }
}

/// A `PacketIndex` built on a thread of its own (with its own view of the file), waited for by
/// the decoder that started it, which owns it and joins the thread before it goes.
private final class IndexBuild {
    private let path: String
    private let stream: Int32
    private let api: practice_ffmpeg_api
    private var result: PacketIndex?
    private var thread = pthread_t()
    private var running = false

    init(path: String, stream: Int32, api: practice_ffmpeg_api) {
        self.path = path; self.stream = stream; self.api = api
        // The thread borrows `self`: `wait` (in the owner's close at the latest) joins it first.
        running = pthread_create(&thread, nil, { raw in
            let build = Unmanaged<IndexBuild>.fromOpaque(raw!).takeUnretainedValue()
            build.result = PacketIndex(path: build.path, stream: build.stream, api: build.api)
            return nil
        }, Unmanaged.passUnretained(self).toOpaque()) == 0
    }

    /// The index, once the thread is done (nil if the packets' lengths cannot be read, or no
    /// thread could be started: the stamps are then used as they are).
    func wait() -> PacketIndex? {
        if running { pthread_join(thread, nil); running = false }
        return result
    }

    deinit { if running { pthread_join(thread, nil) } }
}

/// Where the audio of each packet of a stream starts, to the sample: the packets' lengths (in
/// samples) added up from the first, read from the packets themselves without decoding them
/// (Opus's table of contents, Vorbis's block sizes, a codec's fixed frame size: AAC, AC-3, MP3), the encoder's
/// delay (Opus's pre-skip) taken off; for other codecs (WMA), the stream decoded once (about
/// 0.2 s of CPU for five minutes). Matroska's and ASF's time stamps are milliseconds, so a
/// packet's stamp says where it starts to within half of one; this says where exactly. Nil
/// where the packets cannot be read so (the stamps are used as they are).
struct PacketIndex {
    /// Each packet's time stamp (ticks) and the frame its audio starts at, in stamp order.
    private var entries: [(stamp: Int64, frame: Int)]

    init(entries: [(stamp: Int64, frame: Int)]) { self.entries = entries }

    init?(path: String, stream: Int32, api: practice_ffmpeg_api) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard api.open_input(&context, path, nil, nil) >= 0, let context else { return nil }
        var owned: UnsafeMutablePointer<AVFormatContext>? = context
        defer { api.close_input(&owned) }
        guard Int(stream) < Int(context.pointee.nb_streams), let parameters = context.pointee.streams[Int(stream)]?.pointee.codecpar else { return nil }
        let p = parameters.pointee
        var vorbis: OpaquePointer?
        if p.codec_id == AV_CODEC_ID_VORBIS {
            guard let extradata = p.extradata, p.extradata_size > 0, let parser = api.vorbis_parse_init(extradata, p.extradata_size) else { return nil }
            vorbis = parser
        }
        defer { if vorbis != nil { api.vorbis_parse_free(&vorbis) } }
        let fixed = Int(p.frame_size)
        let framed = [AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3, AV_CODEC_ID_MP2, AV_CODEC_ID_MP3, AV_CODEC_ID_AAC, AV_CODEC_ID_DTS].contains(p.codec_id)
        guard let packet = api.packet_alloc() else { return nil }
        var owning: UnsafeMutablePointer<AVPacket>? = packet
        defer { api.packet_free(&owning) }
        // A codec whose packets' lengths are only in its bitstream (WMA's superframes): the
        // stream decoded once, each decoded frame's stamp and where it starts.
        if p.codec_id != AV_CODEC_ID_OPUS, vorbis == nil, fixed <= 0, !framed {
            guard let entries = Self.decoding(context, stream: stream, parameters: parameters, packet: packet, api: api) else { return nil }
            self.entries = entries
            return
        }
        var frame = -Int(p.codec_id == AV_CODEC_ID_OPUS ? p.initial_padding : 0)
        var entries: [(stamp: Int64, frame: Int)] = []
        while api.read_frame(context, packet) >= 0 {
            defer { api.packet_unref(packet) }
            guard packet.pointee.stream_index == stream, let data = packet.pointee.data, packet.pointee.size > 0 else { continue }
            let size = Int(packet.pointee.size)
            let samples: Int
            if p.codec_id == AV_CODEC_ID_OPUS {
                guard let n = Self.opusSamples(UnsafeBufferPointer(start: data, count: size)) else { return nil }
                samples = n
            } else if let vorbis {
                // A Vorbis packet's audio overlaps the one before's: the first gives none.
                let n = api.vorbis_parse_frame(vorbis, data, Int32(size))
                guard n >= 0 else { return nil }
                samples = entries.isEmpty ? 0 : Int(n)
            } else if fixed > 0 {
                samples = fixed
            } else {
                // Codecs whose frames are all one length, which FFmpeg reads from the header.
                let n = api.frame_duration(parameters, Int32(size))
                guard n > 0 else { return nil }
                samples = Int(n)
            }
            let stamp = packet.pointee.pts != practice_av_nopts() ? packet.pointee.pts : packet.pointee.dts
            if stamp != practice_av_nopts() { entries.append((stamp, frame)) }
            frame += samples
        }
        entries.sort { $0.stamp < $1.stamp }
        self.entries = entries
    }

    /// Every decoded frame's stamp and the frames decoded before it, in stamp order (the
    /// decoder's own stamps, which it gives the same frames after a seek); nil where the
    /// stream does not decode.
    private static func decoding(_ context: UnsafeMutablePointer<AVFormatContext>, stream: Int32, parameters: UnsafeMutablePointer<AVCodecParameters>,
                                 packet: UnsafeMutablePointer<AVPacket>, api: practice_ffmpeg_api) -> [(stamp: Int64, frame: Int)]? {
        var opened = openDecoder(parameters, api: api).context
        defer { api.free_context(&opened) }
        guard let codec = opened else { return nil }
        var owned = api.frame_alloc()
        defer { api.frame_free(&owned) }
        guard let frame = owned else { return nil }
        var entries: [(stamp: Int64, frame: Int)] = []
        var position = 0
        func drain() {
            while api.receive_frame(codec, frame) >= 0 {
                let stamp = frame.pointee.best_effort_timestamp
                if stamp != practice_av_nopts() { entries.append((stamp, position)) }
                position += Int(frame.pointee.nb_samples)
                api.frame_unref(frame)
            }
        }
        while api.read_frame(context, packet) >= 0 {
            defer { api.packet_unref(packet) }
            guard packet.pointee.stream_index == stream else { continue }
            _ = api.send_packet(codec, packet)
            drain()
        }
        _ = api.send_packet(codec, nil)
        drain()
        entries.sort { $0.stamp < $1.stamp }
        return entries
    }

    /// Where the packet stamped `stamp` starts (one tick either way: a decoder may round).
    func position(of stamp: Int64) -> Int? {
        var lo = 0, hi = entries.count
        while lo < hi { let mid = (lo + hi) / 2; if entries[mid].stamp < stamp { lo = mid + 1 } else { hi = mid } }
        for k in [lo, lo - 1] where entries.indices.contains(k) && abs(entries[k].stamp - stamp) <= 1 { return entries[k].frame }
        return nil
    }

    /// An Opus packet's length at 48 kHz, from its table of contents (RFC 6716, 3.1).
    static func opusSamples(_ packet: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        // Frame lengths in 48 kHz samples: SILK 10/20/40/60 ms, hybrid 10/20, CELT 2.5/5/10/20.
        let length = config < 12 ? [480, 960, 1_920, 2_880][config % 4] : config < 16 ? [480, 960][config % 2] : [120, 240, 480, 960][config % 4]
        let frames: Int
        switch toc & 3 {
        case 0: frames = 1
        case 1, 2: frames = 2
        default:
            guard packet.count >= 2 else { return nil }
            frames = Int(packet[1] & 0x3F)
        }
        return frames * length
    }
}

/// An M4A being written with FFmpeg's libraries: AAC (FFmpeg's own encoder, 256 kbit/s, which
/// phones play) in an MP4 container whose time scale is the sample rate, so that its edit list
/// says to the sample where the encoder's priming ends and its padding begins: read back, the
/// file has exactly the frames written.
final class FFmpegEncoder {
    let api: practice_ffmpeg_api
    let path: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let channels: Int
    private let frameSize: Int
    /// Samples waiting for a whole encoder frame (interleaved), and the next frame's time stamp.
    private var waiting: [Float] = []
    private var pts: Int64 = 0
    private var opened = false

    init(path: String, sampleRate: Int, channels: Int, tags: [String: String]) throws(FFmpegError) {
        let api = try ffmpegAPI()
        self.api = api
        self.path = path
        self.channels = channels
        func fail(_ function: String, _ code: Int32, _ message: String? = nil) -> FFmpegError {
            FFmpegError(.undecodable, function, code, api: api, path: path, message: message)
        }
        guard let encoder = api.find_encoder(AV_CODEC_ID_AAC) else { frameSize = 0; throw fail("avcodec_find_encoder", 0, "FFmpeg has no AAC encoder") }
        var rc = api.alloc_output_context(&format, nil, "ipod", path)
        guard rc >= 0, let format else { frameSize = 0; throw fail("avformat_alloc_output_context2", rc) }
        codec = api.alloc_context(encoder)
        guard let codec else { frameSize = 0; throw fail("avcodec_alloc_context3", 0, "out of memory") }
        codec.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        codec.pointee.sample_rate = Int32(sampleRate)
        api.channel_layout_default(&codec.pointee.ch_layout, Int32(channels))
        codec.pointee.bit_rate = 256_000
        codec.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 { codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        rc = api.open_codec(codec, encoder, nil)
        guard rc >= 0 else { frameSize = 0; throw fail("avcodec_open2", rc, "FFmpeg's AAC encoder refuses \(sampleRate) Hz with \(channels) channels (\(ffmpegMessage(api, rc)))") }
        frameSize = Int(codec.pointee.frame_size)
        guard let stream = api.new_stream(format, nil) else { throw fail("avformat_new_stream", 0, "out of memory") }
        stream.pointee.time_base = codec.pointee.time_base
        rc = api.parameters_from_context(stream.pointee.codecpar, codec)
        guard rc >= 0 else { throw fail("avcodec_parameters_from_context", rc) }
        for (key, value) in tags where ["title", "artist", "album", "date", "genre", "comment", "copyright"].contains(key) {
            _ = api.dict_set(&format.pointee.metadata, key, value, 0)
        }
        _ = api.dict_set(&format.pointee.metadata, "encoder", "practice", 0)
        rc = api.avio_open(&format.pointee.pb, path, AVIO_FLAG_WRITE)
        guard rc >= 0 else { throw FFmpegError(.unreadable, "avio_open", rc, api: api, path: path) }
        var options: OpaquePointer?
        _ = api.dict_set(&options, "movie_timescale", "\(sampleRate)", 0)
        rc = api.write_header(format, &options)
        api.dict_free(&options)
        guard rc >= 0 else { throw fail("avformat_write_header", rc) }
        opened = true
        frame = api.frame_alloc()
        packet = api.packet_alloc()
        guard frame != nil, packet != nil else { throw fail("av_frame_alloc", 0, "out of memory") }
    }

    deinit { release() }

    private func release() {
        if frame != nil { api.frame_free(&frame) }
        if packet != nil { api.packet_free(&packet) }
        if codec != nil { api.free_context(&codec) }
        if let format {
            if format.pointee.pb != nil { _ = api.avio_closep(&format.pointee.pb) }
            api.free_context_format(format)
            self.format = nil
        }
    }

    /// Takes `frames` interleaved frames; encodes each whole encoder frame (1024) of them.
    func write(_ buffer: UnsafePointer<Float>, frames: Int) throws(FFmpegError) {
        waiting.append(contentsOf: UnsafeBufferPointer(start: buffer, count: frames * channels))
        var used = 0
        while waiting.count - used >= frameSize * channels {
            try encode(from: used, count: frameSize)
            used += frameSize * channels
        }
        waiting.removeFirst(used)
    }

    /// Encodes `count` frames of `waiting` from `start` (the last may be short).
    private func encode(from start: Int, count: Int) throws(FFmpegError) {
        guard let frame, let codec else { return }
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = codec.pointee.sample_rate
        frame.pointee.ch_layout = codec.pointee.ch_layout
        var rc = frame.pointee.data.0 == nil ? api.frame_get_buffer(frame, 0) : api.frame_make_writable(frame)
        guard rc >= 0 else { throw FFmpegError(.undecodable, "av_frame_get_buffer", rc, api: api, path: path) }
        waiting.withUnsafeBufferPointer { w in
            for c in 0..<channels {
                let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[c]!).assumingMemoryBound(to: Float.self)
                for k in 0..<count { plane[k] = w[start + k * channels + c] }
            }
        }
        frame.pointee.pts = pts
        pts += Int64(count)
        rc = api.send_frame(codec, frame)
        guard rc >= 0 else { throw FFmpegError(.undecodable, "avcodec_send_frame", rc, api: api, path: path) }
        try drain()
    }

    /// Writes the packets the encoder has ready.
    private func drain() throws(FFmpegError) {
        guard let codec, let packet, let format else { return }
        while true {
            let rc = api.receive_packet(codec, packet)
            if rc == practice_averror_eagain() || rc == practice_averror_eof() { return }
            guard rc >= 0 else { throw FFmpegError(.undecodable, "avcodec_receive_packet", rc, api: api, path: path) }
            packet.pointee.stream_index = 0
            api.packet_rescale_ts(packet, codec.pointee.time_base, format.pointee.streams[0]!.pointee.time_base)
            let written = api.write_frame(format, packet)
            guard written >= 0 else { throw FFmpegError(.unreadable, "av_interleaved_write_frame", written, api: api, path: path) }
        }
    }

    /// The rest encoded, the encoder flushed, the index and edit list written, the file closed.
    func close() throws(FFmpegError) {
        guard opened, let codec, let format else { return }
        opened = false
        let rest = waiting.count / channels
        if rest > 0 { try encode(from: 0, count: rest) }
        waiting.removeAll()
        var rc = api.send_frame(codec, nil)
        guard rc >= 0 else { throw FFmpegError(.undecodable, "avcodec_send_frame", rc, api: api, path: path) }
        try drain()
        rc = api.write_trailer(format)
        guard rc >= 0 else { throw FFmpegError(.unreadable, "av_write_trailer", rc, api: api, path: path) }
        rc = api.avio_closep(&format.pointee.pb)
        guard rc >= 0 else { throw FFmpegError(.unreadable, "avio_closep", rc, api: api, path: path) }
        release()
    }
}

/// A picture from a video stream, for the library's covers.
public enum VideoFrame {
    /// A file's video stream (not an attached cover picture): its frames a second and its size;
    /// nil for a file without one (or one FFmpeg cannot open).
    public static func stream(of path: String) -> (fps: Double, width: Int, height: Int)? {
        withVideoStream(path) { _, context, index in
            let stream = context.pointee.streams[index]!
            let rate = stream.pointee.avg_frame_rate.den > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            let fps = rate.den > 0 && rate.num > 0 ? Double(rate.num) / Double(rate.den) : 25
            return (fps, Int(stream.pointee.codecpar.pointee.width), Int(stream.pointee.codecpar.pointee.height))
        }
    }

    /// `body` on the file's video stream (FFmpeg's API, the opened file, the stream's index),
    /// the file closed after; nil without a video stream.
    private static func withVideoStream<T>(_ path: String, _ body: (practice_ffmpeg_api, UnsafeMutablePointer<AVFormatContext>, Int) -> T?) -> T? {
        // A WAV, FLAC, MP3 or Ogg file has none: FFmpeg is not even loaded for it.
        guard SoundFile.isContainer(path), let api = try? ffmpegAPI() else { return nil }
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard api.open_input(&context, path, nil, nil) >= 0, let context else { return nil }
        var owned: UnsafeMutablePointer<AVFormatContext>? = context
        defer { api.close_input(&owned) }
        guard api.find_stream_info(context, nil) >= 0, let index = videoStream(context) else { return nil }
        return body(api, context, index)
    }

    /// The first video stream that is not an attached picture.
    private static func videoStream(_ context: UnsafeMutablePointer<AVFormatContext>) -> Int? {
        (0..<Int(context.pointee.nb_streams)).first { i in
            let s = context.pointee.streams[i]!
            return s.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO && s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
        }
    }

    /// A video's cover: the first frame at a tenth of its length (past a fade-in or a title
    /// card), as a JPEG made by FFmpeg's encoder from the decoded picture. Nil for a file with no
    /// video (an attached cover picture is TagLib's), or a picture in a pixel format the JPEG
    /// encoder does not take as it is (10-bit, RGB).
    public static func jpeg(of path: String) -> [UInt8]? {
        withVideoStream(path) { api, context, index in
            let stream = context.pointee.streams[index]!
            var opened = openDecoder(stream.pointee.codecpar, api: api).context
            defer { api.free_context(&opened) }
            guard let codec = opened else { return nil }
            var frame = api.frame_alloc(), packet = api.packet_alloc()
            defer { api.frame_free(&frame); api.packet_free(&packet) }
            guard let frame, let packet else { return nil }
            // A tenth of the way in, on the stream's clock.
            let nopts = practice_av_nopts()
            let timeBase = Double(stream.pointee.time_base.num) / Double(max(stream.pointee.time_base.den, 1))
            let seconds = context.pointee.duration != nopts && context.pointee.duration > 0 ? Double(context.pointee.duration) / Double(AV_TIME_BASE) / 10 : 0
            let start = stream.pointee.start_time != nopts ? stream.pointee.start_time : 0
            let target = start + Int64(seconds / timeBase)
            if seconds > 0 { _ = api.seek_frame(context, Int32(index), target, AVSEEK_FLAG_BACKWARD) }
            // Decoded up to the first frame at the target (at most ten seconds' packets past it).
            var got = false
            var packets = 0
            while !got, packets < 2_000, api.read_frame(context, packet) >= 0 {
                defer { api.packet_unref(packet) }
                guard packet.pointee.stream_index == Int32(index) else { continue }
                packets += 1
                guard api.send_packet(codec, packet) >= 0 else { continue }
                while api.receive_frame(codec, frame) >= 0 {
                    let pts = frame.pointee.best_effort_timestamp
                    if pts == nopts || pts >= target || packets > 600 { got = true; break }
                    api.frame_unref(frame)
                }
            }
            guard got else { return nil }
            return jpeg(frame, api: api)
        }
    }

    /// `frame` as a JPEG (FFmpeg's encoder, quality 3 of 31), or nil.
    static func jpeg(_ frame: UnsafeMutablePointer<AVFrame>, api: practice_ffmpeg_api) -> [UInt8]? {
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        guard [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUV444P].contains(format),
              frame.pointee.width > 0, frame.pointee.height > 0, let encoder = api.find_encoder(AV_CODEC_ID_MJPEG) else { return nil }
        var codec = api.alloc_context(encoder)
        defer { api.free_context(&codec) }
        guard let codec else { return nil }
        codec.pointee.width = frame.pointee.width
        codec.pointee.height = frame.pointee.height
        codec.pointee.pix_fmt = format
        codec.pointee.time_base = AVRational(num: 1, den: 25)
        // Studio-range YUV (a video's) in a JPEG is FFmpeg's "unofficial"; viewers take it.
        codec.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL
        codec.pointee.flags |= AV_CODEC_FLAG_QSCALE
        codec.pointee.global_quality = 3 * FF_QP2LAMBDA
        frame.pointee.quality = codec.pointee.global_quality
        frame.pointee.pts = 0
        guard api.open_codec(codec, encoder, nil) >= 0, api.send_frame(codec, frame) >= 0, api.send_frame(codec, nil) >= 0 else { return nil }
        var packet = api.packet_alloc()
        defer { api.packet_free(&packet) }
        guard let packet, api.receive_packet(codec, packet) >= 0, let data = packet.pointee.data, packet.pointee.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }
}
