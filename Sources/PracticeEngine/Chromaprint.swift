// SPDX-License-Identifier: GPL-3.0-or-later
internal import CChromaprint
import Glibc
import PracticeSystem

/// Why Chromaprint could not fingerprint (or encode, or decode) a fingerprint.
public struct ChromaprintError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// An acoustic fingerprint of decoded audio, with Chromaprint: one 32-bit item for every
/// `itemSeconds` (about 124 ms) of sound, which survives re-encoding, resampling, padding and
/// trimming. Feed interleaved 16-bit samples, then `finish()`. The library is opened with dlopen
/// on first use (it brings FFmpeg's libraries, which playing never needs).
public final class Fingerprinter {
    /// Chromaprint's default algorithm, as its API numbers them (`CHROMAPRINT_ALGORITHM_DEFAULT`).
    public static let algorithm = Int(CHROMAPRINT_ALGORITHM_DEFAULT.rawValue)

    private let api: UnsafeMutablePointer<practice_chromaprint_api>
    private let context: OpaquePointer

    public init(sampleRate: Int, channels: Int) throws(ChromaprintError) {
        api = try Chromaprint.api()
        // Chromaprint (1.5.1) refuses 1000 Hz or less, then crashes (SIGSEGV, seen with 1000 Hz):
        // such audio is refused here, before a context is made.
        guard sampleRate > Self.highestRefusedRate, channels > 0 else {
            throw ChromaprintError(message: "Chromaprint cannot fingerprint \(sampleRate) Hz, \(channels) channels")
        }
        guard let context = api.pointee.new_context(Int32(Self.algorithm)) else { throw ChromaprintError(message: "Chromaprint could not start") }
        self.context = context
        guard api.pointee.start(context, Int32(sampleRate), Int32(channels)) == 1 else {
            api.pointee.free_context(context)
            throw ChromaprintError(message: "Chromaprint cannot fingerprint \(sampleRate) Hz, \(channels) channels")
        }
    }

    deinit { api.pointee.free_context(context) }

    /// The highest rate Chromaprint refuses (its `kMinSampleRate`).
    private static let highestRefusedRate = 1_000

    /// Adds `samples` (interleaved, all channels).
    public func feed(_ samples: UnsafeBufferPointer<Int16>) throws(ChromaprintError) {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        guard api.pointee.feed(context, base, Int32(samples.count)) == 1 else { throw ChromaprintError(message: "Chromaprint refused the audio") }
    }

    /// The raw fingerprint of everything fed.
    public func finish() throws(ChromaprintError) -> [UInt32] {
        guard api.pointee.finish(context) == 1 else { throw ChromaprintError(message: "Chromaprint could not finish") }
        var items: UnsafeMutablePointer<UInt32>?
        var count: Int32 = 0
        guard api.pointee.get_raw_fingerprint(context, &items, &count) == 1, let items else {
            throw ChromaprintError(message: "Chromaprint gave no fingerprint")
        }
        defer { api.pointee.dealloc(items) }
        return Array(UnsafeBufferPointer(start: items, count: Int(count)))
    }

    /// Seconds of audio one item stands for.
    public static func itemSeconds() throws(ChromaprintError) -> Double { try timing().item }

    /// Seconds of sound in one item (1365 samples at Chromaprint's 11,025 Hz: 0.1238 s), in the
    /// window each item is computed from (its delay: about 2.6 s), and the rate it works at (audio
    /// fed at that rate, in one channel, is not converted again).
    public static func timing() throws(ChromaprintError) -> (item: Double, window: Double, rate: Int) {
        let api = try Chromaprint.api()
        guard let context = api.pointee.new_context(Int32(algorithm)) else { throw ChromaprintError(message: "Chromaprint could not start") }
        defer { api.pointee.free_context(context) }
        let rate = Double(api.pointee.get_sample_rate(context))
        return (Double(api.pointee.get_item_duration(context)) / rate, Double(api.pointee.get_delay(context)) / rate, Int(rate))
    }

