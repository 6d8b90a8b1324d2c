// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSoundTouch
import PracticeSystem

/// Changes tempo without changing pitch, with SoundTouch's WSOLA stretcher.
///
/// SoundTouch allocates inside `putSamples` (its FIFOs grow with `new[]`), so a stretcher lives on
/// the decoder thread only, never the audio thread.
public struct TimeStretcher: ~Copyable {
    /// The most channels SoundTouch stretches: it takes 16 (SOUNDTOUCH_MAX_CHANNELS), but its
    /// anti-alias filter asserts fewer, and Debian's build aborts there.
    public static let maxChannels = 15

    /// Named groups of SoundTouch settings. The figures that chose them are in `bench/quality/`.
    public struct Profile: Sendable, Equatable {
        public var name: String
        /// Length of one processing sequence in ms (0 = SoundTouch picks from the tempo).
        public var sequenceMs: Int32
        /// How far to search for the best overlap position, in ms (0 = automatic).
        public var seekWindowMs: Int32
        /// Length of the crossfade between sequences, in ms.
        public var overlapMs: Int32
        public var quickSeek: Bool

        /// SoundTouch's own defaults (sequence and seek window chosen from the tempo, 8 ms overlap).
        public static let soundTouchDefaults = Profile(name: "soundtouch", sequenceMs: 0, seekWindowMs: 0, overlapMs: 8, quickSeek: false)
        /// The default: longer sequences and crossfades than SoundTouch's, found with its quick
        /// (coarse-to-fine) seek. At 0.8× it matches the full search on a 1 kHz sine and a click
        /// track (THD+N −45.3 dB against the defaults' −36.0; mean click smear 2.5 ms against 7.3)
        /// at a quarter of its CPU, which keeps rendering as fast as soundstretch and playback under
        /// 1 % of a core (bench/quality, bench/render).
        public static let music = Profile(name: "music", sequenceMs: 50, seekWindowMs: 20, overlapMs: 20, quickSeek: true)
        /// The music settings with SoundTouch's exhaustive seek: 4–5 dB cleaner on sustained tones
        /// averaged over tempos and pitches (−44.1 against −39.0 dB), at 4× the CPU. For renders.
        public static let fine = Profile(name: "fine", sequenceMs: 50, seekWindowMs: 20, overlapMs: 20, quickSeek: false)
        /// Shorter sequences for drums, tap and speech: fewest doubled transients (1 of 58 at 0.8×).
        public static let percussive = Profile(name: "percussive", sequenceMs: 30, seekWindowMs: 15, overlapMs: 12, quickSeek: false)
        public static let all: [Profile] = [.music, .fine, .percussive, .soundTouchDefaults]
        public static func named(_ name: String) -> Profile? { all.first { $0.name == name } }
    }

    private let handle: CSoundTouchHandle
    private let api: UnsafeMutablePointer<practice_soundtouch_api>
    public let channels: Int
    /// SoundTouch takes rates up to 192 kHz: a faster file (352.8 or 384 kHz) is declared at
    /// 1/`scale` of its rate, with every length in ms `scale` times longer, so that its sequences,
    /// seek window and crossfades last as long as at any other rate.
    private let scale: Int
    public static let highestRate = 192_000

    /// Creates a stretcher. The corresponding C function is `soundtouch_createInstance`.
    public init(channels: Int, sampleRate: Int, profile: Profile = .music) throws(SoundTouchError) {
        let api = try Self.loaded.get()
        guard let h = api.pointee.createInstance() else { throw SoundTouchError(function: "soundtouch_createInstance") }
        let scale = max(1, (sampleRate + Self.highestRate - 1) / Self.highestRate)
        do throws(SoundTouchError) {
            try Self.configure(h, api, channels: channels, sampleRate: sampleRate / scale, scale: Int32(scale), profile: profile)
        } catch {
            api.pointee.destroyInstance(h)
            throw error
        }
        handle = h
        self.api = api
        self.channels = channels
        self.scale = scale
    }

