import CAubio
import Glibc

/// Why aubio could not analyse a track.
public struct AubioError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// How much each hop's sound is new, heard as an ear hears it: the rise, in dB, of each of 40
/// mel bands (aubio's FFT over a Hann window of two hops, and its filter bank), averaged over the
/// bands, as librosa's onset strength is. A hi-hat counts as a kick does, where the energy alone
/// weighs a kick a hundred times more; a note's swell hardly counts.
public final class SpectralFlux {
    public let hop: Int
    private let api: UnsafeMutablePointer<practice_aubio_api>
    private let fft: OpaquePointer
    private let bank: OpaquePointer
    private let shape: UnsafeMutablePointer<fvec_t>
    /// The last two hops, as they came; then windowed; then their spectrum.
    private let frame: UnsafeMutablePointer<fvec_t>
    private let windowed: UnsafeMutablePointer<fvec_t>
    private let complex: UnsafeMutablePointer<fvec_t>
    private let spectrum: UnsafeMutablePointer<cvec_t>
    private let bands: UnsafeMutablePointer<fvec_t>
    private var previous: [Float]
    private var started = false
    /// One value a hop: the mean rise over the bands, in dB (0 where nothing rose).
    public private(set) var values: [Float] = []

    /// `hop`: a power of two of at least 16 samples.
    public init(sampleRate: Int, hop: Int) throws(AubioError) {
        api = try Aubio.api()
        self.hop = hop
        let window = 2 * hop, count = min(40, window / 8)
        let a = api.pointee
        guard let fft = a.new_fft(UInt32(window)) else { throw AubioError(message: "aubio cannot analyse \(window)-sample windows") }
        guard let bank = a.new_filterbank(UInt32(count), UInt32(window)),
              a.filterbank_set_mel_coeffs(bank, Float(sampleRate), 30, Float(min(11_000, sampleRate * 45 / 100))) == 0,
              let shape = "hanningz".withCString({ a.new_window(UnsafeMutablePointer(mutating: $0), UInt32(window)) }),
              let frame = a.new_fvec(UInt32(window)), let windowed = a.new_fvec(UInt32(window)),
              let complex = a.new_fvec(UInt32(window)), let spectrum = a.new_cvec(UInt32(window)),
              let bands = a.new_fvec(UInt32(count)) else {
            a.del_fft(fft)
            throw AubioError(message: "aubio cannot make mel bands at \(sampleRate) Hz")
        }
        self.fft = fft
        self.bank = bank
        self.shape = shape
        self.frame = frame
        self.windowed = windowed
        self.complex = complex
        self.spectrum = spectrum
        self.bands = bands
        previous = [Float](repeating: 0, count: count)
    }

    deinit {
        let a = api.pointee
        a.del_fft(fft)
        a.del_filterbank(bank)
        for v in [shape, frame, windowed, complex, bands] { a.del_fvec(v) }
        a.del_cvec(spectrum)
    }

    /// One block of `hop` mono samples (a shorter last block is padded with silence).
    public func feed(_ samples: UnsafeBufferPointer<Float>) {
        let a = api.pointee, data = frame.pointee.data!
        data.update(from: data + hop, count: hop)
        for k in 0..<hop { data[hop + k] = k < samples.count ? samples[k] : 0 }
        a.fvec_weighted_copy(frame, shape, windowed)
        a.fft_do_complex(fft, windowed, complex)
        a.fft_get_norm(complex, spectrum)
        a.filterbank_do(bank, spectrum, bands)
        let out = bands.pointee.data!, count = previous.count
        var rise: Float = 0
        previous.withUnsafeMutableBufferPointer { last in
            for b in 0..<count {
                // Magnitudes to dB, 100 dB below full scale at the least (silence is not -∞).
                let level = 20 * log10(max(out[b], 1e-5))
                if started { rise += max(level - last[b], 0) }
                last[b] = level
            }
        }
        started = true
        values.append(rise / Float(count))
    }
}

/// aubio's functions, opened once.
private enum Aubio {
    nonisolated(unsafe) private static let loaded: Result<UnsafeMutablePointer<practice_aubio_api>, AubioError> = {
        let api = UnsafeMutablePointer<practice_aubio_api>.allocate(capacity: 1)
        api.initialize(to: practice_aubio_api())
        if let problem = practice_aubio_load(api) {
            return .failure(AubioError(message: "cannot open aubio (\(String(cString: problem))); install Debian's libaubio5"))
        }
        return .success(api)
    }()

    static func api() throws(AubioError) -> UnsafeMutablePointer<practice_aubio_api> { try loaded.get() }
}
