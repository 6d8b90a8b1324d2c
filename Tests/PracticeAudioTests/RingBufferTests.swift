// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
@testable import PracticeAudio

@Suite struct RingBufferTests {
    @Test func capacityIsAPowerOfTwoAndWrapsWithoutLoss() {
        let ring = RingBuffer(minimumFrames: 100, channels: 2)
        #expect(ring.capacity == 128)
        var next = 0, expected = 0
        var out = [Float](repeating: 0, count: 2 * 50)
        for _ in 0..<40 {
            let chunk = (0..<(2 * 37)).map { Float(next * 2 + $0) }
            let wrote = chunk.withUnsafeBufferPointer { ring.write($0.baseAddress!, frames: 37) }
            #expect(wrote == 37, "the reader takes more than is written each round, so every write fits")
            next += wrote
            let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, frames: 50) }
            for i in 0..<(got * 2) { #expect(out[i] == Float(expected * 2 + i)) }
            expected += got
        }
        #expect(expected > 128 * 5)   // wrapped many times
    }

    /// A producer and a consumer on two threads, in chunks of every size up to the capacity:
    /// 4,000,000 frames come out whole and in order (each frame holds its own index).
    @Test func twoThreadsPassEveryFrameInOrder() {
        let ring = RingBuffer(minimumFrames: 1_000, channels: 2)
        let total = 4_000_000
        let producer = Thread {
            var next = 0, chunk = [Float](repeating: 0, count: 2 * 1_024), size = 1
            while next < total {
                let n = min(size, total - next)
                for i in 0..<n { chunk[2 * i] = Float(next + i); chunk[2 * i + 1] = -Float(next + i) }
                let wrote = chunk.withUnsafeBufferPointer { ring.write($0.baseAddress!, frames: n) }
                next += wrote
                size = size % 1_023 + 1
                if wrote == 0 { sched_yield() }
            }
        }
        producer.start()
        var expected = 0, wrong = 0, out = [Float](repeating: 0, count: 2 * 700), size = 700
        while expected < total {
            let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, frames: size) }
            for i in 0..<got where out[2 * i] != Float(expected + i) || out[2 * i + 1] != -Float(expected + i) { wrong += 1 }
            expected += got
            size = size % 700 + 1
            if got == 0 { sched_yield() }
        }
        #expect(expected == total && wrong == 0, "\(wrong) frames out of place")
    }

    @Test func writerNeverOverrunsTheReader() {
        let ring = RingBuffer(minimumFrames: 64, channels: 1)
        let data = [Float](repeating: 1, count: 100)
        #expect(data.withUnsafeBufferPointer { ring.write($0.baseAddress!, frames: 100) } == 64)
        #expect(data.withUnsafeBufferPointer { ring.write($0.baseAddress!, frames: 1) } == 0)
        #expect(ring.freeFrames == 0)
        #expect(ring.availableFrames == 64)
    }

    @Test func aNewGenerationSkipsWhatCameBefore() {
        let ring = RingBuffer(minimumFrames: 64, channels: 1)
        let old = [Float](repeating: 1, count: 20), new = [Float](repeating: 2, count: 10)
        ring.beginGeneration(1)
        _ = old.withUnsafeBufferPointer { ring.write($0.baseAddress!, frames: 20) }
        let start = ring.beginGeneration(2)
        #expect(start == 20)
        _ = new.withUnsafeBufferPointer { ring.write($0.baseAddress!, frames: 10) }
        ring.markEnd()
        #expect(ring.producerGeneration == 2)
        #expect(ring.skipToGeneration() == 20)
        var out = [Float](repeating: 0, count: 64)
        let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, frames: 64) }
        #expect(got == 10)
        #expect(out.prefix(10).allSatisfy { $0 == 2 })
        #expect(ring.isAtEnd)
    }
}
