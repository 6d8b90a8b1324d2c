// SPDX-License-Identifier: GPL-3.0-or-later
internal import CALSA
import Glibc
import PracticeSystem

/// Plays interleaved float frames through an ALSA PCM (`default` reaches PipeWire or PulseAudio).
///
/// A `final class` because the audio thread shares it with the control thread that opened it.
/// `@unchecked Sendable`: after `init` returns, only the audio thread calls into the PCM, except
/// `reopen`, which runs while the audio thread waits after a failure (the failure's atomic orders them).
public final class ALSAOutput: AudioOutput, @unchecked Sendable {
    /// The sample formats we can feed, in order of preference (float needs no conversion).
    enum SampleFormat { case float, s32, s16 }

    /// nil only after a failed `reopen`, while the audio thread leaves the device alone.
    private var pcm: OpaquePointer?
    /// libasound's functions (opened with dlopen with the first device).
    private let asound: UnsafeMutablePointer<practice_alsa_api>
    public let device: String
    public var name: String { device }
    public let format: OutputFormat
    /// Frames per period and in the whole device buffer, as negotiated.
    public private(set) var periodFrames: Int
    public private(set) var bufferFrames: Int
    private(set) var sampleFormat: SampleFormat
    /// Room for the device's poll descriptors and the wake-up eventfd (made again by `reopen` only).
    private var pollFDs: UnsafeMutablePointer<pollfd>
    private var pollCount: Int
    /// Conversion buffer for integer devices, allocated once (`maxChunkFrames` frames).
    private let convert: UnsafeMutableRawPointer
    public let maxChunkFrames: Int
    /// Silence for `drain` to write after the music (`maxChunkFrames` frames, allocated once).
    private let silence: UnsafeMutablePointer<Float>
    /// What `init` asked for, to ask for it again in `reopen`.
    private let periodMicroseconds: UInt32, bufferMicroseconds: UInt32

    /// Whether `init` played through the handle `prepare` opened ahead (for the tests).
    let openedAhead: Bool

    /// An opened and configured PCM.
    private struct Opened {
        var pcm: OpaquePointer
        var ahead = false
        var sampleFormat: SampleFormat
        var rate: Int
        var periodFrames: Int
        var bufferFrames: Int
    }

    /// The device buffer a player asks for, with periods of `period` microseconds: at least 240 ms
    /// (six 40 ms periods), and three periods of a longer one. What it holds is what a stall of
    /// the whole player rides out: the sound server (or the card) plays on from it while no thread
    /// of the player runs, as a busy or virtual machine does to them now and then. Stopped whole
    /// (SIGSTOP) through a real-time PulseAudio null sink, a player with 120 ms was heard to stop
    /// at 130 ms, with 240 ms not up to 190 ms (mpv, through its own PulseAudio output, at 130 ms:
    /// bench/realtime/stall.py; StallTests). Commands do not wait for it to play out, because they
    /// drop it (`snd_pcm_drop`): seek → heard 5.9 ms and rate → heard 10.1–10.2 ms with 120, 240
    /// and 480 ms alike (bench/realtime, 20 of each).
    public static func bufferMicroseconds(period: UInt32) -> UInt32 { max(3 * period, 240_000) }

    /// A player's periods: 40 ms, 25 wake-ups a second (see `init`). The virtual device takes them too.
    public static let defaultPeriodMicroseconds: UInt32 = 40_000

    /// Opens `device` for playback near `sampleRate`, with ALSA's own resampling off (we resample with
    /// soxr when the device's rate differs). The corresponding C function is `snd_pcm_open`.
    ///
    /// - Parameters:
    ///   - periodMicroseconds: 40 ms periods (`defaultPeriodMicroseconds`): 25 wake-ups a second (20 ms periods cost 1.19 % of a
    ///     core at 0.8×, 40 ms 0.89 %: bench/realtime). Commands do not wait for a period: they drop
    ///     the device's buffer and playback restarts once 20 ms are queued (the start threshold).
    ///   - bufferMicroseconds: how much the device holds (`bufferMicroseconds(period:)`).
    public init(device: String, sampleRate: Int, channels: Int,
                periodMicroseconds: UInt32 = ALSAOutput.defaultPeriodMicroseconds,
                bufferMicroseconds: UInt32 = ALSAOutput.bufferMicroseconds(period: ALSAOutput.defaultPeriodMicroseconds)) throws(ALSAError) {
        let asound = try ALSALibrary.api(device: device)
        let o = try Self.open(device: device, sampleRate: sampleRate, channels: channels,
                              periodMicroseconds: periodMicroseconds, bufferMicroseconds: bufferMicroseconds)
        pcm = o.pcm
        self.asound = asound
        openedAhead = o.ahead
        sampleFormat = o.sampleFormat
        periodFrames = o.periodFrames
        bufferFrames = o.bufferFrames
        format = OutputFormat(sampleRate: o.rate, channels: channels)
        self.device = device
        self.periodMicroseconds = periodMicroseconds
        self.bufferMicroseconds = bufferMicroseconds
        maxChunkFrames = max(o.bufferFrames, 4096)
        convert = .allocate(byteCount: maxChunkFrames * channels * 4, alignment: 16)
        silence = .allocate(capacity: maxChunkFrames * channels)
        silence.initialize(repeating: 0, count: maxChunkFrames * channels)
        // The device's poll descriptors plus one slot for the audio thread's wake-up eventfd.
        pollCount = max(Int(asound.pointee.pcm_poll_descriptors_count(o.pcm)), 0)
        pollFDs = .allocate(capacity: pollCount + 1)
        pollFDs.initialize(repeating: pollfd(), count: pollCount + 1)
    }

