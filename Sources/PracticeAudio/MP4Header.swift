// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// What an MP4/M4A/MOV file's header says (its `moov` box), read without FFmpeg: loading
/// Debian's FFmpeg costs about 33 ms (134 libraries bound at load), five times what `info` on a
/// WAV takes in all. It answers only where it is sure of giving what FFmpeg's demuxer and
/// decoder give (`ContainerTests` holds it to that on every MP4-family file they make): AAC-LC
/// and ALAC audio, one edit (ffmpeg writes one: the encoder's delay and the length), no
/// fragments, no encryption, the usual tags. Anything else is nil, and the caller opens the
/// file with FFmpeg.
public struct MP4Header: Sendable, Equatable {
    public var info: SoundFile.Info
    public var streams: [AudioStreamInfo]
    public var tags: [String: String]

    /// The largest `moov` read (a two-hour AAC track's is about 2 MB).
    static let largestMovie = 64 << 20

    /// `path`'s header, describing its `audioStream`th audio stream (the first by default).
    public static func read(_ path: String, audioStream: Int? = nil) -> MP4Header? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(st.st_size)
        // The top-level boxes: `ftyp` first, then `moov` wherever it is (after `mdat` in a file
        // written in one pass); a fragmented file (`moof`) is FFmpeg's.
        var offset = 0
        var first = true
        // (A real file has a handful of boxes at the top; a thousand is no MP4 of ours.)
        for _ in 0..<1_000 {
            guard offset + 8 <= size else { return nil }
            var head = [UInt8](repeating: 0, count: 16)
            let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, off_t(offset)) }
            guard got >= 8 else { return nil }
            var box = Bytes(head[0..<got])
            guard let length = box.boxLength(remaining: size - offset), let type = box.fourCC(at: 4) else { return nil }
            if first { guard type == "ftyp" else { return nil }; first = false }
            if type == "moof" || type == "mvex" { return nil }
            if type == "moov" {
                guard length <= largestMovie else { return nil }
                var body = [UInt8](repeating: 0, count: length)
                let n = body.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(offset)) }
                guard n == length else { return nil }
                box = Bytes(body[...])
                return movie(box.children(from: box.headerLength), path: path, audioStream: audioStream ?? 0)
            }
            offset += length
        }
        return nil
    }

    /// The facts of the `moov` box's children.
    private static func movie(_ boxes: [Bytes], path: String, audioStream: Int) -> MP4Header? {
        guard let header = boxes.first(where: { $0.type == "mvhd" }), let movieScale = header.movieTimescale else { return nil }
        // Fragments, or tags outside `udta`: FFmpeg's to read.
        if boxes.contains(where: { $0.type == "mvex" || $0.type == "meta" }) { return nil }
        var audio: [(stream: AudioStreamInfo, frames: Int, codec: String)] = []
        for track in boxes where track.type == "trak" {
            let parts = track.children(from: 8)
            // A track's own name ("udta") or anything unusual: FFmpeg says what it is.
            if parts.contains(where: { $0.type == "udta" }) { return nil }
            guard let media = parts.first(where: { $0.type == "mdia" })?.children(from: 8),
                  let handler = media.first(where: { $0.type == "hdlr" }), let kind = handler.fourCC(at: 16) else { return nil }
            guard kind == "soun" else { continue }
            guard let mdhd = media.first(where: { $0.type == "mdhd" }), let (scale, duration, language) = mdhd.mediaHeader,
                  let table = media.first(where: { $0.type == "minf" })?.children(from: 8).first(where: { $0.type == "stbl" })?.children(from: 8),
                  let description = table.first(where: { $0.type == "stsd" })?.sampleDescription(),
                  scale == description.rate else { return nil }
            // The length: the one edit's (in the movie's time scale, rescaled to the track's
            // with FFmpeg's rounding, no longer than the media). No edit (the encoder's delay
            // said nowhere, or elsewhere) or more than one: FFmpeg's to read.
            // (Both under 2^31, as any recording's are, so their product cannot overflow.)
            guard let edits = parts.first(where: { $0.type == "edts" })?.children(from: 8).first(where: { $0.type == "elst" }),
                  let edit = edits.singleEdit, edit.mediaTime >= 0, edit.duration < 1 << 31, scale < 1 << 31, movieScale < 1 << 31 else { return nil }
            let frames = min(duration, (edit.duration * scale + movieScale / 2) / movieScale)
            audio.append((AudioStreamInfo(number: audio.count, codec: AudioFormat.codecName(description.codec), sampleRate: description.rate,
                                          channels: description.channels, language: language), frames, description.codec))
        }
        guard audio.indices.contains(audioStream) else { return nil }
        let chosen = audio[audioStream]
        guard let tags = metadata(boxes.first(where: { $0.type == "udta" })) else { return nil }
        let format = AudioFormat(container: AudioFormat.containerName("mov", path: path), encoding: AudioFormat.codecName(chosen.codec), estimated: false)
        return MP4Header(info: SoundFile.Info(sampleRate: chosen.stream.sampleRate, channels: chosen.stream.channels, frames: chosen.frames, format: format),
                         streams: audio.map(\.stream), tags: tags)
    }

    /// The tags FFmpeg's demuxer gives, from `udta`'s iTunes list (`meta`/`ilst`) and
    /// QuickTime's strings (`©nam` …); nil where one is written in a way it would read otherwise.
    private static func metadata(_ udta: Bytes?) -> [String: String]? {
        var tags: [String: String] = [:]
        guard let udta else { return tags }
        let keys: [String: String] = ["\u{A9}nam": "title", "\u{A9}ART": "artist", "\u{A9}alb": "album", "\u{A9}day": "date", "\u{A9}gen": "genre",
                                      "\u{A9}cmt": "comment", "cprt": "copyright", "\u{A9}cpy": "copyright", "trkn": "tracknumber"]
        func keep(_ key: String, _ value: String) { if !value.isEmpty, tags[key] == nil { tags[key] = value } }
        for item in udta.children(from: 8) {
            guard let type = item.type else { return nil }
            if type == "meta" {
                // ISO's `meta` is a full box (four bytes of version and flags); QuickTime's is not.
                let start = item.uint32(at: 8) == 0 ? 12 : 8
                guard let list = item.children(from: start).first(where: { $0.type == "ilst" }) else { continue }
                for entry in list.children(from: 8) {
                    guard let name = entry.type else { return nil }
                    if name == "gnre" { return nil }  // a genre by number: FFmpeg names it
                    guard let key = keys[name] else { continue }
                    guard let data = entry.children(from: 8).first(where: { $0.type == "data" }), let kind = data.uint32(at: 8) else { return nil }
                    if name == "trkn" {
                        guard let number = data.uint16(at: 18), let total = data.uint16(at: 20), number > 0 else { return nil }
                        keep(key, total > 0 ? "\(number)/\(total)" : "\(number)")
                    } else {
                        guard kind == 1, let text = data.text(from: 16) else { return nil }
                        keep(key, text)
                    }
                }
            } else if type.hasPrefix("\u{A9}") {
                // A QuickTime string: its length, a language, the text.
                guard let key = keys[type] else { continue }
                guard let length = item.uint16(at: 8), let text = item.text(from: 12, count: Int(length)) else { return nil }
                keep(key, text)
            }
        }
        return tags
    }
}

