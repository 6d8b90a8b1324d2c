// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSoxr
import PracticeSystem

/// Converts the sample rate of interleaved float frames with libsoxr (high quality, streaming).
/// Used for the device's rate and, with the stretcher, for pitch shifts.
public struct Resampler: ~Copyable {
    private let handle: soxr_t
    private let api: UnsafeMutablePointer<practice_soxr_api>
    public let channels: Int
    public let inputRate: Double
    public let outputRate: Double

    /// Creates a streaming resampler. The corresponding C function is `soxr_create`.
    public init(inputRate: Double, outputRate: Double, channels: Int) throws(SoxrError) {
        let api = try Self.loaded.get()
        var error: soxr_error_t? = nil
        var quality = api.pointee.quality_spec(UInt(SOXR_HQ), 0)
        let h = api.pointee.create(inputRate, outputRate, UInt32(channels), &error, nil, &quality, nil)
        try soxr("soxr_create", error)
        guard let h else { throw SoxrError(function: "soxr_create", message: "no resampler") }
        handle = h
        self.api = api
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    deinit { api.pointee.delete_resampler(handle) }

    /// soxr's functions, from libsoxr.so.0 opened when the first resampler is made.
    nonisolated(unsafe) private static let loaded = DynamicLibrary.load(practice_soxr_api()) { practice_soxr_load($0) }
        .mapError { SoxrError(function: "dlopen", message: "cannot open soxr (\($0.message)); install Debian's libsoxr0") }

    /// Opens soxr now, before the first resampler (a player does it while its device opens).
    public static func loadLibrary() { _ = loaded }

    /// Output frames needed for `frames` input frames, with room for the filter's tail.
    public func outputCapacity(forInput frames: Int) -> Int {
        Int((Double(frames) * outputRate / inputRate).rounded(.up)) + 64
    }

    /// Resamples `frames` input frames (nil input means end of stream: flush the tail) into `output`,
    /// which holds `capacity` frames; returns (input frames consumed, output frames written).
    /// The corresponding C function is `soxr_process`.
    public func process(_ input: UnsafePointer<Float>?, frames: Int, into output: UnsafeMutablePointer<Float>,
                        capacity: Int) throws(SoxrError) -> (consumed: Int, produced: Int) {
        var idone = 0, odone = 0
        let err = api.pointee.process(handle, input, input == nil ? 0 : frames, &idone, output, capacity, &odone)
        try soxr("soxr_process", err)
        return (idone, odone)
    }

    /// Forgets buffered input (after a seek). The corresponding C function is `soxr_clear`.
    public func clear() throws(SoxrError) { try soxr("soxr_clear", api.pointee.clear(handle)) }
}