    private static func configure(_ h: CSoundTouchHandle, _ api: UnsafeMutablePointer<practice_soundtouch_api>, channels: Int, sampleRate: Int, scale: Int32, profile: Profile) throws(SoundTouchError) {
        // Rate and channels first: the other settings are computed from them.
        try soundTouch("soundtouch_setSampleRate") { api.pointee.setSampleRate(h, UInt32(sampleRate)) }
        // More channels than its filter takes would abort the process (an assertion), not fail the call.
        guard (1...maxChannels).contains(channels) else { throw SoundTouchError(function: "soundtouch_setChannels(\(channels))") }
        try soundTouch("soundtouch_setChannels") { api.pointee.setChannels(h, UInt32(channels)) }
        try soundTouch("soundtouch_setSetting(USE_QUICKSEEK)") {
            api.pointee.setSetting(h, Int32(CSOUNDTOUCH_SETTING_USE_QUICKSEEK), profile.quickSeek ? 1 : 0)
        }
        try soundTouch("soundtouch_setSetting(SEQUENCE_MS)") {
            api.pointee.setSetting(h, Int32(CSOUNDTOUCH_SETTING_SEQUENCE_MS), profile.sequenceMs * scale)
        }
        try soundTouch("soundtouch_setSetting(SEEKWINDOW_MS)") {
            api.pointee.setSetting(h, Int32(CSOUNDTOUCH_SETTING_SEEKWINDOW_MS), profile.seekWindowMs * scale)
        }
        try soundTouch("soundtouch_setSetting(OVERLAP_MS)") {
            api.pointee.setSetting(h, Int32(CSOUNDTOUCH_SETTING_OVERLAP_MS), profile.overlapMs * scale)
        }
    }

    deinit { api.pointee.destroyInstance(handle) }

    /// SoundTouch's functions, from libSoundTouchDll.so.1 opened when the first stretcher is made.
    nonisolated(unsafe) private static let loaded = DynamicLibrary.load(practice_soundtouch_api()) { practice_soundtouch_load($0) }
        .mapError { SoundTouchError(function: "dlopen", problem: "cannot open SoundTouch (\($0.message)); install Debian's libsoundtouch1") }

    /// Opens SoundTouch now, before the first stretcher (a player does it while its device opens).
    public static func loadLibrary() { _ = loaded }

    /// Sets the tempo (1.0 = original, 0.5 = half speed), pitch unchanged.
    /// The corresponding C function is `soundtouch_setTempo`.
    public mutating func setTempo(_ tempo: Double) {
        api.pointee.setTempo(handle, Float(tempo))
        self.tempo = Double(Float(tempo))
    }

    /// The tempo in effect, as SoundTouch holds it (a Float).
    public private(set) var tempo = 1.0

    /// The length of one WSOLA sequence in ms, as SoundTouch uses it now (it picks one from the
    /// tempo when the profile says 0). The corresponding C function is `soundtouch_getSetting`.
    public var sequenceMs: Int { Int(api.pointee.getSetting(handle, Int32(CSOUNDTOUCH_SETTING_SEQUENCE_MS))) / scale }

    /// The seek window in ms, as SoundTouch uses it now. The corresponding C function is `soundtouch_getSetting`.
    public var seekWindowMs: Int { Int(api.pointee.getSetting(handle, Int32(CSOUNDTOUCH_SETTING_SEEKWINDOW_MS))) / scale }

    /// Feeds interleaved frames. The corresponding C function is `soundtouch_putSamples`.
    public func put(_ samples: UnsafePointer<Float>, frames: Int) throws(SoundTouchError) {
        guard frames > 0 else { return }
        try soundTouch("soundtouch_putSamples") { api.pointee.putSamples(handle, samples, UInt32(frames)) }
    }

    /// Takes up to `maxFrames` processed frames; returns how many.
    /// The corresponding C function is `soundtouch_receiveSamples`.
    public func receive(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        Int(api.pointee.receiveSamples(handle, buffer, UInt32(maxFrames)))
    }

    /// Processes what is still buffered so `receive` can return the tail.
    /// The corresponding C function is `soundtouch_flush`.
    public func flush() throws(SoundTouchError) {
        try soundTouch("soundtouch_flush") { api.pointee.flush(handle) }
    }

    /// Drops everything buffered (after a seek). The corresponding C function is `soundtouch_clear`.
    public func clear() { api.pointee.clear(handle) }

}
