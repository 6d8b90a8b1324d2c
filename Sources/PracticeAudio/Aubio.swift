import CAubio
import Glibc

/// Why aubio could not track beats.
public struct AubioError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// aubio's beat tracker over mono audio: feed blocks of `hop` samples, get the beats found (in
/// seconds from the start) as it goes. The library is opened with dlopen on first use.
public final class BeatTracker {
    public let hop: Int
    private let api: UnsafeMutablePointer<practice_aubio_api>
    private let tempo: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>
    public private(set) var beats: [Double] = []

    /// `window`: the analysis window (1024 samples at 44.1 kHz, as `aubio tempo` uses), `hop` the step (512).
    public init(sampleRate: Int, window: Int = 1024, hop: Int = 512) throws(AubioError) {
        api = try Aubio.api()
        self.hop = hop
        guard let tempo = api.pointee.new_tempo("default", UInt32(window), UInt32(hop), UInt32(sampleRate)) else {
            throw AubioError(message: "aubio cannot track beats at \(sampleRate) Hz")
        }
        guard let input = api.pointee.new_fvec(UInt32(hop)), let output = api.pointee.new_fvec(2) else {
            api.pointee.del_tempo(tempo)
            throw AubioError(message: "aubio could not start")
        }
        self.tempo = tempo
        self.input = input
        self.output = output
    }

    deinit {
        api.pointee.del_tempo(tempo)
        api.pointee.del_fvec(input)
        api.pointee.del_fvec(output)
    }

    /// One block of `hop` mono samples (a shorter last block is padded with silence).
    public func feed(_ samples: UnsafeBufferPointer<Float>) {
        let data = input.pointee.data!
        for k in 0..<hop { data[k] = k < samples.count ? samples[k] : 0 }
        api.pointee.tempo_do(tempo, input, output)
        if output.pointee.data[0] != 0 { beats.append(Double(api.pointee.tempo_get_last_s(tempo))) }
    }

    /// aubio's own estimate of the tempo (beats a minute).
    public var bpm: Double { Double(api.pointee.tempo_get_bpm(tempo)) }
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
