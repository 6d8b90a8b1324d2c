// SPDX-License-Identifier: GPL-3.0-or-later
/// The sample rate and channel count an output was opened with.
public struct OutputFormat: Sendable, Equatable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int
    public init(sampleRate: Int, channels: Int) { self.sampleRate = sampleRate; self.channels = channels }
    /// `44100 Hz, 2 channels`
    public var description: String { "\(sampleRate) Hz, \(channels) channel\(channels == 1 ? "" : "s")" }
}

/// What the audio thread learns from one `write`.
public enum WriteResult: Equatable {
    /// All frames were accepted; `underruns` is how many underruns were recovered on the way.
    case written(underruns: Int)
    /// The device failed for good (the raw negative code of the output's C library).
    case failed(code: Int32)
}

/// Frames written to a device but not heard yet, and the device clock's time of that reading.
public struct DeviceDelay: Sendable, Equatable {
    public var frames: Int
    /// Nanoseconds on the output's clock (`AudioOutput.nowNanoseconds`).
    public var atNanoseconds: Int64
    public init(frames: Int, atNanoseconds: Int64) { self.frames = frames; self.atNanoseconds = atNanoseconds }
}

/// A sound device as the audio thread drives it. The device is opened (and its format negotiated)
/// by the conforming type's initialiser on the control thread, before the audio thread starts;
/// every method here is then called on the audio thread only, so none may allocate, lock or log,
/// except `name`, `describe(failure:)` and `nowNanoseconds`, which any thread may call.
///
/// Two outputs conform: `ALSAOutput` (a real device) and `VirtualOutput` (a device whose clock a
/// test advances by hand, for exact engine tests).
public protocol AudioOutput: AnyObject, Sendable {
    /// The negotiated format.
    var format: OutputFormat { get }
    /// The device's name as the user gave it (`default`, `pulse`, `hw:0`…), for messages.
    var name: String { get }
    /// Frames per period: the audio thread keeps two in the ring before it starts a stream.
    var periodFrames: Int { get }
    /// Frames the device can take now without blocking.
    func writableFrames() -> Int
    /// Blocks until the device can take frames, `wakeFD` (an eventfd) becomes readable, or
    /// `timeoutMs` passes. Returns whether `wakeFD` fired (the caller drains it).
    func waitWritable(timeoutMs: Int32, wakeFD: Int32) -> Bool
    /// Writes interleaved frames, blocking until the device has taken them all; recovers underruns.
    func write(_ frames: UnsafePointer<Float>, count: Int) -> WriteResult
    /// Frames written but not heard yet (the device's delay), with the clock's time of the reading.
    func delay() -> DeviceDelay
    /// The device clock now (any thread): CLOCK_MONOTONIC for a real device, the frames played
    /// so far for a virtual one. The heard position is extrapolated on it between readings.
    var nowNanoseconds: Int64 { get }
    /// Lets the device play what it holds, waiting once: true when it has all played (the device
    /// is then ready for more); false after some of it has, or as soon as `wakeFD` (an eventfd,
    /// read here) fires. The caller then looks at its commands and measures `delay`, and calls
    /// again to go on, so a command at a track's end is seen at once, not after the buffer.
    func drain(wakeFD: Int32) -> Bool
    /// Discards what the device holds at once, then readies it for more.
    func drop()
    /// What a failure code returned by `write` means, in words, after "audio device 'NAME' " (any thread).
    func describe(failure code: Int32) -> String
    /// Whether a failure code from `write` or `reopen` means the device is gone for now (the sound
    /// server stopped, the card was unplugged), so that waiting for it makes sense; any other
    /// failure is for good (any thread).
    func isGone(failure code: Int32) -> Bool
    /// After a failure, while the audio thread leaves the device alone: opens it again with the
    /// same format (the sound server came back). 0, or a negative error code: one `isGone` says
    /// while it is still gone, another when it came back unable to play as before.
    func reopen() -> Int32
}