/// A box's bytes, read big-endian; every read checked against its end.
private struct Bytes {
    let bytes: ArraySlice<UInt8>
    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    private func byte(_ i: Int) -> UInt8? { i >= 0 && i < bytes.count ? bytes[bytes.startIndex + i] : nil }
    func uint16(at i: Int) -> UInt16? {
        guard let a = byte(i), let b = byte(i + 1) else { return nil }
        return UInt16(a) << 8 | UInt16(b)
    }
    func uint32(at i: Int) -> UInt32? {
        guard let a = uint16(at: i), let b = uint16(at: i + 2) else { return nil }
        return UInt32(a) << 16 | UInt32(b)
    }
    func uint64(at i: Int) -> UInt64? {
        guard let a = uint32(at: i), let b = uint32(at: i + 4) else { return nil }
        return UInt64(a) << 32 | UInt64(b)
    }
    func fourCC(at i: Int) -> String? {
        guard i >= 0, i + 4 <= bytes.count else { return nil }
        // Latin-1, as the four characters are written ("\u{A9}nam").
        return String(String.UnicodeScalarView(bytes[(bytes.startIndex + i)..<(bytes.startIndex + i + 4)].map { Unicode.Scalar($0) }))
    }
    func text(from i: Int, count: Int? = nil) -> String? {
        let end = count.map { i + $0 } ?? bytes.count
        guard i >= 0, i <= end, end <= bytes.count else { return nil }
        return String(validating: bytes[(bytes.startIndex + i)..<(bytes.startIndex + end)], as: UTF8.self)
    }

    var type: String? { fourCC(at: 4) }
    /// A 64-bit size (`size` 1) puts the payload 8 bytes further.
    var headerLength: Int { uint32(at: 0) == 1 ? 16 : 8 }
    /// The box's length in bytes (0: to the end of what holds it), nil if it does not fit.
    func boxLength(remaining: Int) -> Int? {
        guard let size = uint32(at: 0) else { return nil }
        var length = Int(size)
        if size == 1 { guard let large = uint64(at: 8), large <= UInt64(Int.max) else { return nil }; length = Int(large) }
        if size == 0 { length = remaining }
        guard length >= headerLength, length <= remaining else { return nil }
        return length
    }
    /// The boxes inside this one, from `start` (empty if any of them overruns it).
    func children(from start: Int) -> [Bytes] {
        var found: [Bytes] = []
        var i = start
        while i + 8 <= bytes.count {
            let rest = Bytes(bytes[(bytes.startIndex + i)...])
            guard let length = rest.boxLength(remaining: bytes.count - i) else { return [] }
            found.append(Bytes(bytes[(bytes.startIndex + i)..<(bytes.startIndex + i + length)]))
            i += length
        }
        return found
    }

