// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@testable import PracticeAudio

// What the decoder and the player do to an audio thread, for the suites that drive one directly.

extension RingBuffer {
    /// Writes `samples` (interleaved) as the whole of generation `generation`, its end marked, as
    /// the decoder does; returns the frames written.
    func writeWhole(_ samples: [Float], generation: UInt64) -> Int {
        beginGeneration(generation)
        let n = samples.withUnsafeBufferPointer { write($0.baseAddress!, frames: samples.count / channels) }
        markEnd()
        return n
    }
}

extension AudioThread {
    /// Waits (up to `seconds`) until generation `generation` has played to its end; whether it did.
    func waitForEnd(of generation: UInt64, seconds: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while endedGeneration.load(ordering: .acquiring) != generation && Date() < deadline { usleep(1_000) }
        return endedGeneration.load(ordering: .acquiring) == generation
    }
}
