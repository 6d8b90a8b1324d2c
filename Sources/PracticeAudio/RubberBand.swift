// SPDX-License-Identifier: GPL-3.0-or-later
internal import CRubberBand
import PracticeSystem

/// An error from the Rubber Band Library: it reports only a failed `rubberband_new`, and the
/// library itself may be missing (it is opened with dlopen when the first stretcher is made).
public struct RubberBandError: Error, CustomStringConvertible, Sendable {
    public let function: String
    /// What went wrong, when more than a failed call (the library could not be opened).
    public var problem: String? = nil
    public var description: String { problem ?? "\(function) failed" }
}

/// Changes tempo without changing pitch with Rubber Band's R3 ("finer") engine, in its real-time
/// mode (fed a block at a time, as SoundTouch is): the stretcher of `--quality high`.
///
/// Its output is lined up with its input: the zeros it asks for are fed first after each `clear`,
/// and the delay they cause is dropped from what it gives back, so that, as for SoundTouch, a
/// pipeline takes input ÷ tempo frames and they start with the first input frame. It allocates
/// and computes FFTs in `put`: decoder thread only, never the audio thread.
///
/// Each `clear` starts a new Rubber Band state rather than resetting the old one: after
/// `rubberband_reset` R3 gives other samples than a new stretcher does for the same input (0.28
/// apart in a pass of a real song), and a pass made ahead on another thread must be the pass
/// played live to the sample, whatever played before it.
public final class RubberBandStretcher {
    private let api: UnsafeMutablePointer<practice_rubberband_api>
    private var state: RubberBandState
    public let channels: Int
    private let sampleRate: Int
    private static let options = Int32(RubberBandOptionProcessRealTime.rawValue | RubberBandOptionEngineFiner.rawValue
                                       | RubberBandOptionWindowShort.rawValue
                                       | RubberBandOptionChannelsTogether.rawValue | RubberBandOptionThreadingNever.rawValue)
    /// The pitch scale and formant option in effect, set again on each new state.
    private var pitchScale = 1.0
    private var keepingFormants = false
    /// With formants kept and the pitch moved: the linear-prediction filters that whiten the input
    /// and colour the output again (Rubber Band shifts formants with the pitch then).
    private var keeper: FormantKeeper?
    /// Planar buffers (Rubber Band takes one array per channel) of `chunk` frames each, and the
    /// array of their addresses it is handed.
    private let planar: [UnsafeMutablePointer<Float>]
    private let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private static let chunk = 4096
    /// Output frames still to drop (the start delay) since the last `clear`.
    private var toDrop = 0
    private var flushed = false

    /// The lowest sample rate its R3 engine takes (below, it warns on stderr and stretches badly).
    public static let lowestSampleRate = 8_000

    /// The tempo in effect (1.0 = original).
    public private(set) var tempo = 1.0

