/// The sample rate and channel count an output was opened with.
public struct OutputFormat: Sendable, Equatable {
    public var sampleRate: Int
    public var channels: Int
    public init(sampleRate: Int, channels: Int) { self.sampleRate = sampleRate; self.channels = channels }
}

/// What the audio thread learns from one `write`.
public enum WriteResult: Equatable {
    /// All frames were accepted; `underruns` is how many underruns were recovered on the way.
    case written(underruns: Int)
    /// The device failed for good (the raw negative code of the output's C library).
    case failed(code: Int32)
}

/// A sound device as the audio thread drives it. The device is opened (and its format negotiated)
/// by the conforming type's initialiser on the control thread, before the audio thread starts;
/// every method here is then called on the audio thread only, so none may allocate, lock or log.
public protocol AudioOutput: AnyObject, Sendable {
    /// The negotiated format.
    var format: OutputFormat { get }
    /// Frames the device can take now without blocking.
    func writableFrames() -> Int
    /// Blocks until the device can take frames, `wakeFD` (an eventfd) becomes readable, or
    /// `timeoutMs` passes. Returns whether `wakeFD` fired (the caller drains it).
    func waitWritable(timeoutMs: Int32, wakeFD: Int32) -> Bool
    /// Writes interleaved frames, blocking until the device has taken them all; recovers underruns.
    func write(_ frames: UnsafePointer<Float>, count: Int) -> WriteResult
    /// Frames written but not heard yet (the device's delay).
    func delay() -> Int
    /// Whether the device is playing (its clock advances).
    var isRunning: Bool { get }
    /// Plays what the device holds to the end, then readies it for more.
    func drain()
    /// Discards what the device holds at once, then readies it for more.
    func drop()
}
