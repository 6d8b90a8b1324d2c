// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeAudio

/// Test signals written with the real libsndfile, and audio read back with it.
public enum Signals {
    /// Interleaved frames of a sine at `frequency` Hz on every channel.
    public static func sine(_ frequency: Double, seconds: Double, sampleRate: Int = 44_100, channels: Int = 2,
                            amplitude: Double = 0.5) -> [Float] {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        var out = [Float](repeating: 0, count: frames * channels)
        let w = 2 * Double.pi * frequency / Double(sampleRate)
        for i in 0..<frames {
            let v = Float(amplitude * sin(w * Double(i)))
            for c in 0..<channels { out[i * channels + c] = v }
        }
        return out
    }

    /// A ramp that encodes its own frame index: sample i (per channel c) is a distinct value, so any
    /// slice of it tells where it came from. Values stay within 16-bit PCM (exact through s16 and float).
    public static func counter(frames: Int, channels: Int = 2) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                let v = Int32((i * 7 + c * 13_001) % 65_536) - 32_768
                out[i * channels + c] = Float(v) / 32_768
            }
        }
        return out
    }

    /// The frame of `Signals.counter` (stereo) that the pair (`left`, `right`) holds, mod 65,536,
    /// or nil when the pair is not one of its frames (silence, a fade, a mix).
    /// 28,087 = 7⁻¹ mod 65,536.
    public static func counterFrame(left: Float, right: Float) -> Int? {
        let l = Double(left) * 32_768, r = Double(right) * 32_768
        guard l == l.rounded(), r == r.rounded() else { return nil }
        let i = ((Int(l) + 32_768) * 28_087) & 0xFFFF
        return (i * 7 + 13_001) % 65_536 - 32_768 == Int(r) ? i : nil
    }

    /// Generated music: a note every `noteSeconds` (250 ms) from a minor scale (three harmonics,
    /// decaying) over a bass note every fourth note; `seed` picks the tune, so the same seed with
    /// another `noteSeconds` is the same tune played at another tempo. Stereo, 44.1 kHz.
    public static func music(seconds: Double, seed: UInt64, noteSeconds: Double = 0.25) -> [Float] {
        var rng = SplitMix(seed: seed)
        let scale = [220.0, 246.94, 261.63, 293.66, 329.63, 349.23, 392.0, 440.0]
        let frames = Int(seconds * 44_100)
        var out = [Float](repeating: 0, count: frames * 2)
        let step = Int(noteSeconds * 44_100)
        for (n, start) in stride(from: 0, to: frames, by: step).enumerated() {
            let f = scale[Int(rng.next() % UInt64(scale.count))] * (rng.next() % 2 == 0 ? 1 : 2)
            let bass = n % 4 == 0 ? scale[Int(rng.next() % 4)] / 2 : 0
            for i in 0..<min(step, frames - start) {
                let t = Double(i) / 44_100, decay = exp(-t * 6)
                var v = 0.25 * decay * (sin(2 * .pi * f * t) + 0.5 * sin(4 * .pi * f * t) + 0.25 * sin(6 * .pi * f * t))
                if bass > 0 { v += 0.2 * exp(-t * 2) * sin(2 * .pi * bass * t) }
                out[2 * (start + i)] = Float(v); out[2 * (start + i) + 1] = Float(v)
            }
        }
        return out
    }

    /// Writes interleaved frames to `path` with libsndfile.
    public static func write(_ samples: [Float], to path: String, container: SoundFileWriter.Container = .wav,
                             format: SoundFileWriter.SampleFormat = .s16, sampleRate: Int = 44_100, channels: Int = 2,
                             tags: [String: String] = [:]) throws {
        var w = try SoundFileWriter(path: path, container: container, sampleFormat: format, sampleRate: sampleRate,
                                    channels: channels, tags: tags)
        try samples.withUnsafeBufferPointer { try w.write($0.baseAddress!, frames: samples.count / channels) }
        try w.close()
    }

    /// Reads a whole file (or `frames` frames from `start`) as interleaved floats.
    public static func read(_ path: String, start: Int = 0, frames: Int? = nil) throws -> (samples: [Float], info: SoundFile.Info) {
        let f = try SoundFile(path: path)
        if start > 0 { try f.seek(toFrame: start) }
        let want = frames ?? (f.info.frames - start)
        var out = [Float](repeating: 0, count: max(want, 0) * f.info.channels)
        var got = 0
        out.withUnsafeMutableBufferPointer { buf in
            while got < want {
                let n = f.read(into: buf.baseAddress! + got * f.info.channels, frames: min(65_536, want - got))
                if n <= 0 { break }
                got += n
            }
        }
        out.removeLast(out.count - got * f.info.channels)
        return (out, f.info)
    }

    /// One channel of interleaved frames.
    public static func channel(_ samples: [Float], _ c: Int, of channels: Int) -> [Double] {
        stride(from: c, to: samples.count, by: channels).map { Double(samples[$0]) }
    }

    /// Reads raw little-endian float32 interleaved samples (an ALSA `file` plugin capture).
    public static func readRawFloat(_ path: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// A small seeded generator (SplitMix64), so each controller's commands are the same every run.
public struct SplitMix {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Signals {
    /// Mono music at 44.1 kHz: at each beat a kick (a 60 Hz thump, louder on every `accentEvery`th
    /// beat from `oneAt`), off-beat hats (noise, at `swing` of the way to the next beat), and a
    /// quiet pad under it all.
    public static func drums(beats: [Double], seconds: Double, accentEvery: Int = 4, oneAt: Int = 0, swing: Double = 0.5) -> [Float] {
        let rate = 44_100.0
        var out = [Float](repeating: 0, count: Int(seconds * rate))
        var noise: UInt32 = 1
        for (k, t) in beats.enumerated() {
            let accent: Float = (k - oneAt) % accentEvery == 0 ? 1.0 : 0.45
            let start = Int(t * rate)
            for i in 0..<Int(0.12 * rate) where start + i < out.count {
                let x = Double(i) / rate
                out[start + i] += accent * 0.8 * Float(sin(2 * .pi * 60 * x) * exp(-x * 30))
            }
            if k + 1 < beats.count {
                let hat = Int((t + (beats[k + 1] - t) * swing) * rate)
                for i in 0..<Int(0.03 * rate) where hat + i < out.count {
                    noise = noise &* 1_664_525 &+ 1_013_904_223
                    out[hat + i] += 0.15 * (Float(noise >> 8) / Float(1 << 24) - 0.5) * Float(exp(-Double(i) / rate * 120))
                }
            }
        }
        for i in 0..<out.count { out[i] += 0.02 * Float(sin(2 * .pi * 220 * Double(i) / rate)) }
        return out
    }
}
