// SPDX-License-Identifier: GPL-3.0-or-later
internal import CEspeak
import Glibc
import PracticeSystem

/// Why espeak-ng could not speak.
public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Words spoken by espeak-ng (English, its default voice), as mono samples at a given rate,
/// trimmed so that each begins where its sound begins: a count-in's "five, six, seven, eight"
/// placed on the beats. The library is opened with dlopen on first use; words are kept once made.
public enum Speech {
    private static let made = Locked<[String: [Float]]>([:])

    /// `word` at `sampleRate` Hz, from its first sound on (below 1 % of the peak is silence).
    public static func word(_ word: String, sampleRate: Int) throws(SpeechError) -> [Float] {
        let key = "\(sampleRate)\u{0}\(word)"
        if let known = made.withLock({ $0[key] }) { return known }
        let (samples, rate) = try speak(word)
        let floats = samples.map { Float($0) / 32_768 }
        let peak = floats.map(abs).max() ?? 0
        let start = floats.firstIndex { abs($0) > peak * 0.01 } ?? 0
        let end = (floats.lastIndex { abs($0) > peak * 0.01 } ?? floats.count - 1) + 1
        let trimmed = Array(floats[start..<max(end, start)])
        let out = resample(trimmed, from: rate, to: sampleRate)
        made.withLock { $0[key] = out }
        return out
    }

    /// Linear interpolation: speech needs nothing finer.
    static func resample(_ x: [Float], from a: Int, to b: Int) -> [Float] {
        guard a != b, !x.isEmpty else { return x }
        let n = Int((Double(x.count) * Double(b) / Double(a)).rounded())
        return (0..<n).map { i in
            let p = Double(i) * Double(a) / Double(b)
            let k = Int(p), f = Float(p - Double(k))
            return k + 1 < x.count ? x[k] * (1 - f) + x[k + 1] * f : x[min(k, x.count - 1)]
        }
    }

    private static func speak(_ text: String) throws(SpeechError) -> (samples: [Int16], rate: Int) {
        let api = try Espeak.api()
        return try Espeak.lock.withLock { () throws(SpeechError) -> ([Int16], Int) in
            let n = practice_espeak_speak(api.api, text)
            guard n >= 0, let samples = practice_espeak_data() else { throw SpeechError(message: "espeak-ng could not speak '\(text)'") }
            return (Array(UnsafeBufferPointer(start: samples, count: n)), api.rate)
        }
    }
}

/// espeak-ng's functions, opened and initialised once.
private enum Espeak {
    struct Loaded: @unchecked Sendable { let api: UnsafeMutablePointer<practice_espeak_api>; let rate: Int }
    static let lock = Lock()
    private static let loaded: Result<Loaded, SpeechError> = {
        let api: UnsafeMutablePointer<practice_espeak_api>
        switch DynamicLibrary.load(practice_espeak_api(), { practice_espeak_load($0) }) {
        case .success(let table): api = table
        case .failure(let problem): return .failure(SpeechError(message: "cannot open espeak-ng (\(problem.message)); install Debian's libespeak-ng1"))
        }
        let rate = api.pointee.initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else { return .failure(SpeechError(message: "espeak-ng could not start (is espeak-ng-data installed?)")) }
        _ = api.pointee.set_voice_by_name("en")
        return .success(Loaded(api: api, rate: Int(rate)))
    }()

    static func api() throws(SpeechError) -> Loaded { try loaded.get() }
}
