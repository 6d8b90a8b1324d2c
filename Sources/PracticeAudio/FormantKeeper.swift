// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// Keeps a voice's formants where they were while Rubber Band moves its pitch (`--formant`).
///
/// Rubber Band's own formant option smooths the spectrum with a cepstral lifter about 650 Hz
/// wide, too coarse for the first two formants of a vowel, which lie a few hundred hertz apart:
/// on espeak-ng's /a/ shifted 2 semitones they still moved 5–6 % (9 % on a vowel made of known
/// resonances). Linear prediction is the classic tool for it: every 10 ms an all-pole filter of
/// order 2 + kHz is fitted to the input, the input is whitened by its inverse (an FIR lattice),
/// Rubber Band shifts the flat residual, and each output frame is coloured again (an all-pole
/// lattice) by the filter fitted where that frame comes from in the input (output frame m is input
/// frame m × tempo: the stretcher's output is lined up with its input). Both lattices interpolate
/// their reflection coefficients through each hop, from the previous hop's set to this one's, so
/// that nothing steps at a hop's edge and every coefficient set a frame needs is known when the
/// frame gets there; with no pitch change the two lattices undo each other.
///
/// Hops are counted from the last `reset`, whatever the sizes of the blocks fed, so a pass
/// rendered ahead and the same range played live come out the same to the sample. Decoder or
/// background thread only (it allocates as coefficient sets accumulate).
final class FormantKeeper {
    let channels: Int
    let hop: Int
    let order: Int
    /// Reflection coefficients, `order` per hop, from hop `firstSet` on.
    private var sets: [Double] = []
    private var firstSet = 0
    private var hops: Int { firstSet + sets.count / order }
    private var pendingFrames = 0
    private var whitenedFrames = 0
    /// The input position (frames since `reset`) of the next output frame.
    private var outputPosition = 0.0
    /// The step whose coefficients are in `k` (-1: none yet); whitening and colouring each set it.
    private var coefficientStep = -1
    private static let step = 16
    /// Fixed buffers, one allocation (the lattices run per sample: no array checks there): the
    /// Hann window, the analysis frame (the mono mix of the previous hop and this one) and the
    /// frame windowed, 2 × hop each; the lattices' memories (the backward errors of the previous
    /// sample), order per channel each; the coefficients in effect; Levinson–Durbin's
    /// autocorrelation and polynomials (order + 1 each).
    private let storage: UnsafeMutablePointer<Double>
    private let window, frame, windowed, whitening, colouring, k, r, a, next: UnsafeMutablePointer<Double>
    /// Interleaved input of the hop being filled.
    private let pending: UnsafeMutablePointer<Float>

    init(channels: Int, sampleRate: Int) {
        self.channels = channels
        hop = max(sampleRate / 100, 16)
        order = min(2 + sampleRate / 1000, 2 * hop - 1)
        let length = 2 * hop, memories = order * channels
        let total = 3 * length + 2 * memories + order + 3 * (order + 1)
        storage = .allocate(capacity: total)
        storage.initialize(repeating: 0, count: total)
        window = storage
        frame = window + length
        windowed = frame + length
        whitening = windowed + length
        colouring = whitening + memories
        k = colouring + memories
        r = k + order
        a = r + order + 1
        next = a + order + 1
        for i in 0..<length {
            let phase = 2 * Double.pi * (Double(i) + 0.5) / Double(length)
            window[i] = 0.5 - 0.5 * cos(phase)
        }
        pending = .allocate(capacity: hop * channels)
        pending.initialize(repeating: 0, count: hop * channels)
    }

    deinit {
        storage.deallocate()
        pending.deallocate()
    }

    /// Forgets everything: a new start (after a seek), input and output both at frame 0.
    func reset() {
        pendingFrames = 0
        sets.removeAll(keepingCapacity: true)
        firstSet = 0
        frame.update(repeating: 0, count: 2 * hop)
        whitening.update(repeating: 0, count: order * channels)
        colouring.update(repeating: 0, count: order * channels)
        coefficientStep = -1
        whitenedFrames = 0
        outputPosition = 0
    }

    /// Takes interleaved input; hands each whitened hop to `feed` (interleaved, `hop` frames).
    func whiten(_ samples: UnsafePointer<Float>, frames: Int, feed: (UnsafePointer<Float>, Int) -> Void) {
        var done = 0
        while done < frames {
            let n = min(hop - pendingFrames, frames - done)
            (pending + pendingFrames * channels).update(from: samples + done * channels, count: n * channels)
            pendingFrames += n
            done += n
            if pendingFrames == hop { emit(feed) }
        }
    }

    /// Whitens what is left of the last hop (at the end of the input) and hands it to `feed`.
    func finish(feed: (UnsafePointer<Float>, Int) -> Void) {
        if pendingFrames > 0 { emit(feed) }
    }

