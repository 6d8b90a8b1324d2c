// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeAudio

@Suite struct SoundFileTests {
    let dir = ScratchDirectory("soundfile")

    @Test(arguments: [SoundFileWriter.Container.wav, .flac])
    func seekingIsSampleExactForLosslessFiles(container: SoundFileWriter.Container) throws {
        let path = dir.file("counter.\(container.rawValue)")
        let signal = Signals.counter(frames: 200_000)
        try Signals.write(signal, to: path, container: container)
        let whole = try Signals.read(path).samples
        #expect(whole == signal)   // 16-bit in, float out, exact
        for start in [1, 4_095, 4_096, 65_537, 123_457, 199_999] {
            let slice = try Signals.read(path, start: start, frames: 1_000).samples
            #expect(Array(slice) == Array(whole[(start * 2)..<min(whole.count, (start + 1_000) * 2)]), "seek to \(start)")
        }
    }

    /// Tags written into an MP3 read back as written (ID3 text is ISO 8859-1 there): accents
    /// exactly, dashes and curly quotes as their ASCII, never mojibake such as "â€“".
    @Test func mp3TagsReadBackWithoutMojibake() throws {
        let path = dir.file("tagged.mp3")
        try Signals.write(Signals.sine(440, seconds: 1), to: path, container: .mp3,
                          tags: ["title": "Café – “Noël” … 0:50.9", "artist": "Björk"])
        let tags = try SoundFile(path: path).tags
        #expect(tags["title"] == "Café - \"Noël\" ... 0:50.9" && tags["artist"] == "Björk", "\(tags)")
    }

    /// MP3 through libsndfile (mpg123) seeks sample-exactly: decoding from T gives the very samples a
    /// full decode has at T (measured: 0 samples off, identical values).
    @Test func mp3SeeksLandWhereAFullDecodeSaysTheyShould() throws {
        let path = dir.file("tone.mp3")
        // Noise, so every position looks different and correlation has one clear peak.
        var seed: UInt32 = 12_345
        var signal = [Float](repeating: 0, count: 6 * 44_100 * 2)
        for i in stride(from: 0, to: signal.count, by: 2) {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            signal[i] = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.6
            signal[i + 1] = signal[i]
        }
        try Signals.write(signal, to: path, container: .mp3)
        let whole = try Signals.read(path).samples
        let left = Signals.channel(whole, 0, of: 2)
        for start in [44_100, 100_000, 200_003] {
            let slice = Signals.channel(try Signals.read(path, start: start, frames: 4_096).samples, 0, of: 2)
            let lag = Analysis.bestLag(of: slice, in: left, range: (start - 3_000)...(start + 3_000))
            let maxDiff = zip(slice, left[lag...]).map { abs($0 - $1) }.max() ?? 1
            print("MP3 seek to \(start): landed at \(lag) (\(lag - start) samples), max diff there \(maxDiff)")
            #expect(lag == start, "MP3 seek to \(start) landed \(lag - start) samples away")
            #expect(maxDiff < 1e-4)
        }
    }

    @Test func reportsFormatAndTags() throws {
        let path = dir.file("tagged.flac")
        try Signals.write(Signals.sine(440, seconds: 1), to: path, container: .flac, format: .s24,
                          tags: ["title": "Verse Drill", "artist": "Ana", "album": "Drills"])
        let f = try SoundFile(path: path)
        #expect(f.info == SoundFile.Info(sampleRate: 44_100, channels: 2, frames: 44_100, format: f.info.format))
        #expect(f.info.format.description == "FLAC, 24-bit PCM")
        #expect(f.tags == ["title": "Verse Drill", "artist": "Ana", "album": "Drills"])
    }

    @Test func sixteenBitRoundTripIsBitExact() throws {
        let path = dir.file("in.wav"), copy = dir.file("copy.wav")
        try Signals.write(Signals.counter(frames: 70_000), to: path)
        let read = try Signals.read(path).samples
        try Signals.write(read, to: copy)
        let a = try Data(contentsOf: URL(fileURLWithPath: path)), b = try Data(contentsOf: URL(fileURLWithPath: copy))
        #expect(a == b)
    }

    /// Text named .mp3: neither decoder reads it (each says why); a missing file: libsndfile's
    /// reason alone (FFmpeg is not asked).
    @Test func unreadableInputsReportTheDecodersReasons() throws {
        let text = dir.file("notes.mp3")
        try "just some text, not audio\n".write(toFile: text, atomically: true, encoding: .utf8)
        do { _ = try SoundFile(path: text); Issue.record("opened") } catch {
            guard case .neither(let s, let f) = error else { Issue.record("\(error)"); return }
            #expect(s.function == "sf_open" && f.kind == .unreadable, "\(error)")
        }
        do { _ = try SoundFile(path: dir.file("missing.wav")); Issue.record("opened") } catch {
            guard case .sndfile(let e) = error else { Issue.record("\(error)"); return }
            #expect(e.function == "sf_open" && e.path == dir.file("missing.wav") && e.isSystem)
        }
    }
}
