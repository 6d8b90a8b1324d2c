// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeTestSupport
@testable import PracticeAudio

@Suite struct ResamplerTests {
    /// soxr's high quality, measured on a 15 kHz sine from 44.1 to 48 kHz. README states the figure.
    @Test func resamplingA15kHzSineAddsAlmostNothing() throws {
        let r = try Resampler(inputRate: 44_100, outputRate: 48_000, channels: 1)
        let input = Signals.sine(15_000, seconds: 2, channels: 1, amplitude: 0.5)
        var output = [Float](repeating: 0, count: r.outputCapacity(forInput: input.count))
        var produced = 0
        try input.withUnsafeBufferPointer { i in
            try output.withUnsafeMutableBufferPointer { o in
                let step = try r.process(i.baseAddress!, frames: input.count, into: o.baseAddress!, capacity: o.count)
                produced = step.produced
                produced += try r.process(nil, frames: 0, into: o.baseAddress! + produced, capacity: o.count - produced).produced
            }
        }
        #expect(abs(produced - 96_000) <= 1)
        let middle = output[20_000..<60_000].map(Double.init)
        let f = Analysis.dominantFrequency(middle, sampleRate: 48_000)
        #expect(abs(f - 15_000) < 1)
        let thdn = Analysis.thdN(Array(middle.prefix(8_192)), frequency: f, sampleRate: 48_000)
        print("soxr 44.1→48 kHz, 15 kHz sine: THD+N \(thdn) dB")
        #expect(thdn < -100)
    }
}
