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
            #expect(wrote == min(37, 128 - 0) || wrote <= 37)
            next += wrote
            let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, frames: 50) }
            for i in 0..<(got * 2) { #expect(out[i] == Float(expected * 2 + i)) }
            expected += got
        }
        #expect(expected > 128 * 5)   // wrapped many times
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