    /// Chromaprint's compressed form, base64 (URL-safe, as fpcalc prints it).
    public static func encode(_ raw: [UInt32], algorithm: Int = algorithm) throws(ChromaprintError) -> String {
        let api = try Chromaprint.api()
        var text: UnsafeMutablePointer<CChar>?
        var size: Int32 = 0
        let ok = raw.withUnsafeBufferPointer { api.pointee.encode_fingerprint($0.baseAddress, Int32($0.count), Int32(algorithm), &text, &size, 1) }
        guard ok == 1, let text else { throw ChromaprintError(message: "Chromaprint could not encode a fingerprint") }
        defer { api.pointee.dealloc(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: Int(size)), as: UTF8.self)
    }

    /// The raw items and algorithm of an encoded fingerprint; an error if it does not decode.
    public static func decode(_ text: String) throws(ChromaprintError) -> (raw: [UInt32], algorithm: Int) {
        let api = try Chromaprint.api()
        var items: UnsafeMutablePointer<UInt32>?
        var count: Int32 = 0, algorithm: Int32 = 0
        let bytes = Array(text.utf8)
        let ok = bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { api.pointee.decode_fingerprint($0.baseAddress, Int32($0.count), &items, &count, &algorithm, 1) }
        }
        guard ok == 1, let items else { throw ChromaprintError(message: "not a Chromaprint fingerprint") }
        defer { api.pointee.dealloc(items) }
        return (Array(UnsafeBufferPointer(start: items, count: Int(count))), Int(algorithm))
    }
}

/// Chromaprint's functions, opened once.
private enum Chromaprint {
    /// The loaded library, or why it could not be loaded. Written once, then only read.
    nonisolated(unsafe) private static let loaded: Result<UnsafeMutablePointer<practice_chromaprint_api>, ChromaprintError> = {
        DynamicLibrary.load(practice_chromaprint_api()) { practice_chromaprint_load($0) }
            .mapError { ChromaprintError(message: "cannot open Chromaprint (\($0.message)); install Debian's libchromaprint1") }
    }()

    static func api() throws(ChromaprintError) -> UnsafeMutablePointer<practice_chromaprint_api> { try loaded.get() }
}

/// A `Fingerprinter` fed on a thread of its own, so that fingerprinting overlaps what the caller
/// does with the same audio (decoding it, checksumming it): with two cores, one pass over a
/// song takes about as long as the slower of the two instead of their sum. `feed` copies the
/// samples and waits only while a few blocks are still queued.
public final class BackgroundFingerprinter: @unchecked Sendable {  // its state is guarded by `condition`
    private let fingerprinter: Fingerprinter
    private let condition = Condition()
    private var queue: [[Int16]] = []
    private var ended = false
    private var failure: ChromaprintError?
    private var thread: ControlThread?
    private static let queued = 4

    public init(sampleRate: Int, channels: Int) throws(ChromaprintError) {
        fingerprinter = try Fingerprinter(sampleRate: sampleRate, channels: channels)
        thread = ControlThread(name: "practice-print") { [self] in run() }
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !ended { condition.wait() }
            if queue.isEmpty { condition.unlock(); return }
            let block = queue.removeFirst()
            condition.signal()
            let failed = failure != nil
            condition.unlock()
            guard !failed else { continue }
            do {
                try block.withUnsafeBufferPointer { (b) throws(ChromaprintError) in try fingerprinter.feed(b) }
            } catch {
                condition.lock(); failure = error; condition.unlock()
            }
        }
    }

    /// Queues a copy of `samples` (interleaved, all channels).
    public func feed(_ samples: UnsafeBufferPointer<Int16>) {
        let block = Array(samples)
        condition.lock()
        while queue.count >= Self.queued { condition.wait() }
        queue.append(block)
        condition.signal()
        condition.unlock()
    }

    /// Waits for everything queued to be fingerprinted: the raw fingerprint.
    public func finish() throws(ChromaprintError) -> [UInt32] {
        condition.lock()
        ended = true
        condition.signal()
        condition.unlock()
        thread?.join()
        thread = nil
        if let failure { throw failure }
        return try fingerprinter.finish()
    }

    deinit {
        if thread != nil { _ = try? finish() }
    }
}