    /// Creates a stretcher. The corresponding C function is `rubberband_new`.
    public init(channels: Int, sampleRate: Int) throws(RubberBandError) {
        let api = try Self.loaded.get()
        self.api = api
        guard channels >= 1, let state = api.pointee.new_state(UInt32(sampleRate), UInt32(channels), Self.options, 1, 1) else {
            throw RubberBandError(function: "rubberband_new(\(channels) channels, \(sampleRate) Hz)")
        }
        self.state = state
        self.channels = channels
        self.sampleRate = sampleRate
        planar = (0..<channels).map { _ in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: Self.chunk)
            p.initialize(repeating: 0, count: Self.chunk)
            return p
        }
        pointers = .allocate(capacity: channels)
        for c in 0..<channels { pointers[c] = planar[c] }
        api.pointee.set_max_process_size(state, UInt32(Self.chunk))
        clear()
    }

    deinit {
        api.pointee.delete_state(state)
        for p in planar { p.deallocate() }
        pointers.deallocate()
    }

    /// Sets the tempo (1.0 = original, 0.5 = half speed), pitch unchanged, for the next `clear`
    /// (the start's padding and delay depend on it). The corresponding C function is
    /// `rubberband_set_time_ratio` (the ratio is 1 ÷ tempo).
    public func setTempo(_ tempo: Double) {
        api.pointee.set_time_ratio(state, 1 / tempo)
        self.tempo = tempo
    }

    /// Shifts the pitch by `scale` (a frequency ratio; 1: none), the spectral envelope kept with
    /// `keepingFormants` (by a `FormantKeeper` around Rubber Band, whose own formant option moved
    /// vowels' formants 5–9 %). Set before a `clear`. The corresponding C function is
    /// `rubberband_set_pitch_scale`.
    public func setPitch(_ scale: Double, keepingFormants: Bool) {
        pitchScale = scale
        self.keepingFormants = keepingFormants
        applyPitch()
    }

    private func applyPitch() {
        api.pointee.set_formant_option(state, Int32(RubberBandOptionFormantShifted.rawValue))
        api.pointee.set_pitch_scale(state, pitchScale)
    }

    /// Feeds interleaved frames. The corresponding C function is `rubberband_process`.
    public func put(_ samples: UnsafePointer<Float>, frames: Int) {
        if let keeper {
            keeper.whiten(samples, frames: frames) { feed($0, frames: $1) }
        } else {
            feed(samples, frames: frames)
        }
    }

    private func feed(_ samples: UnsafePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            let n = min(Self.chunk, frames - done)
            for c in 0..<channels {
                let out = planar[c]
                for i in 0..<n { out[i] = samples[(done + i) * channels + c] }
            }
            process(n, final: false)
            done += n
        }
    }

    /// Takes up to `maxFrames` processed interleaved frames; returns how many.
    /// The corresponding C functions are `rubberband_available` and `rubberband_retrieve`.
    public func receive(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        var given = 0
        while given < maxFrames {
            let available = Int(api.pointee.available(state))
            guard available > 0 else { break }
            let dropping = toDrop > 0
            let n = min(available, Self.chunk, dropping ? toDrop : maxFrames - given)
            let got = Int(api.pointee.retrieve(state, pointers, UInt32(n)))
            guard got > 0 else { break }
            if dropping {
                toDrop -= got
                continue
            }
            for c in 0..<channels {
                let p = planar[c]
                for i in 0..<got { buffer[(given + i) * channels + c] = p[i] }
            }
            keeper?.colour(buffer + given * channels, frames: got, tempo: tempo)
            given += got
        }
        return given
    }

    /// Processes what is still buffered so `receive` can return the tail; no input is taken
    /// after it until `clear`. The corresponding C function is `rubberband_process` (final).
    public func flush() {
        guard !flushed else { return }
        keeper?.finish { feed($0, frames: $1) }
        // Silence after the last input, as much as its delay, so that all of the input comes out
        // (the final call alone leaves its last few thousand frames inside); the caller takes
        // only input ÷ tempo frames.
        for p in planar { p.update(repeating: 0, count: Self.chunk) }
        var silence = Int(api.pointee.get_preferred_start_pad(state)) + Int((Double(api.pointee.get_start_delay(state)) * tempo).rounded(.up)) + Self.chunk
        while silence > 0 {
            let n = min(silence, Self.chunk)
            process(n, final: false)
            silence -= n
        }
        process(0, final: true)
        flushed = true
    }

    /// Drops everything buffered (after a seek): a new state with the tempo and pitch in effect.
    /// The corresponding C functions are `rubberband_new` and `rubberband_delete` (the old one is
    /// kept if a new one cannot be had, and reset with `rubberband_reset`).
    public func clear() { restart() }

    /// A clean start: a new state, the zeros Rubber Band asks for fed in, the delay they make to drop.
    private func restart() {
        if let fresh = api.pointee.new_state(UInt32(sampleRate), UInt32(channels), Self.options, 1 / tempo, 1) {
            api.pointee.delete_state(state)
            state = fresh
            api.pointee.set_max_process_size(state, UInt32(Self.chunk))
            applyPitch()
        } else {
            api.pointee.reset(state)
        }
        flushed = false
        if keepingFormants && pitchScale != 1 {
            if keeper == nil { keeper = FormantKeeper(channels: channels, sampleRate: sampleRate) }
            keeper?.reset()
        } else {
            keeper = nil
        }
        var pad = Int(api.pointee.get_preferred_start_pad(state))
        for p in planar { p.update(repeating: 0, count: Self.chunk) }
        while pad > 0 {
            let n = min(pad, Self.chunk)
            process(n, final: false)
            pad -= n
        }
        toDrop = Int(api.pointee.get_start_delay(state))
    }

    private func process(_ frames: Int, final: Bool) {
        pointers.withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: channels) {
            api.pointee.process(state, $0, UInt32(frames), final ? 1 : 0)
        }
    }

    /// Rubber Band's functions, from librubberband.so.2 opened the first time a stretcher is made.
    nonisolated(unsafe) private static let loaded = DynamicLibrary.load(practice_rubberband_api()) { practice_rubberband_load($0) }
        .mapError { RubberBandError(function: "dlopen", problem: "cannot open Rubber Band (\($0.message)); install Debian's librubberband2") }

    /// Opens Rubber Band now, before the first stretcher (a player does it while its device opens).
    public static func loadLibrary() { _ = loaded }
}