    /// Starts opening `device` on a thread of its own, while the caller reads the file and sets up
    /// the rest: the first `init` for the same device takes the handle (waiting for it if it is
    /// not open yet). Opening is most of a player's way to its first sound: ALSA reads its
    /// configuration, loads the plugin (`pulse` brings libpulse and its libraries), and the plugin
    /// connects to the sound server. If this open fails, `init` opens again itself and reports
    /// what it finds then. One device at a time: asked for another, the first one's handle is
    /// closed unused.
    /// `then` runs on the device's thread once the device is open (or could not be): a player
    /// opens its libraries there (`PlayCommand`), which it would otherwise ask for only once it
    /// has read the file, and a new thread for them would start on the other core, where the
    /// player is busy reading it.
    public static func prepare(device: String, then: (@Sendable () -> Void)? = nil) {
        if preparedOpen.withLock({ $0.map { $0.device != device } ?? false }) { closePrepared() }
        guard preparedOpen.withLock({ $0 == nil }) else { return }   // this device's is under way
        let opened = OpenedAhead()
        DeviceFirst.shared.begin()
        _ = ControlThread(name: "practice-device") {
            // libasound itself is opened here too, beside the caller's work (init reports it missing).
            var result: (handle: UInt, code: Int32) = (0, -ENOENT)
            if let asound = try? ALSALibrary.api(device: device) {
                var handle: OpaquePointer?
                let code = openPCM(asound, &handle, device)
                result = (UInt(bitPattern: handle), code)
            }
            opened.finish(result)
            DeviceFirst.shared.end()
            then?()
        }
        preparedOpen.withLock { $0 = Prepared(device: device, opened: opened) }
    }

    /// Closes the handle `prepare` opened, if nobody took it (this process will not play: it
    /// shows another player's screen), so that it holds no device while it runs.
    public static func closePrepared() {
        let pending = preparedOpen.withLock { p -> Prepared? in
            defer { p = nil }
            return p
        }
        if let pending, let pcm = join(pending), let asound = try? ALSALibrary.api(device: nil) { _ = asound.pointee.pcm_close(pcm) }
    }

    /// Whether a handle `prepare` opened (or is opening) for `device` waits to be taken.
    static func isPrepared(device: String) -> Bool { preparedOpen.withLock { $0?.device == device } }

    /// The handle `prepare` opened for `device`, once its thread has finished; nil if none was
    /// prepared for it, or if that open failed.
    private static func takePrepared(device: String) -> OpaquePointer? {
        let pending = preparedOpen.withLock { p -> Prepared? in
            guard let current = p, current.device == device else { return nil }
            p = nil
            return current
        }
        return pending.flatMap(join)
    }

    /// Waits for a `prepare`'s open: its handle, or nil if it failed.
    private static func join(_ pending: Prepared) -> OpaquePointer? {
        let (handle, code) = pending.opened.wait()
        return code == 0 ? OpaquePointer(bitPattern: handle) : nil
    }

