// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeTestSupport
@testable import PracticeAudio

/// 16-bit samples in and out: the conversions `render` and the 16-bit sound devices use, checked
/// through the real files libsndfile writes and reads.
@Suite struct SampleConversionTests {
    let dir = ScratchDirectory("conversion")

    /// Float → 16 bits: times 32,768, rounded half to even, clipped at 32,767 and −32,768, NaN as 0
    /// (the same in WAV, AIFF and FLAC). libsndfile's own float path floors in WAV and AIFF (0.6 LSB
    /// became 0 and −0.6 became −1, half a step low on average), and rounds in FLAC.
    @Test(arguments: [SoundFileWriter.Container.wav, .aiff, .flac])
    func sixteenBitsAreRoundedHalfToEvenAndClipped(container: SoundFileWriter.Container) throws {
        let lsb: Float = 1 / 32_768
        let cases: [(Float, Int16)] = [
            (0, 0), (0.4 * lsb, 0), (0.5 * lsb, 0), (0.6 * lsb, 1), (1.5 * lsb, 2), (2.5 * lsb, 2), (3.5 * lsb, 4),
            (-0.4 * lsb, 0), (-0.5 * lsb, 0), (-0.6 * lsb, -1), (-1.5 * lsb, -2), (-2.5 * lsb, -2),
            (1_000.49 * lsb, 1_000), (-1_000.51 * lsb, -1_001), (0.25, 8_192), (-0.25, -8_192),
            (32_766.5 * lsb, 32_766), (32_766.7 * lsb, 32_767), (1, 32_767), (2, 32_767), (.infinity, 32_767),
            (-1, -32_768), (-32_768.9 * lsb, -32_768), (-3, -32_768), (-.infinity, -32_768), (.nan, 0),
        ]
        // 37 frames of two channels: more than one vector's worth and a tail the vector loop leaves.
        var samples = [Float](), expected = [Int16]()
        for frame in 0..<37 {
            let (a, x) = cases[frame % cases.count], (b, y) = cases[(frame * 7 + 3) % cases.count]
            samples += [a, b]
            expected += [x, y]
        }
        let path = dir.file("steps.\(container.rawValue)")
        try Signals.write(samples, to: path, container: container, format: .s16)
        let file = try SoundFile(path: path)
        var got = [Int16](repeating: 99, count: expected.count)
        let n = got.withUnsafeMutableBufferPointer { file.readShorts(into: $0.baseAddress!, frames: 37) }
        #expect(n == 37)
        for i in expected.indices where got[i] != expected[i] {
            Issue.record("\(container) sample \(i): \(samples[i] * 32_768) LSB written as \(got[i]), expected \(expected[i])")
        }
    }

    /// 16 bits → float: every one of the 65,536 values reads back as itself divided by 32,768, from
    /// WAV and AIFF (read as shorts into the buffer and widened there) as from FLAC (libsndfile's
    /// float path), in reads of an odd number of frames and one that asks for more than is left.
    @Test(arguments: [SoundFileWriter.Container.wav, .aiff, .flac])
    func everySixteenBitValueReadsAsItsFloat(container: SoundFileWriter.Container) throws {
        let values = (0..<65_536).map { Float(Int16(truncatingIfNeeded: $0 - 32_768)) / 32_768 }
        let path = dir.file("every.\(container.rawValue)")
        try Signals.write(values, to: path, container: container, format: .s16)
        let file = try SoundFile(path: path)
        #expect(file.info.frames == 32_768)
        var out = [Float](repeating: .nan, count: values.count + 2)   // room for the last read's extra frame
        var frames = 0
        out.withUnsafeMutableBufferPointer { buffer in
            while true {
                let n = file.read(into: buffer.baseAddress! + frames * 2, frames: min(5_003, 32_769 - frames))
                if n <= 0 { break }
                frames += n
            }
        }
        #expect(frames == 32_768)
        #expect(Array(out.prefix(values.count)) == values)
    }

    /// 24 bits go through libsndfile's float path, scaled here: a NaN is written as 0 there too
    /// (libsndfile's FLAC encoder refused the whole file for one, "write failed").
    @Test(arguments: [SoundFileWriter.Container.wav, .aiff, .flac])
    func aNaNIsWrittenAsSilenceInTwentyFourBitsToo(container: SoundFileWriter.Container) throws {
        let samples: [Float] = [0.5, .nan, -0.25, 0.125, .nan, .nan, -1, 0.75]
        let path = dir.file("nan24.\(container.rawValue)")
        try Signals.write(samples, to: path, container: container, format: .s24)
        #expect(try Signals.read(path).samples == [0.5, 0, -0.25, 0.125, 0, 0, -1, 0.75])
    }

    /// A real song (wesnoth's "frantic", 20 s from 0:30): written in 16 bits to WAV, AIFF and FLAC,
    /// every sample is its decoded float times 32,768 rounded half to even (clipped), and each file
    /// reads back as exactly that (WAV and AIFF widened in place, over 216 blocks of 4,096 frames;
    /// FLAC through libsndfile's float path).
    @Test func aRealSongIsRoundedAndReadBackTheSameFromEveryContainer() throws {
        let song = "/usr/share/games/wesnoth/1.16/data/core/music/frantic.ogg"
        let decoded = try Signals.read(song, start: 30 * 44_100, frames: 20 * 44_100).samples
        try #require(decoded.count == 20 * 44_100 * 2)
        let expected = decoded.map { x -> Float in
            let y = x * 32_768
            return (y >= 32_767 ? 32_767 : y <= -32_768 ? -32_768 : y.rounded(.toNearestOrEven)) / 32_768
        }
        #expect(zip(decoded, expected).contains { $0 != $1 }, "the song's samples are not already whole 16-bit steps")
        for container in [SoundFileWriter.Container.wav, .aiff, .flac] {
            let path = dir.file("frantic.\(container.rawValue)")
            try Signals.write(decoded, to: path, container: container, format: .s16)
            let back = try Signals.read(path).samples
            let wrong = zip(back, expected).filter { $0 != $1 }.count
            #expect(back.count == expected.count && wrong == 0, "\(container): \(wrong) of \(expected.count) samples differ")
        }
    }
}
