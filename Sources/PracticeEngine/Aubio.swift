// SPDX-License-Identifier: GPL-3.0-or-later
internal import CAubio
import Glibc
import PracticeSystem

/// Why aubio could not analyse a track.
public struct AubioError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// How much each hop's sound is new, heard as an ear hears it: the rise, in dB, of the power in
/// each of 40 mel bands (aubio's FFT over a Hann window of four hops, 46 ms at 44.1 kHz, and the
/// triangles of its mel filter bank, each applied over the bins it covers; 80 dB below a
/// full-scale sine is silence), averaged over the bands, as librosa's onset strength is. A
/// hi-hat counts as a kick does, where the energy alone weighs a kick a hundred times more; a
/// note's swell hardly counts.
public final class SpectralFlux {
    public let hop: Int
    private let api: UnsafeMutablePointer<practice_aubio_api>
    private let fft: OpaquePointer
    /// Each band's first bin and weights.
    private let triangles: [(first: Int, weights: [Float])]
    private let shape: UnsafeMutablePointer<fvec_t>
    /// The last four hops, as they came; then windowed; then their spectrum.
    private let frame: UnsafeMutablePointer<fvec_t>
    private let windowed: UnsafeMutablePointer<fvec_t>
    private let complex: UnsafeMutablePointer<fvec_t>
    private let spectrum: UnsafeMutablePointer<cvec_t>
    private var previous: [Float]
    private let floor: Float
    private var started = false
    /// One value a hop: the mean rise over the bands, in dB (0 where nothing rose).
    public private(set) var values: [Float] = []
    /// The same over the bands centred below 250 Hz alone (a kick, a bass note).
    public private(set) var lows: [Float] = []
    private let lowCount: Int

    /// `hop`: a power of two of at least 16 samples.
    public init(sampleRate: Int, hop: Int) throws(AubioError) {
        api = try Aubio.api()
        self.hop = hop
        let window = 4 * hop, count = min(40, window / 16)
        // A full-scale sine's power in its bin, less 80 dB.
        floor = 20 * log10(Float(window) / 4) - 80
        let a = api.pointee
        // The mel triangles, from aubio's filter bank (unnormalised: a band's constant gain is
        // nothing to a rise in dB), kept as each band's bins and weights.
        guard let bank = a.new_filterbank(UInt32(count), UInt32(window)) else { throw AubioError(message: "aubio cannot make mel bands at \(sampleRate) Hz") }
        defer { a.del_filterbank(bank) }
        guard a.filterbank_set_norm(bank, 0) == 0,
              a.filterbank_set_mel_coeffs(bank, Float(sampleRate), 30, Float(min(11_000, sampleRate * 45 / 100))) == 0,
              let coefficients = a.filterbank_get_coeffs(bank) else {
            throw AubioError(message: "aubio cannot make mel bands at \(sampleRate) Hz")
        }
        let bins = Int(coefficients.pointee.length)
        triangles = (0..<count).map { b in
            let row = coefficients.pointee.data[b]!
            guard let first = (0..<bins).first(where: { row[$0] != 0 }), let last = (0..<bins).last(where: { row[$0] != 0 }) else { return (0, []) }
            return (first, (first...last).map { row[$0] })
        }
        // The bands centred below 250 Hz (a bin is sampleRate / window wide).
        lowCount = max(1, triangles.filter { (Double($0.first) + Double($0.weights.count) / 2) * Double(sampleRate) / Double(window) <= 250 }.count)
        let shape = "hanningz".withCString { a.new_window(UnsafeMutablePointer(mutating: $0), UInt32(window)) }
        let vectors = (0..<3).compactMap { _ in a.new_fvec(UInt32(window)) }
        let fft = a.new_fft(UInt32(window)), spectrum = a.new_cvec(UInt32(window))
        guard let shape, vectors.count == 3, let fft, let spectrum else {
            for v in vectors + [shape].compactMap({ $0 }) { a.del_fvec(v) }
            if let fft { a.del_fft(fft) }
            if let spectrum { a.del_cvec(spectrum) }
            throw AubioError(message: "aubio cannot analyse \(window)-sample windows")
        }
        self.fft = fft
        self.spectrum = spectrum
        self.shape = shape
        (frame, windowed, complex) = (vectors[0], vectors[1], vectors[2])
        previous = [Float](repeating: 0, count: count)
    }

    deinit {
        let a = api.pointee
        a.del_fft(fft)
        for v in [shape, frame, windowed, complex] { a.del_fvec(v) }
        a.del_cvec(spectrum)
    }

    /// One block of `hop` mono samples (a shorter last block is padded with silence).
    public func feed(_ samples: UnsafeBufferPointer<Float>) {
        let a = api.pointee, data = frame.pointee.data!
        data.update(from: data + hop, count: 3 * hop)
        for k in 0..<hop { data[3 * hop + k] = k < samples.count ? samples[k] : 0 }
        a.fvec_weighted_copy(frame, shape, windowed)
        a.fft_do_complex(fft, windowed, complex)
        a.fft_get_norm(complex, spectrum)
        let norm = spectrum.pointee.norm!, count = previous.count
        var rise: Float = 0, low: Float = 0
        previous.withUnsafeMutableBufferPointer { last in
            for b in 0..<count {
                // The band's power: its triangle over the bins' squared magnitudes.
                var power: Float = 0
                triangles[b].weights.withUnsafeBufferPointer { w in
                    let m = norm + triangles[b].first
                    var k = 0
                    while k < w.count { power += w[k] * m[k] * m[k]; k += 1 }
                }
                let level = max(10 * log10(max(power, 1e-20)), floor)
                if started { rise += max(level - last[b], 0); if b < lowCount { low += max(level - last[b], 0) } }
                last[b] = level
            }
        }
        started = true
        values.append(rise / Float(count))
        lows.append(low / Float(lowCount))
    }
}

/// aubio's functions, opened once.
private enum Aubio {
    nonisolated(unsafe) private static let loaded: Result<UnsafeMutablePointer<practice_aubio_api>, AubioError> = {
        DynamicLibrary.load(practice_aubio_api()) { practice_aubio_load($0) }
            .mapError { AubioError(message: "cannot open aubio (\($0.message)); install Debian's libaubio5") }
    }()

    static func api() throws(AubioError) -> UnsafeMutablePointer<practice_aubio_api> { try loaded.get() }
}