    /// `mvhd`'s time scale.
    var movieTimescale: Int? {
        guard let version = byte(8) else { return nil }
        let scale = uint32(at: version == 1 ? 28 : 20)
        return scale.flatMap { $0 > 0 ? Int($0) : nil }
    }
    /// `mdhd`'s time scale, duration and language as FFmpeg names it (none for QuickTime's
    /// "unspecified"; nil for a Macintosh language code, which FFmpeg maps from a table).
    var mediaHeader: (scale: Int, duration: Int, language: String?)? {
        guard let version = byte(8) else { return nil }
        let scale = uint32(at: version == 1 ? 28 : 20)
        let duration = version == 1 ? uint64(at: 32) : uint32(at: 24).map(UInt64.init)
        let code = uint16(at: version == 1 ? 40 : 28)
        guard let scale, scale > 0, let duration, duration < 1 << 40, let code, code >= 0x400 else { return nil }
        if code == 0x7FFF { return (Int(scale), Int(duration), nil) }
        let letters: [UInt8] = [(code >> 10) & 31, (code >> 5) & 31, code & 31].map { (c: UInt16) -> UInt8 in UInt8(c) + 0x60 }
        guard letters.allSatisfy({ (0x61...0x7A).contains($0) }) else { return nil }
        return (Int(scale), Int(duration), String(decoding: letters, as: UTF8.self))
    }
    /// `elst`'s one edit (nil for more, or a rate other than 1).
    var singleEdit: (duration: Int, mediaTime: Int)? {
        guard let version = byte(8), uint32(at: 12) == 1 else { return nil }
        if version == 1 {
            guard let d = uint64(at: 16), let t = uint64(at: 24), uint32(at: 32) == 0x0001_0000, d < 1 << 40 else { return nil }
            return (Int(d), Int(Int64(bitPattern: t)))
        }
        guard let d = uint32(at: 16), let t = uint32(at: 20), uint32(at: 24) == 0x0001_0000 else { return nil }
        return (Int(d), Int(Int32(bitPattern: t)))
    }
    /// `stsd`'s one sound entry: AAC-LC (its AudioSpecificConfig) or ALAC (its own config),
    /// as FFmpeg's decoder reports them.
    func sampleDescription() -> (codec: String, rate: Int, channels: Int)? {
        guard uint32(at: 12) == 1 else { return nil }
        let entries = children(from: 16)
        guard entries.count == 1, let entry = entries.first, let format = entry.type, let version = entry.uint16(at: 16) else { return nil }
        // The sound sample entry's 20 bytes of fields (whose rate and channels the decoder does
        // not use: its configuration's are what it reports), then (QuickTime version 1) 16
        // more, then boxes.
        guard version <= 1 else { return nil }
        var inner = entry.children(from: version == 1 ? 52 : 36)
        // MOV keeps the codec's box inside `wave`.
        if let wave = inner.first(where: { $0.type == "wave" }) { inner += wave.children(from: 8) }
        switch format {
        case "mp4a":
            guard let esds = inner.first(where: { $0.type == "esds" }), let config = esds.aacConfig else { return nil }
            return ("aac", config.rate, config.channels)
        case "alac":
            guard let alac = inner.first(where: { $0.type == "alac" }), let n = alac.byte(12 + 9), let r = alac.uint32(at: 12 + 20), n > 0, r > 0 else { return nil }
            return ("alac", Int(r), Int(n))
        default:
            return nil
        }
    }
    /// An `esds` box's AAC-LC configuration (object type 2, a listed rate, a channel configuration
    /// of 1 to 7, then nothing or FFmpeg's encoder's "no SBR" extension); nil for anything else
    /// (HE-AAC, MP3 in MP4, explicit rates).
    var aacConfig: (rate: Int, channels: Int)? {
        var i = 12
        func descriptor(_ tag: UInt8) -> Int? {
            guard byte(i) == tag else { return nil }
            i += 1
            var length = 0
            for _ in 0..<4 {
                guard let b = byte(i) else { return nil }
                i += 1
                length = length << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { return length }
            }
            return nil
        }
        guard descriptor(0x03) != nil, let flags = byte(i + 2) else { return nil }
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0 { guard let n = byte(i) else { return nil }; i += 1 + Int(n) }
        if flags & 0x20 != 0 { i += 2 }
        guard descriptor(0x04) != nil, byte(i) == 0x40 else { return nil }
        i += 13
        guard let length = descriptor(0x05), length == 2 || length == 5, let a = byte(i), let b = byte(i + 1) else { return nil }
        // The backward-compatible extension: sync word 0x2B7, object type 5 (SBR), not present.
        if length == 5 { guard byte(i + 2) == 0x56, byte(i + 3) == 0xE5, let c = byte(i + 4), c & 0x80 == 0 else { return nil } }
        let objectType = a >> 3, rateIndex = Int((a & 7) << 1 | b >> 7), configuration = Int((b >> 3) & 15)
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        guard objectType == 2, rateIndex < rates.count, (1...7).contains(configuration), b & 7 == 0 else { return nil }
        return (rates[rateIndex], configuration == 7 ? 8 : configuration)
    }
}