    /// `snd_pcm_open` for playback, the one place a device is opened: at the priority the threads
    /// its plugin starts should run at (`RealTimePriority.lent`).
    private static func openPCM(_ asound: UnsafeMutablePointer<practice_alsa_api>, _ handle: inout OpaquePointer?, _ device: String) -> Int32 {
        RealTimePriority.lent { asound.pointee.pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0) }
    }

    private static func open(device: String, sampleRate: Int, channels: Int,
                             periodMicroseconds: UInt32, bufferMicroseconds: UInt32) throws(ALSAError) -> Opened {
        let asound = try ALSALibrary.api(device: device)
        var handle = takePrepared(device: device)
        let ahead = handle != nil
        if handle == nil {
            try alsa("snd_pcm_open", device: device) { openPCM(asound, &handle, device) }
        }
        guard let pcm = handle else { throw ALSAError(code: -ENODEV, function: "snd_pcm_open", device: device) }
        do throws(ALSAError) {
            var hw: OpaquePointer?
            try alsa("snd_pcm_hw_params_malloc", device: device) { asound.pointee.pcm_hw_params_malloc(&hw) }
            defer { asound.pointee.pcm_hw_params_free(hw) }
            try alsa("snd_pcm_hw_params_any", device: device) { asound.pointee.pcm_hw_params_any(pcm, hw) }
            try alsa("snd_pcm_hw_params_set_access", device: device) {
                asound.pointee.pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
            }
            let candidates: [(SampleFormat, snd_pcm_format_t)] = [
                (.float, SND_PCM_FORMAT_FLOAT_LE), (.s32, SND_PCM_FORMAT_S32_LE), (.s16, SND_PCM_FORMAT_S16_LE)]
            guard let chosen = candidates.first(where: { asound.pointee.pcm_hw_params_test_format(pcm, hw, $0.1) == 0 }) else {
                throw ALSAError(code: -EINVAL, function: "snd_pcm_hw_params_set_format", device: device)
            }
            try alsa("snd_pcm_hw_params_set_format", device: device) { asound.pointee.pcm_hw_params_set_format(pcm, hw, chosen.1) }
            try alsa("snd_pcm_hw_params_set_channels", device: device) {
                asound.pointee.pcm_hw_params_set_channels(pcm, hw, UInt32(channels))
            }
            try alsa("snd_pcm_hw_params_set_rate_resample", device: device) { asound.pointee.pcm_hw_params_set_rate_resample(pcm, hw, 0) }
            var rate = UInt32(sampleRate)
            var dir: Int32 = 0
            try alsa("snd_pcm_hw_params_set_rate_near", device: device) { asound.pointee.pcm_hw_params_set_rate_near(pcm, hw, &rate, &dir) }
            var bufferTime = bufferMicroseconds
            try alsa("snd_pcm_hw_params_set_buffer_time_near", device: device) {
                asound.pointee.pcm_hw_params_set_buffer_time_near(pcm, hw, &bufferTime, &dir)
            }
            var periodTime = periodMicroseconds
            try alsa("snd_pcm_hw_params_set_period_time_near", device: device) {
                asound.pointee.pcm_hw_params_set_period_time_near(pcm, hw, &periodTime, &dir)
            }
            try alsa("snd_pcm_hw_params", device: device) { asound.pointee.pcm_hw_params(pcm, hw) }
            var period = snd_pcm_uframes_t(0), buffer = snd_pcm_uframes_t(0)
            _ = asound.pointee.pcm_hw_params_get_period_size(hw, &period, &dir)
            _ = asound.pointee.pcm_hw_params_get_buffer_size(hw, &buffer)
            let periodFrames = Int(period), bufferFrames = Int(buffer)

            var sw: OpaquePointer?
            try alsa("snd_pcm_sw_params_malloc", device: device) { asound.pointee.pcm_sw_params_malloc(&sw) }
            defer { asound.pointee.pcm_sw_params_free(sw) }
            try alsa("snd_pcm_sw_params_current", device: device) { asound.pointee.pcm_sw_params_current(pcm, sw) }
            // Start once 20 ms are queued (less than a period): a seek is heard after 20 ms, not a period or a full buffer.
            try alsa("snd_pcm_sw_params_set_start_threshold", device: device) {
                asound.pointee.pcm_sw_params_set_start_threshold(pcm, sw, snd_pcm_uframes_t(min(periodFrames, Int(rate) / 50)))
            }
            try alsa("snd_pcm_sw_params_set_avail_min", device: device) {
                asound.pointee.pcm_sw_params_set_avail_min(pcm, sw, snd_pcm_uframes_t(periodFrames))
            }
            try alsa("snd_pcm_sw_params", device: device) { asound.pointee.pcm_sw_params(pcm, sw) }
            return Opened(pcm: pcm, ahead: ahead, sampleFormat: chosen.0, rate: Int(rate), periodFrames: periodFrames, bufferFrames: bufferFrames)
        } catch {
            _ = asound.pointee.pcm_close(pcm)
            throw error
        }
    }

    /// Opens the device again after a failure, as `init` did (the sound server came back). The
    /// audio thread must not touch the device meanwhile (it waits after a failure until the player
    /// says the device is back). 0, or a negative error code while the device is still gone, or
    /// -EINVAL when it came back playing another rate or wanting a larger buffer. The dead handle
    /// is closed first: a card holds its place while a handle is open, so one plugged in again
    /// would otherwise come back under another number, or be busy. The corresponding C function
    /// is `snd_pcm_open`.
    public func reopen() -> Int32 {
        paddingFrames = 0
        if let dead = pcm {
            _ = asound.pointee.pcm_close(dead)
            pcm = nil
        }
        let o: Opened
        do {
            o = try Self.open(device: device, sampleRate: format.sampleRate, channels: format.channels,
                              periodMicroseconds: periodMicroseconds, bufferMicroseconds: bufferMicroseconds)
        } catch {
            return error.code
        }
        guard o.rate == format.sampleRate, o.bufferFrames <= maxChunkFrames else {
            _ = asound.pointee.pcm_close(o.pcm)
            return -EINVAL
        }
        pcm = o.pcm
        sampleFormat = o.sampleFormat
        periodFrames = o.periodFrames
        bufferFrames = o.bufferFrames
        let count = max(Int(asound.pointee.pcm_poll_descriptors_count(o.pcm)), 0)
        if count > pollCount {
            pollFDs.deallocate()
            pollFDs = .allocate(capacity: count + 1)
            pollFDs.initialize(repeating: pollfd(), count: count + 1)
        }
        pollCount = count
        return 0
    }

    deinit {
        if let pcm { _ = asound.pointee.pcm_close(pcm) }
        convert.deallocate()
        silence.deallocate()
        pollFDs.deallocate()
    }

    public func writableFrames() -> Int {
        let n = asound.pointee.pcm_avail_update(pcm)
        if n < 0 {
            // An underrun shows here first; recover so the next write can go on, and count it
            // with that write's.
            if n == -Int(EPIPE) { pendingUnderruns += 1 }
            _ = asound.pointee.pcm_recover(pcm, Int32(n), 1)
            return periodFrames
        }
        return Int(n)
    }

    /// Underruns recovered by `writableFrames`, reported by the next `write` (audio thread only).
    private var pendingUnderruns = 0

    /// Polls the device's descriptors and `wakeFD` together, so that a command wakes the audio
    /// thread at once while it waits for room (as miniaudio's `ma_device_wait__alsa` does).
    /// The corresponding C functions are `snd_pcm_poll_descriptors` and `snd_pcm_poll_descriptors_revents`.
    public func waitWritable(timeoutMs: Int32, wakeFD: Int32) -> Bool {
        let count = Int32(pollCount)
        guard count > 0, asound.pointee.pcm_poll_descriptors(pcm, pollFDs, UInt32(count)) == count else {
            _ = asound.pointee.pcm_wait(pcm, min(timeoutMs, 10))
            return false
        }
        pollFDs[pollCount] = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        guard poll(pollFDs, nfds_t(pollCount + 1), timeoutMs) > 0 else { return false }
        // A device error reported through poll is left to the next `writableFrames` or `write`,
        // which see its real code, recover it and count an underrun.
        return pollFDs[pollCount].revents & Int16(POLLIN) != 0
    }

    /// The corresponding C function is `snd_pcm_writei`.
    public func write(_ frames: UnsafePointer<Float>, count: Int) -> WriteResult {
        var underruns = pendingUnderruns
        pendingUnderruns = 0
        var done = 0
        let channels = format.channels
        while done < count {
            let n = min(count - done, maxChunkFrames)
            let src = frames + done * channels
            let rc: Int
            switch sampleFormat {
            case .float:
                rc = Int(asound.pointee.pcm_writei(pcm, src, snd_pcm_uframes_t(n)))
            case .s32:
                let dst = convert.assumingMemoryBound(to: Int32.self)
                for i in 0..<(n * channels) {
                    let v = max(-1, min(src[i], 0x7FFF_FF80 / 2_147_483_648 as Float))
                    dst[i] = Int32(v * 2_147_483_648)
                }
                rc = Int(asound.pointee.pcm_writei(pcm, dst, snd_pcm_uframes_t(n)))
            case .s16:
                let dst = convert.assumingMemoryBound(to: Int16.self)
                convertToInt16(src, dst, count: n * channels)   // as `render` writes 16 bits
                rc = Int(asound.pointee.pcm_writei(pcm, dst, snd_pcm_uframes_t(n)))
            }
            if rc >= 0 {
                done += rc
            } else if rc == -Int(EAGAIN) {
                continue
            } else {
                if rc == -Int(EPIPE) { underruns += 1 }
                // snd_pcm_recover handles -EPIPE (underrun), -ESTRPIPE (suspend) and -EINTR.
                let r = asound.pointee.pcm_recover(pcm, Int32(rc), 1)
                if r < 0 { return .failed(code: r) }
            }
        }
        return .written(underruns: underruns)
    }

    /// The music's frames only: not the silence `drain` wrote after them.
    /// The corresponding C function is `snd_pcm_delay`.
    public func delay() -> DeviceDelay {
        var d = snd_pcm_sframes_t(0)
        let frames = asound.pointee.pcm_delay(pcm, &d) == 0 ? max(0, Int(d) - paddingFrames) : 0
        return DeviceDelay(frames: frames, atNanoseconds: monotonicNanoseconds())
    }

    public var nowNanoseconds: Int64 { monotonicNanoseconds() }

    /// What a failure means, in words: `went away (the sound server stopped or the card was
    /// unplugged; ALSA: Input/output error, -5)`. The corresponding C function is `snd_strerror`.
    public func describe(failure code: Int32) -> String {
        let alsa = "ALSA: \(ALSALibrary.message(code)), \(code)"
        return isGone(failure: code) ? "went away (the sound server stopped or the card was unplugged; \(alsa))" : "failed (\(alsa))"
    }

    /// A write's codes when the server or the card goes, and an open's while it is still gone
    /// (no server to connect to, no such card).
    public func isGone(failure code: Int32) -> Bool {
        switch code {
        case -ENODEV, -EBADFD, -ENOTCONN, -ECONNRESET, -EPIPE, -EIO, -ESHUTDOWN, -EHOSTDOWN, -ECONNREFUSED, -ENOENT: return true
        default: return false
        }
    }

    /// Not `snd_pcm_drain`, which blocks until the buffer has played (240 ms, and the sound
    /// server's latency): a command in that time would wait for it. A period of silence goes in
    /// after the last frames (what the device plays while this thread wakes to stop it is quiet,
    /// not the buffer's stale frames; `delay` does not count it); the thread waits on `wakeFD`
    /// for up to 20 ms at a time while the music plays, and drops the silence once it has.
    /// The corresponding C functions are `snd_pcm_start`, `snd_pcm_delay` and `snd_pcm_drop`.
    public func drain(wakeFD: Int32) -> Bool {
        let left = delay().frames
        guard left > 0 else {
            drop()   // (a device that plays at once, as `null` and `file` do, is sent no silence)
            return true
        }
        // As much of the period as there is room for (a full buffer takes it as it plays).
        let room = paddingFrames < periodFrames ? min(periodFrames - paddingFrames, writableFrames()) : 0
        if room > 0, case .written = write(silence, count: room) { paddingFrames += room }
        if asound.pointee.pcm_state(pcm) == SND_PCM_STATE_PREPARED {
            // Fewer frames than the start threshold were written: start explicitly so they play.
            _ = asound.pointee.pcm_start(pcm)
        }
        awaitEvent(wakeFD, timeoutMs: Int32(min(left * 1000 / format.sampleRate + 1, 20)))
        return false
    }

    /// Frames of silence `drain` wrote after the stream's last (audio thread only; `drop` and
    /// `reopen` start again from 0, and the audio thread drops before it writes another stream).
    private var paddingFrames = 0

    /// The corresponding C function is `snd_pcm_drop`.
    public func drop() {
        paddingFrames = 0
        _ = asound.pointee.pcm_drop(pcm)
        _ = asound.pointee.pcm_prepare(pcm)
    }
}

/// A device being opened ahead by `ALSAOutput.prepare`, and what its thread opened. (Nobody joins
/// that thread: once the device is open it goes on to run what `prepare` was given.)
private struct Prepared: Sendable {
    let device: String
    let opened: OpenedAhead
}

/// What a `prepare`'s thread opened (the handle's address, and `snd_pcm_open`'s code), once it has.
private final class OpenedAhead: @unchecked Sendable {  // `result` is used under `condition`'s lock
    private let condition = Condition()
    private var result: (handle: UInt, code: Int32)?

    func finish(_ r: (handle: UInt, code: Int32)) {
        condition.lock()
        result = r
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> (handle: UInt, code: Int32) {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}

/// At most one device is opened ahead at a time.
private let preparedOpen = Locked<Prepared?>(nil)
