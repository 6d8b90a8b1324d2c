// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeDocuments

extension Track: SidecarTrack {
    /// The identity of this track's file, as its sidecar and the journal know it: file and
    /// decoded-audio checksums, rate, channels, length and title/artist tags (cached, since
    /// decoding a song takes a while). It is the first audio stream's whichever stream plays: a
    /// sidecar's times are the file's, which all its streams share.
    public func identity() throws(PracticeError) -> TrackIdentity {
        try TrackIdentity.of((audioStream ?? 0) == 0 ? self : try Track.describe(path))
    }
}

extension TrackIdentity {
    /// The identity of the track at `path` (of the audio stream it plays: its decoded length is
    /// what `info` shows of an estimated one): file and decoded-audio checksums, rate, channels,
    /// length and title/artist tags. Cached under `XDG.cache/identity`, keyed by the file's real
    /// path, device, inode, size and modification time, since decoding a song takes a while.
    /// A track whose file went away after it was opened (deleted or moved while it plays) has
    /// none: its sidecar cannot be told from another's, so nothing is kept for it.
    public static func of(_ track: Track) throws(PracticeError) -> TrackIdentity {
        if access(track.path, F_OK) != 0, errno == ENOENT {
            throw PracticeError(.noInput, "\(track.path): the file is gone (deleted or moved since it was opened)")
        }
        return try cached(key: cacheKey(track.path, audioStream: track.audioStream), fileName: Path.lastComponent(track.path)) { () throws(PracticeError) in try compute(track) }
    }

    /// The identity of `track`'s file (`Track.identity`: its first audio stream's) if it was
    /// worked out before (cached); nothing is decoded.
    public static func known(_ track: Track) -> TrackIdentity? {
        lookup(key: cacheKey(track.path), fileName: Path.lastComponent(track.path))
    }

    static func cacheKey(_ path: String, audioStream: Int? = nil) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, let real = Path.resolved(path) else { return nil }
        // Another audio stream of a container is another recording.
        let stream = (audioStream ?? 0) == 0 ? "" : "\0stream \(audioStream!)"
        let key = "identity v2\0\(real)\0\(st.st_dev)\0\(st.st_ino)\0\(st.st_size)\0\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)\(stream)"
        return SHA256.hash(data: Array(key.utf8)).hex   // (`Data(key.utf8)` asks the view's conformances first)
    }

    static func compute(_ track: Track) throws(PracticeError) -> TrackIdentity {
        let (frames, pcmHex, print) = try hashDecodedAudio(track)
        // SHA-256 of the bytes: an exact copy.
        var whole = SHA256()
        let fd = open(track.path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                buffer.withUnsafeBytes { whole.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            }
        }
        let info = track.info
        return TrackIdentity(
            fileName: Path.lastComponent(track.path), title: track.tags["title"], artist: track.tags["artist"],
            duration: Sidecar.milliseconds(Double(frames) / Double(info.sampleRate)), fileSHA256: whole.finalize().hex,
            pcm: PCMIdentity(sampleRate: info.sampleRate, channels: info.channels, frames: frames, sha256: pcmHex),
            chromaprint: print)
    }

    /// SHA-256 of the decoded frames as s16le (survives renames, tag edits and WAV <-> FLAC), and,
    /// in the same pass, the audio's Chromaprint fingerprint (survives re-encoding, resampling,
    /// padding and trimming). Without Chromaprint the identity has no fingerprint; nothing fails.
    static func hashDecodedAudio(_ track: Track) throws(PracticeError) -> (frames: Int, sha256: String, fingerprint: AcousticFingerprint?) {
        do {
            let file = try SoundFile(path: track.path, audioStream: track.audioStream)
            // Fingerprinted on a second thread while this one decodes and checksums.
            let fingerprinter = try? BackgroundFingerprinter(sampleRate: track.info.sampleRate, channels: track.info.channels)
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
                buffer.withUnsafeBufferPointer { fingerprinter?.feed(UnsafeBufferPointer(rebasing: $0[0..<(n * channels)])) }
            }
            var print: AcousticFingerprint?
            if let fingerprinter, let raw = try? fingerprinter.finish(), !raw.isEmpty, let text = try? Fingerprinter.encode(raw) {
                print = AcousticFingerprint(algorithm: Fingerprinter.algorithm, fingerprint: text,
                                            lengthSeconds: Sidecar.milliseconds(Double(frames) / Double(track.info.sampleRate)))
            }
            return (frames, pcm.finalize().hex, print)
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error.message)")
        }
    }
}
