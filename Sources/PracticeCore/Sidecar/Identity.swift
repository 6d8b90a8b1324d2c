import Crypto
import Foundation
import PracticeAudio

/// The XDG base directories (an unset, empty or relative variable means the default).
public enum XDG {
    static func directory(_ variable: String, default relative: String) -> URL {
        if let v = ProcessInfo.processInfo.environment[variable], v.hasPrefix("/") { return URL(fileURLWithPath: v) }
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(relative)
    }
    /// `$XDG_CACHE_HOME/practice` (`~/.cache/practice`): things we can compute again.
    public static var cache: URL { directory("XDG_CACHE_HOME", default: ".cache").appendingPathComponent("practice") }
    /// `$XDG_STATE_HOME/practice` (`~/.local/state/practice`): one person's state, kept between runs.
    public static var state: URL { directory("XDG_STATE_HOME", default: ".local/state").appendingPathComponent("practice") }
}

extension TrackIdentity {
    /// The identity of the track at `path`: file and decoded-audio checksums, rate, channels,
    /// length and title/artist tags. Cached under `XDG.cache/identity`, keyed by the file's real
    /// path, device, inode, size and modification time, since decoding a song takes a while.
    public static func of(_ track: Track) throws(PracticeError) -> TrackIdentity {
        let key = cacheKey(track.path)
        let cacheFile = key.map { XDG.cache.appendingPathComponent("identity/\($0).json") }
        let fileName = (track.path as NSString).lastPathComponent
        if let cacheFile, let data = try? Data(contentsOf: cacheFile),
           let doc = try? JSONValue.parse(data), var cached = try? TrackIdentity(FieldReader(path: "", value: doc)) {
            cached.fileName = fileName
            return cached
        }
        let identity = try compute(track)
        if let cacheFile {
            // Best effort: a cache we cannot write only costs time.
            try? FileManager.default.createDirectory(at: cacheFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? AtomicFile.write(Data(identity.json.pretty().utf8), to: cacheFile.path)
        }
        return identity
    }

    static func cacheKey(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        let key = "identity v1\0\(String(cString: real))\0\(st.st_dev)\0\(st.st_ino)\0\(st.st_size)\0\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        return SHA256.hash(data: Data(key.utf8)).hex
    }

    static func compute(_ track: Track) throws(PracticeError) -> TrackIdentity {
        let (frames, pcmHex) = try hashDecodedAudio(track)
        // SHA-256 of the bytes: an exact copy.
        var whole = SHA256()
        if let handle = FileHandle(forReadingAtPath: track.path) {
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { whole.update(data: chunk) }
            try? handle.close()
        }
        let info = track.info
        return TrackIdentity(
            fileName: (track.path as NSString).lastPathComponent, title: track.tags["title"], artist: track.tags["artist"],
            duration: Sidecar.milliseconds(Double(frames) / Double(info.sampleRate)), fileSHA256: whole.finalize().hex,
            pcm: PCMIdentity(sampleRate: info.sampleRate, channels: info.channels, frames: frames, sha256: pcmHex))
    }

    /// SHA-256 of the decoded frames as s16le: survives renames, tag edits and WAV <-> FLAC.
    static func hashDecodedAudio(_ track: Track) throws(PracticeError) -> (frames: Int, sha256: String) {
        do {
            let file = try SoundFile(path: track.path)
            var pcm = SHA256()
            let channels = track.info.channels
            let block = 65_536   // frames per read: 1.5 s at 44.1 kHz
            var buffer = [Int16](repeating: 0, count: block * channels)
            var frames = 0
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { file.readShorts(into: $0.baseAddress!, frames: block) }
                if n <= 0 { break }
                frames += n
                // Int16 in memory is little-endian on every platform Swift runs Linux on (x86-64, arm64).
                buffer.withUnsafeBytes { pcm.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<(n * channels * 2)])) }
            }
            return (frames, pcm.finalize().hex)
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error.message)")
        }
    }

    /// How this identity differs from `other` (the track in hand), for a warning; nil when the
    /// decoded audio is the same.
    public func differences(from other: TrackIdentity) -> String? {
        if pcm.sha256 == other.pcm.sha256 { return nil }
        var parts: [String] = []
        let delta = other.duration - duration
        if abs(delta) >= 0.001 {
            parts.append("this copy is \(JSONValue.formatMilliseconds(abs(delta))) s \(delta > 0 ? "longer" : "shorter") (\(Timecode.format(other.duration, decimals: 3)) against \(Timecode.format(duration, decimals: 3)))")
        }
        if pcm.sampleRate != other.pcm.sampleRate { parts.append("\(other.pcm.sampleRate) Hz against \(pcm.sampleRate) Hz") }
        if pcm.channels != other.pcm.channels { parts.append("\(other.pcm.channels) channels against \(pcm.channels)") }
        parts.append("the decoded audio differs")
        return parts.joined(separator: "; ")
    }
}

extension Sequence where Element == UInt8 {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

extension Digest {
    var hex: String { Array(self).hex }
}
