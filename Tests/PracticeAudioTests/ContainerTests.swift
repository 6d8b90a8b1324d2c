// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeAudio
import PracticeSystem

/// The containers a dancer's songs come in, made by Debian's `ffmpeg` from generated music (10 s,
/// stereo): decoded through FFmpeg's libraries (libsndfile refuses them), their length and every
/// seek measured against the source, sample by sample.
@Suite struct ContainerTests {
    static let dir = ScratchDirectory("containers")
    /// 10 s of generated music at 44.1 kHz (and at 48 kHz, Opus's only rate, for the WebM).
    static let source: (path: String, path48: String, frames: Int) = {
        let path = dir.file("source.wav"), path48 = dir.file("source48.wav")
        let music = Signals.music(seconds: 10, seed: 29)
        try! Signals.write(music, to: path)
        _ = try! run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", path, "-ar", "48000", path48])
        return (path, path48, music.count / 2)
    }()

    /// Each file: its name, how ffmpeg makes it, whether it is made from the 48 kHz source, and
    /// how exact its length is: `exact` (the container counts samples: MP4's edit list, at the
    /// audio's own time scale), else within a packet of the source's (nothing in the container
    /// says where the encoder's padding starts).
    struct Kind: Sendable, CustomTestStringConvertible {
        let name: String
        let args: [String]
        let at48: Bool
        let exact: Bool
        /// Where the decoded audio lies against the source (samples): 0, except where the
        /// encoder's delay is in no header (ASF, raw AC-3).
        let lag: Int
        /// How far a seek may land from its frame: 0 (sample-exact; WMA's too, whose packets'
        /// lengths the index finds by decoding the stream once).
        var seekWithin = 0
        /// The decoded audio is exactly the source's even where the container only estimates
        /// its length (Opus: its pre-skip and its last page's end).
        var decodesExactly = false
        var testDescription: String { name }
    }
    static let kinds: [Kind] = [
        Kind(name: "aac.m4a", args: ["-c:a", "aac", "-b:a", "192k", "-movie_timescale", "44100"], at48: false, exact: true, lag: 0),
        Kind(name: "alac.m4a", args: ["-c:a", "alac", "-movie_timescale", "44100"], at48: false, exact: true, lag: 0),
        Kind(name: "opus.webm", args: ["-c:a", "libopus", "-b:a", "128k"], at48: true, exact: false, lag: 0, decodesExactly: true),
        Kind(name: "vorbis.mkv", args: ["-c:a", "libvorbis", "-q:a", "6"], at48: false, exact: false, lag: 0),
        Kind(name: "video.mp4", args: ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=10", "-map", "1:v", "-map", "0:a", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "192k", "-movie_timescale", "44100"], at48: false, exact: true, lag: 0),
        Kind(name: "aac.mov", args: ["-c:a", "aac", "-b:a", "192k", "-movie_timescale", "44100"], at48: false, exact: true, lag: 0),
        Kind(name: "wma.wma", args: ["-c:a", "wmav2", "-b:a", "192k"], at48: false, exact: false, lag: -1),
        Kind(name: "ac3.ac3", args: ["-c:a", "ac3", "-b:a", "384k"], at48: false, exact: false, lag: -1),
    ]

    /// The files, each made once (test cases run at once).
    static let made = Locked<Set<String>>([])

    /// The file of `kind`, made once.
    static func make(_ kind: Kind) throws -> String {
        let path = dir.file(kind.name)
        try made.withLock { made in
            guard made.insert(kind.name).inserted else { return }
            let input = kind.at48 ? source.path48 : source.path
            // Inputs first (the video's test pattern after the audio), then the options.
            var args = ["-v", "error", "-y", "-i", input]
            var rest = kind.args
            if let i = rest.firstIndex(of: "-f") { args += Array(rest[i..<(i + 4)]); rest.removeSubrange(i..<(i + 4)) }
            let r = try run("/usr/bin/ffmpeg", args + rest + [path + ".part." + kind.name.split(separator: ".").last!])
            #expect(r.status == 0, "\(r)")
            try FileManager.default.moveItem(atPath: path + ".part." + kind.name.split(separator: ".").last!, toPath: path)
        }
        return path
    }

    static func readAll(_ f: borrowing SoundFile) -> [Float] {
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: 4_096 * f.info.channels)
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { f.read(into: $0.baseAddress!, frames: 4_096) }
            if n <= 0 { break }
            out += buffer[0..<(n * f.info.channels)]
        }
        return out
    }

    /// Where `part` (channel 0, from frame `at` of the decoded audio) lies in `reference`
    /// against where it should: 0 when in place.
    static func lag(_ part: [Double], in reference: [Double], at: Int, reach: Int = 64) -> Int {
        let from = max(at - reach, 0)
        let haystack = Array(reference[from..<min(at + part.count + reach, reference.count)])
        return Analysis.bestLag(of: part, in: haystack, range: 0...(2 * reach)) - (at - from)
    }

    @Test(arguments: kinds)
    func decodedInPlaceAndSeeksSampleExact(_ kind: Kind) throws {
        let path = try Self.make(kind)
        let reference = try Signals.read(kind.at48 ? Self.source.path48 : Self.source.path).samples
        let referenceFrames = reference.count / 2
        let f = try SoundFile(path: path)
        // As a player does: what seeks need built beside the reading (the index of a container
        // whose stamps are milliseconds; render's first seek builds it in place, as the fuzz
        // target's do).
        f.prepareToSeek()
        // libsndfile refuses these: FFmpeg decodes them.
        #expect(f.info.format.rawValue == 0 && f.info.channels == 2 && f.info.sampleRate == (kind.at48 ? 48_000 : 44_100))
        let whole = Self.readAll(f)
        let frames = whole.count / 2
        if kind.exact {
            #expect(frames == referenceFrames && f.info.frames == referenceFrames && !f.info.format.framesAreEstimated, "\(kind.name): \(frames) frames decoded, \(f.info.frames) said, the source \(referenceFrames)")
        } else {
            #expect(abs(frames - referenceFrames) <= (kind.decodesExactly ? 0 : 2_048) && f.info.format.framesAreEstimated, "\(kind.name): \(frames) frames decoded, the source \(referenceFrames)")
        }
        let decoded = Signals.channel(whole, 0, of: 2), original = Signals.channel(reference, 0, of: 2)
        // In place against the source: at 1 s, 4096 frames.
        let offset = Self.lag(Array(decoded[44_100..<(44_100 + 4_096)]), in: original, at: 44_100, reach: 2_000)
        print("containers: \(kind.name): \(frames) frames (source \(referenceFrames)), \(f.info.format), lag against the source \(offset)")
        if kind.lag == 0 { #expect(abs(offset) <= 1, "\(kind.name): \(offset) samples off the source") }
        // Ten seeks (the first into the first packet, the last near the end): what is read
        // after each is the audio decoded there from the start, to the sample.
        for k in 0..<10 {
            let at = k == 0 ? 100 : min(Int(Double(k) * 0.97 * 44_100) + 333 * k, frames - 5_000)
            try f.seek(toFrame: at)
            var part = [Float](repeating: 0, count: 2_048 * 2)
            let n = part.withUnsafeMutableBufferPointer { f.read(into: $0.baseAddress!, frames: 2_048) }
            #expect(n == 2_048, "\(kind.name): \(n) frames after a seek to \(at)")
            let got = Signals.channel(part, 0, of: 2)
            // The largest difference from the audio decoded there, and where (within the
            // container's precision) the read audio matches best.
            func error(_ shift: Int) -> Double {
                zip(got, decoded[max(at + shift, 0)...]).map { abs($0 - $1) }.max() ?? 1
            }
            let shifts = -kind.seekWithin...kind.seekWithin
            let best = shifts.min { error($0) < error($1) }!
            #expect(error(best) < 0.01 && (kind.seekWithin > 0 || best == 0), "\(kind.name): a seek to \(at): the largest difference \(error(0)) (at \(best) samples: \(error(best)))")
            if best != 0 { print("containers: \(kind.name): a seek to \(at) is \(best) samples off") }
        }
        // The millisecond-stamped containers sought with the index built ahead.
        #expect(f.seeksWithIndexBuiltAhead == !kind.exact, "\(kind.name)")
    }

    /// A video with no sound, an iTunes-style protected file, text named .m4a, and a second audio
    /// stream asked of a file with one: each one error that says so.
    @Test func whatCannotBePlayed() throws {
        let silent = Self.dir.file("silent.mp4")
        _ = try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2", "-c:v", "libx264", "-preset", "ultrafast", silent])
        do { _ = try SoundFile(path: silent); Issue.record("opened") } catch {
            guard case .ffmpeg(let e) = error else { Issue.record("\(error)"); return }
            #expect(e.kind == .noAudio && e.message == "has no audio track", "\(e)")
        }
        let text = Self.dir.file("notes.m4a")
        try "just some text\n".write(toFile: text, atomically: true, encoding: .utf8)
        do { _ = try SoundFile(path: text); Issue.record("opened") } catch {
            guard case .neither = error else { Issue.record("\(error)"); return }
        }
        let m4a = try Self.make(Self.kinds[0])
        do { _ = try SoundFile(path: m4a, audioStream: 1); Issue.record("opened") } catch {
            guard case .ffmpeg(let e) = error else { Issue.record("\(error)"); return }
            #expect(e.kind == .noSuchStream && e.message == "has no audio stream 1 (only 0)", "\(e)")
        }
    }

    /// Two audio streams (a tutorial with the music and a voice-over): the first by default,
    /// the second when asked, each listed with its language.
    @Test func aSecondAudioStream() throws {
        let path = Self.dir.file("two.mkv")
        let tone = Self.dir.file("tone.wav")
        try Signals.write(Signals.sine(1_000, seconds: 3), to: tone)
        let r = try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", Self.source.path, "-i", tone, "-map", "0:a", "-map", "1:a", "-c:a", "libvorbis",
                                             "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Voice", path])
        #expect(r.status == 0, "\(r)")
        let first = try SoundFile(path: path)
        #expect(first.audioStreams.map(\.number) == [0, 1] && first.audioStreams.map(\.language) == ["eng", "fra"] && first.audioStreams[1].title == "Voice")
        #expect(abs(Double(first.info.frames) / 44_100 - 10) < 0.05)
        let second = try SoundFile(path: path, audioStream: 1)
        // Its own length (Matroska's DURATION tag), not the container's (its longest stream's).
        #expect(abs(Double(second.info.frames) / 44_100 - 3) < 0.05, "\(second.info.frames) frames")
        let samples = Self.readAll(second)
        let seconds: Double = Double(samples.count / 2) / 44_100
        #expect(abs(seconds - 3) < 0.05)
        let left: [Double] = Signals.channel(samples, 0, of: 2)
        let f = Analysis.dominantFrequency(Array(left[22_050..<(22_050 + 16_384)]), sampleRate: 44_100)
        #expect(abs(f - 1_000) < 5, "\(f) Hz")
    }

    /// `info`'s header reader (no FFmpeg loaded) says of every MP4-family file exactly what
    /// FFmpeg's demuxer and decoder say, and answers for the files a store, a phone and ffmpeg
    /// write (else `info` would quietly load FFmpeg after all).
    @Test func theMP4HeaderSaysWhatFFmpegSays() throws {
        let odd = Self.dir.file("odd.wav")
        try Signals.write(Array(Signals.music(seconds: 4, seed: 7).prefix(2 * 147_017)), to: odd)
        let tagged = ["-metadata", "title=Caf\u{E9} Line", "-metadata", "artist=The Crew", "-metadata", "album=Studio", "-metadata", "date=2026",
                      "-metadata", "genre=Salsa", "-metadata", "track=3/12", "-metadata", "comment=count 8", "-metadata", "copyright=CC-BY"]
        var cases: [(name: String, args: [String], input: String, answers: Bool)] = [
            ("timescale1000.m4a", ["-c:a", "aac", "-b:a", "128k"], odd, true),
            ("odd.m4a", ["-c:a", "aac", "-b:a", "128k", "-movie_timescale", "44100"], odd, true),
            ("faststart.m4a", ["-c:a", "aac", "-movie_timescale", "44100", "-movflags", "+faststart"], odd, true),
            ("tagged.m4a", ["-c:a", "aac", "-movie_timescale", "44100"] + tagged, odd, true),
            ("tagged.mov", ["-c:a", "aac", "-movie_timescale", "44100"] + tagged, odd, true),
            ("mono48.m4a", ["-c:a", "aac", "-ac", "1", "-ar", "48000"], odd, true),
            ("surround.m4a", ["-c:a", "aac", "-ac", "6"], odd, true),
            ("alac24.m4a", ["-c:a", "alac", "-sample_fmt", "s32p"], odd, true),
            ("mp3.mp4", ["-c:a", "libmp3lame"], odd, false),
            ("fragmented.mp4", ["-c:a", "aac", "-movflags", "frag_keyframe+empty_moov"], odd, false),
        ]
        for kind in Self.kinds where kind.name.hasSuffix("m4a") || kind.name.hasSuffix("mp4") || kind.name.hasSuffix("mov") {
            cases.append((kind.name, [], "", true))
        }
        for c in cases {
            let path = c.input.isEmpty ? try Self.make(Self.kinds.first { $0.name == c.name }!) : Self.dir.file(c.name)
            if !c.input.isEmpty {
                let r = try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", c.input] + c.args + [path])
                #expect(r.status == 0, "\(r)")
            }
            let file = try SoundFile(path: path)
            let header = MP4Header.read(path)
            #expect((header != nil) == c.answers, "\(c.name): \(String(describing: header))")
            guard let header else { continue }
            #expect(header.info == file.info, "\(c.name)")
            #expect(header.streams == file.audioStreams, "\(c.name)")
            #expect(header.tags == file.tags, "\(c.name)")
            // (QuickTime's strings have no track number.)
            if c.name.hasPrefix("tagged") { #expect(header.tags["title"] == "Caf\u{E9} Line" && header.tags["artist"] == "The Crew", "\(header.tags)") }
            if c.name == "tagged.m4a" { #expect(header.tags["tracknumber"] == "3/12", "\(header.tags)") }
        }
        // A second audio stream, described as FFmpeg describes it.
        let two = Self.dir.file("two.m4a")
        let r = try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", odd, "-i", Self.source.path, "-map", "0:a", "-map", "1:a", "-c:a", "aac",
                                             "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", two])
        #expect(r.status == 0, "\(r)")
        let second = try SoundFile(path: two, audioStream: 1)
        let header = try #require(MP4Header.read(two, audioStream: 1))
        #expect(header.info == second.info && header.streams == second.audioStreams && header.streams.map(\.language) == ["eng", "fra"])
        #expect(MP4Header.read(two, audioStream: 2) == nil)
    }
}

