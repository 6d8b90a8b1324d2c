// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeAudio

/// The SoundTouch wrapper at the edge of what SoundTouch takes.
@Suite struct TimeStretcherTests {
    /// 16 channels pass `soundtouch_setChannels` and then abort the process in SoundTouch's filter
    /// (an assertion in Debian's build): the wrapper refuses them with an error instead. 15 stretch,
    /// every channel keeping its own tone.
    @Test func moreChannelsThanSoundTouchFiltersAreAnErrorNotAnAbort() throws {
        let refused = #expect(throws: SoundTouchError.self) { _ = try TimeStretcher(channels: 16, sampleRate: 48_000) }
        #expect(refused?.function == "soundtouch_setChannels(16)")

        let channels = 15, frames = 48_000
        var input = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels { input[f * channels + c] = Float(0.3 * sin(2 * Double.pi * Double(300 + 100 * c) * Double(f) / 48_000)) }
        }
        var stretcher = try TimeStretcher(channels: channels, sampleRate: 48_000)
        stretcher.setTempo(0.8)
        try input.withUnsafeBufferPointer { try stretcher.put($0.baseAddress!, frames: frames) }
        try stretcher.flush()
        var output: [Float] = []
        var chunk = [Float](repeating: 0, count: 4_096 * channels)
        while true {
            let n = chunk.withUnsafeMutableBufferPointer { stretcher.receive(into: $0.baseAddress!, maxFrames: 4_096) }
            if n == 0 { break }
            output += chunk[0..<(n * channels)]
        }
        #expect(abs(output.count / channels - 60_000) < 4_800, "\(output.count / channels) frames for 48,000 at 0.8×")
        for c in 0..<channels {
            let x = Signals.channel(output, c, of: channels)
            let f = Analysis.dominantFrequency(Array(x[10_000..<26_384]), sampleRate: 48_000)
            #expect(abs(f - Double(300 + 100 * c)) < 2, "channel \(c + 1): \(f) Hz")
        }
    }
}