    /// Colours `frames` interleaved output frames in place.
    func colour(_ samples: UnsafeMutablePointer<Float>, frames: Int, tempo: Double) {
        for f in 0..<frames {
            coefficients(at: outputPosition)
            for c in 0..<channels {
                samples[f * channels + c] = Float(synthesise(Double(samples[f * channels + c]), memory: colouring + c * order))
            }
            outputPosition += tempo
        }
        // Sets before the one the next output frame interpolates from are no longer needed.
        let needed = max(Int(outputPosition) / hop - 1, 0)
        if needed - firstSet >= 64, needed < hops {
            sets.removeFirst((needed - firstSet) * order)
            firstSet = needed
        }
    }

    /// Fits this hop's filter, whitens the hop and hands it over.
    private func emit(_ feed: (UnsafePointer<Float>, Int) -> Void) {
        frame.update(from: frame + hop, count: hop)
        let scale = 1 / Double(channels)
        for i in 0..<hop {
            var sum = 0.0
            if i < pendingFrames { for c in 0..<channels { sum += Double(pending[i * channels + c]) } }
            frame[hop + i] = sum * scale
        }
        fit()
        coefficientStep = -1
        for f in 0..<pendingFrames {
            coefficients(at: Double(whitenedFrames + f))
            for c in 0..<channels {
                pending[f * channels + c] = Float(analyse(Double(pending[f * channels + c]), memory: whitening + c * order))
            }
        }
        whitenedFrames += pendingFrames
        coefficientStep = -1
        let n = pendingFrames
        pendingFrames = 0
        feed(pending, n)
    }

    /// Levinson–Durbin on the windowed frame's autocorrelation: appends this hop's reflection
    /// coefficients. A floor 40 dB under the frame's power keeps every coefficient inside ±1 and
    /// the whitening's gain bounded; a silent frame gives zeros (the lattices pass it through).
    private func fit() {
        let n = 2 * hop
        for i in 0..<n { windowed[i] = frame[i] * window[i] }
        for lag in 0...order {
            var sum = 0.0
            for i in lag..<n { sum += windowed[i] * windowed[i - lag] }
            r[lag] = sum
        }
        let start = sets.count
        sets.append(contentsOf: repeatElement(0, count: order))
        guard r[0] > 1e-12 else { return }
        r[0] *= 1.0001
        a.update(repeating: 0, count: order + 1)
        a[0] = 1
        var error = r[0]
        for i in 1...order {
            var acc = r[i]
            for j in 1..<i { acc += a[j] * r[i - j] }
            let reflection = max(-0.999, min(0.999, -acc / error))
            for j in 1..<i { next[j] = a[j] + reflection * a[i - j] }
            for j in 1..<i { a[j] = next[j] }
            a[i] = reflection
            sets[start + i - 1] = reflection
            error *= 1 - reflection * reflection
            guard error > 0 else { return }
        }
    }

    /// The reflection coefficients at input `position`: hop j's frames go from hop j − 1's set to
    /// hop j's, in steps of `Self.step` frames (a step is a 28th of a 10 ms hop at 44.1 kHz).
    private func coefficients(at position: Double) {
        let step = Int(position) / Self.step
        guard step != coefficientStep else { return }
        coefficientStep = step
        guard !sets.isEmpty else {
            k.update(repeating: 0, count: order)
            coefficientStep = -1
            return
        }
        let start = step * Self.step
        let j = min(start / hop, hops - 1)
        let fraction = min(max(Double(start - j * hop) / Double(hop), 0), 1)
        let to = max(j - firstSet, 0) * order, from = max(j - 1 - firstSet, 0) * order
        let order = order, k = k
        sets.withUnsafeBufferPointer { s in
            for i in 0..<order { k[i] = s[from + i] + (s[to + i] - s[from + i]) * fraction }
        }
    }

    /// The FIR lattice A(z): one sample through, the backward errors kept in `memory`.
    private func analyse(_ x: Double, memory: UnsafeMutablePointer<Double>) -> Double {
        var f = x, b = x
        for i in 0..<order {
            let old = memory[i]
            let f1 = f + k[i] * old
            let b1 = old + k[i] * f
            memory[i] = b
            f = f1
            b = b1
        }
        return f
    }

    /// The all-pole lattice 1/A(z), the inverse of `analyse`.
    private func synthesise(_ e: Double, memory: UnsafeMutablePointer<Double>) -> Double {
        var f = e
        for i in stride(from: order - 1, through: 0, by: -1) {
            f -= k[i] * memory[i]
            if i + 1 < order { memory[i + 1] = memory[i] + k[i] * f }
        }
        memory[0] = f
        return f
    }
}
