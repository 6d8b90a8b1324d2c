// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeDocuments

/// Which stretcher changes the tempo: SoundTouch (`fast`: WSOLA, under 1 % of a core) or
/// Rubber Band's R3 engine (`high`: a phase vocoder, cleaner on sustained tones, more CPU).
public enum StretchQuality: String, Sendable, Equatable, CaseIterable {
    case fast, high
}

/// Tempo, pitch, stretcher and its profile: what the listener asked for.
public struct PlaybackSettings: Sendable, Equatable {
    /// Playback speed (0.25…3.0), pitch unchanged.
    public var rate: Double
    /// Pitch shift in semitones (−12…+12), tempo unchanged.
    public var pitch: Double
    /// SoundTouch's settings (with `quality` fast).
    public var profile: TimeStretcher.Profile
    public var quality = StretchQuality.fast
    /// With `quality` high and a pitch shift: the vowels' formants kept where they were (Rubber
    /// Band shifts the pitch itself, its spectral envelope preserved, instead of soxr's resampling).
    public var formant = false

    public static let rateRange = 0.25...3.0
    public static let pitchRange = -12.0...12.0

    public init(rate: Double = 1, pitch: Double = 0, profile: TimeStretcher.Profile = .music) {
        self.rate = rate; self.pitch = pitch; self.profile = profile
    }
    /// Settings with the stretcher profile named `profileName` (music, fine, percussive, soundtouch); nil if unknown.
    public init?(rate: Double, pitch: Double, profileName: String) {
        guard let profile = TimeStretcher.Profile.named(profileName) else { return nil }
        self.init(rate: rate, pitch: pitch, profile: profile)
    }
    public static var profileNames: [String] { TimeStretcher.Profile.all.map(\.name) }
    public var profileName: String { profile.name }

    /// The pitch as a frequency ratio.
    public var pitchRatio: Double { pow(2, pitch / 12) }
}

/// A region to repeat, in source frames: `start..<end`, `passes` times (nil: until stopped).
public struct LoopRegion: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var passes: Int?
    /// Count-ins, gaps, pre-roll and trainer around the passes.
    public var rehearsal = Rehearsal()
    /// How many passes were played before this stream (a restart keeps the trainer's place).
    public var firstPass = 0
    public init(start: Int, end: Int, passes: Int? = nil, rehearsal: Rehearsal = Rehearsal(), firstPass: Int = 0) {
        self.start = start; self.end = end; self.passes = passes; self.rehearsal = rehearsal; self.firstPass = firstPass
    }
    public var length: Int { end - start }
}

/// Decode → time-stretch → resample, one block at a time, on the calling (decoder) thread.
///
/// Both `practice render` and the player's decoder thread run this, so what is heard is what is
/// rendered. At rate 1.0 and pitch 0 the stretcher is bypassed (SoundTouch alters samples even at
/// tempo 1.0), so output is bit-exact to the decoded input when no resampling is needed.
///
/// A pitch shift of p = 2^(semitones/12) is SoundTouch at tempo rate ÷ p followed by soxr from the
/// file's rate to outputRate ÷ p, so the transposition gets soxr's quality rather than
/// SoundTouch's own rate transposer.
final class Pipeline {
    private let file: SoundFile
    let info: SoundFile.Info
    let outputRate: Int
    private var stretcher: TimeStretcher
    /// Rubber Band's stretcher, which does the stretching instead with `quality` high.
    private var finer: RubberBandStretcher?
    /// soxr's resampler, made for the first stream that resamples (a pitch shift, or a device at
    /// another rate than the track's): a player that never does leaves soxr and the OpenMP runtime
    /// it brings unopened (0.47 MB of `play`'s memory).
    private var resampler: Resampler?
    private(set) var settings: PlaybackSettings
    private var bypassStretch = true
    private var bypassResample = true

    /// Next source frame to read, and the exclusive end of the range being played.
    private(set) var sourceFrame = 0
    private(set) var endFrame: Int
    private var inputDone = false
    private(set) var finished = false
    /// If the file ended (or failed to decode) before `endFrame`: where, and why.
    private(set) var earlyEnd: (frame: Int, reason: String)?
    /// The track's length is an estimate (see `Track.lengthIsEstimate`): ending early is no fault.
    var lengthIsEstimate = false
    /// The audio ran out before the range's end (with or without a fault).
    private(set) var ranOut = false
    /// The region being repeated, and which pass of it is being decoded (from 1).
    private(set) var loop: LoopRegion?
    private(set) var pass = 1
    /// Where this start began, for `progress`.
    private var startFrame = 0
    /// Frames of fade at each edge of the range (0: none).
    private var fadeFrames = 0
    /// Frames put into and taken from the stretcher since `start`; once the range has been read,
    /// how many frames the stretcher owes in all (its input ÷ tempo), and whether the audio after
    /// the range is fed in to bring them out (the "run-out"), rather than SoundTouch's silence.
    private var stretchedIn = 0
    private var stretchedOut = 0
    private var owed: Int?
    private var runOut = false

    static let blockFrames = 4096   // 93 ms at 44.1 kHz per read
    private var input: [Float]
    /// The stretched block: its first `middleCount` samples (the stretcher writes straight into
    /// it, so the array is as long as the most a block has needed, not as what it holds).
    private var middle: [Float] = []
    private var middleCount = 0
    /// Where this call's frames start in `middle`: 0, but for `produce(into:count:)`, whose caller's
    /// array is `middle` for the call.
    private var middleBase = 0
    private var appending = false
    private var output: [Float] = []
    /// Frames asked of the stretcher at a time.
    static let receiveFrames = 8192
    /// The audio just past a loop's end, faded out under its start at each seam.
    private var seamTail: [Float]
    /// Length of the crossfade at a loop seam: 10 ms (441 frames at 44.1 kHz), short enough to keep
    /// the beat, long enough that a splice of two unrelated waveforms does not click.
    let seamFrames: Int

    init(file: consuming SoundFile, outputRate: Int, settings: PlaybackSettings) throws {
        let info = file.info
        self.info = info
        self.file = file
        self.outputRate = outputRate
        self.settings = settings
        endFrame = info.frames
        input = [Float](repeating: 0, count: Self.blockFrames * info.channels)
        seamFrames = max(1, info.sampleRate / 100)
        seamTail = [Float](repeating: 0, count: seamFrames * info.channels)
        stretcher = try TimeStretcher(channels: info.channels, sampleRate: info.sampleRate, profile: settings.profile)
        finer = try Self.finer(settings, info)
        if outputRate != info.sampleRate {
            resampler = try Resampler(inputRate: Double(info.sampleRate), outputRate: Double(outputRate), channels: info.channels)
        }
    }

    /// Source frames that one output frame advances under `settings`.
    var sourceFramesPerOutputFrame: Double { sourceFramesPerOutputFrame(atRate: settings.rate) }

    /// Source frames that one output frame advances at `rate`.
    func sourceFramesPerOutputFrame(atRate rate: Double) -> Double { rate * Double(info.sampleRate) / Double(outputRate) }

    /// A seam's 10 ms in output frames (a loop's cycle fades over it).
    var seamOutputFrames: Int { max(1, outputRate / 100) }

    /// How far ahead of `tempo × output` the stretched content runs, in source frames, once the
    /// first sequence has played. WSOLA copies each sequence of W ms at the original speed and then
    /// skips (or repeats) input, so within a sequence the content runs 0…W(1 − tempo) ahead of the
    /// straight line: (1 − tempo)·W/2 on average; slowing down, the search for the best splice adds
    /// half the seek window S, and 1.5 ms more measured. Fitted on a chirp rendered at 0.5–2.0×
    /// (music: 36.5 ms × (1 − tempo) measured below 1.0×; 27 above, model 25; percussive: 24–28
    /// below 1.0×, model 24; 15.2 above, model 15).
    var stretchLead: Double {
        // Rubber Band's output is lined up with its input (its start delay dropped).
        guard !bypassStretch, finer == nil else { return 0 }
        let tempo = settings.rate / settings.pitchRatio
        let ms = Double(stretcher.sequenceMs) / 2 + (tempo < 1 ? Double(stretcher.seekWindowMs) / 2 + 1.5 : 0)
        return (1 - tempo) * ms / 1000 * Double(info.sampleRate)
    }

    /// Opens the libraries a pipeline with `settings` reads, stretches and resamples with, before
    /// the first one is made: a player makes its pipeline once its device is open, as it needs the
    /// device's rate, and opens them while the device opens. soxr only for a pitch shift: a device
    /// at another rate opens it as the pipeline is made, a later shift as its stream starts.
    static func loadLibraries(for settings: PlaybackSettings) {
        SoundFile.loadLibrary()
        TimeStretcher.loadLibrary()
        if settings.pitch != 0 { Resampler.loadLibrary() }
        if settings.quality == .high { RubberBandStretcher.loadLibrary() }
    }

    /// Rubber Band's stretcher for `settings` at high quality. Its R3 engine works from 8 kHz (below,
    /// it prints warnings of its own and stretches badly), so a track below that is stretched by
    /// SoundTouch whatever the quality asked (a 1 kHz recording, `EdgeTests`).
    private static func finer(_ settings: PlaybackSettings, _ info: SoundFile.Info) throws -> RubberBandStretcher? {
        guard settings.quality == .high, info.sampleRate >= RubberBandStretcher.lowestSampleRate else { return nil }
        return try RubberBandStretcher(channels: info.channels, sampleRate: info.sampleRate)
    }

    /// Restarts at `frame` with `settings`, playing up to `end` (exclusive; nil = the whole file),
    /// or, with a `loop`, up to the loop's end and then from its start again, `loop.passes` times
    /// in all (the first pass runs from `frame`, which may lie before the loop).
    ///
    /// With `edgeFade` seconds, the first and last of the range fade in and out (5 ms for a pass
    /// of a rehearsal, which starts and stops against silence or a count-in; longer for a preview).
    func start(at frame: Int, end: Int? = nil, loop: LoopRegion? = nil, edgeFade: Double = 0, settings new: PlaybackSettings) throws {
        if new.profile != settings.profile {
            stretcher = try TimeStretcher(channels: info.channels, sampleRate: info.sampleRate, profile: new.profile)
        }
        if new.quality != settings.quality {
            finer = try Self.finer(new, info)
        }
        // Formants kept: Rubber Band changes tempo and pitch both, and nothing is resampled for the pitch.
        let formant = new.formant && finer != nil && new.pitch != 0
        let p = formant ? 1 : new.pitchRatio
        let tempo = new.rate / p
        bypassStretch = tempo == 1 && !formant
        let resampleTo = Double(outputRate) / p
        bypassResample = resampleTo == Double(info.sampleRate)
        if !bypassResample && resampleTo != resampler?.outputRate {
            resampler = try Resampler(inputRate: Double(info.sampleRate), outputRate: resampleTo, channels: info.channels)
        } else {
            try resampler?.clear()
        }
        stretcher.clear()
        stretcher.setTempo(tempo)
        if let finer {
            finer.setPitch(formant ? new.pitchRatio : 1, keepingFormants: formant)
            finer.setTempo(tempo)
            finer.clear()
        }
        settings = new
        try file.seek(toFrame: frame)
        sourceFrame = frame
        startFrame = frame
        self.loop = loop.map { LoopRegion(start: max($0.start, 0), end: min($0.end, info.frames), passes: $0.passes) }
        pass = 1
        endFrame = self.loop?.end ?? min(end ?? info.frames, info.frames)
        fadeFrames = edgeFade > 0 ? max(1, Int(edgeFade * Double(info.sampleRate))) : 0
        inputDone = false
        finished = false
        earlyEnd = nil
        ranOut = false
        stretchFlushed = false
        resampleFlushed = false
        stretchedIn = 0
        stretchedOut = 0
        owed = nil
        runOut = false
    }
    private var stretchFlushed = false
    private var resampleFlushed = false

    /// `produce` for a render's pieces: the next output frames go into `samples` after its first
    /// `count` samples, and `count` grows by them. The stretcher writes them there itself, with no
    /// copy through the pipeline's block (27 M instructions for a minute of output, 1.4 % of a
    /// render); `samples` grows (zeros) only when the room after `count` runs short, so an array
    /// kept from piece to piece is written over in place. Only for a range that is stretched and
    /// not resampled, as every `SplitRender` piece is. Returns false once the range has been
    /// played out.
    func produce(into samples: inout [Float], count: inout Int) throws -> Bool {
        precondition(bypassResample && !bypassStretch, "produce(into:count:) is for stretched, unresampled ranges")
        swap(&middle, &samples)
        middleBase = count
        middleCount = count   // what `count` stays at if the range is already out
        appending = true
        defer {
            count = middleCount
            middleCount = 0
            middleBase = 0
            appending = false
            swap(&middle, &samples)
        }
        return try produce { _, _ in }
    }

    /// Produces the next output frames and hands them to `body` (valid only during the call).
    /// Returns false once the range has been played out completely.
    func produce(_ body: (UnsafePointer<Float>, Int) throws -> Void) throws -> Bool {
        let ch = info.channels
        while !finished {
            // 1. Decode a block.
            let decoded = inputDone ? 0 : try decodeBlock()
            // 2. Stretch.
            middleCount = middleBase
            if bypassStretch {
                makeRoomInMiddle(for: decoded)
                input.withUnsafeBufferPointer { i in
                    middle.withUnsafeMutableBufferPointer { m in
                        (m.baseAddress! + middleCount).update(from: i.baseAddress!, count: decoded * ch)
                    }
                }
                middleCount = decoded * ch
            } else {
                try input.withUnsafeBufferPointer { try stretch($0.baseAddress!, frames: decoded) }
                stretchedIn += decoded
                if inputDone && !stretchFlushed {
                    try finishStretching()
                    stretchFlushed = true
                } else if runOut {
                    try feedRunOut()
                }
                while true {
                    // Into the room the array has; it grows only when that is nearly full, so it
                    // stays as long as a block's output (64 kB at 0.8×, not 256).
                    if (middle.count - middleCount) / ch < Self.receiveFrames / 8 { makeRoomInMiddle(for: Self.receiveFrames) }
                    let room = min(Self.receiveFrames, (middle.count - middleCount) / ch)
                    let got = middle.withUnsafeMutableBufferPointer {
                        let at = $0.baseAddress! + middleCount
                        return finer?.receive(into: at, maxFrames: room) ?? stretcher.receive(into: at, maxFrames: room)
                    }
                    if got == 0 { break }
                    // What the stretcher gave past what it owes stays behind the count.
                    let keep = owed.map { min(got, max($0 - stretchedOut, 0)) } ?? got
                    middleCount += keep * ch
                    if fadeFrames > 0, let owed { fadeOut(last: keep, endingAt: stretchedOut + keep, of: owed) }
                    stretchedOut += keep
                }
                if runOut, let owed, stretchedOut >= owed {
                    runOut = false
                    stretcher.clear()   // what the run-out pushed beyond the range
                    finer?.clear()
                }
            }
            // 3. Resample.
            let produced: Int
            if appending {
                produced = (middleCount - middleBase) / ch   // already where the caller wants them
                middleBase = middleCount
            } else if bypassResample {
                swap(&middle, &output)
                produced = middleCount / ch
            } else {
                produced = try resample(frames: middleCount / ch, flush: inputDone && !runOut)
            }
            if inputDone && !runOut && (bypassResample || resampleFlushed) { finished = true }
            if produced > 0 {
                if !appending { try output.withUnsafeBufferPointer { try body($0.baseAddress!, produced) } }
                if !finished { return true }
            }
        }
        return false
    }

    /// Fraction of the range (all passes of a loop) decoded so far; nil for an endless loop.
    var progress: Double? {
        guard let loop else {
            return Double(sourceFrame - startFrame) / Double(max(endFrame - startFrame, 1))
        }
        guard let passes = loop.passes else { return nil }
        let total = Double(loop.end - startFrame + (passes - 1) * loop.length)
        let done = Double(sourceFrame - startFrame + (pass - 1) * loop.length)
        return min(done / max(total, 1), 1)
    }

    /// Decodes up to one block into `input`, wrapping at a loop's end; returns the frames decoded.
    private func decodeBlock() throws -> Int {
        let ch = info.channels
        var got = 0
        while got < Self.blockFrames {
            let want = min(Self.blockFrames - got, endFrame - sourceFrame)
            if want > 0 {
                let n = input.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress! + got * ch, frames: want) }
                if fadeFrames > 0 { applyEdgeFades(at: got, frames: n) }
                sourceFrame += n
                got += n
                if n < want {
                    inputDone = true
                    // An estimated length (an MP3 without a frame count) is not a promise: its
                    // audio ending first is no truncation.
                    if let error = file.readError {
                        earlyEnd = (sourceFrame, "decoding failed (\(error.message))")
                    } else if !lengthIsEstimate {
                        earlyEnd = (sourceFrame, "the file ends early")
                    }
                    ranOut = true
                    return got
                }
            }
            guard sourceFrame >= endFrame else { continue }
            guard let loop, loop.passes.map({ pass < $0 }) ?? true else {
                inputDone = true
                return got
            }
            let n = min(seamFrames, loop.length)
            if Self.blockFrames - got < n { return got }   // the seam goes at the start of the next block
            try crossfadeIntoLoopStart(frames: n, at: got)
            got += n
        }
        return got
    }

    /// The range has been read: the stretcher owes its input ÷ tempo frames. SoundTouch's flush
    /// would push them out with silence, and since the stretched sound runs a little ahead of the
    /// source (`stretchLead`), its last 10–30 ms would be silence: a hole before the next pass of
    /// a rehearsal, a click at a `--to`. Where the file goes on, the audio after the range pushes
    /// them out instead (and is then dropped); at the file's end, the silence is all there is.
    private func finishStretching() throws {
        owed = Int((Double(stretchedIn) / (finer?.tempo ?? stretcher.tempo)).rounded())
        if sourceFrame == endFrame, endFrame < info.frames, earlyEnd == nil {
            runOut = true
            try feedRunOut()
        } else {
            if let finer { finer.flush() } else { try stretcher.flush() }
        }
    }

    /// Frames into the stretcher in use.
    private func stretch(_ samples: UnsafePointer<Float>, frames: Int) throws {
        if let finer { finer.put(samples, frames: frames) } else { try stretcher.put(samples, frames: frames) }
    }

    /// One block of the audio after the range into the stretcher (silence once the file ends).
    private func feedRunOut() throws {
        let ch = info.channels
        let n = input.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Self.blockFrames) }
        if n < Self.blockFrames { for i in (n * ch)..<(Self.blockFrames * ch) { input[i] = 0 } }
        try input.withUnsafeBufferPointer { try stretch($0.baseAddress!, frames: Self.blockFrames) }
    }

    /// Makes `middle` long enough for `frames` more frames after its first `middleCount` samples.
    private func makeRoomInMiddle(for frames: Int) {
        let need = middleCount + frames * info.channels
        if middle.count < need { middle.append(contentsOf: repeatElement(0, count: need - middle.count)) }
    }

    /// A linear fade over the last `fadeFrames` of the `owed` stretched frames, for the `n` frames
    /// just appended to `middle` (they end at stretched frame `end`). Stretched passes fade out here,
    /// on what is heard, because the stretched sound runs ahead of the source's frames.
    private func fadeOut(last n: Int, endingAt end: Int, of owed: Int) {
        let ch = info.channels
        let base = middleCount / ch - n
        for i in 0..<n {
            guard let g = edgeGain(framesFromEdge: owed - 1 - (end - n + i)) else { continue }
            for c in 0..<ch { middle[(base + i) * ch + c] *= g }
        }
    }

    /// The linear edge fade's gain `d` frames from the range's edge (0: the edge frame itself);
    /// nil past the fade.
    private func edgeGain(framesFromEdge d: Int) -> Float? {
        d < fadeFrames ? Float(d + 1) / Float(fadeFrames + 1) : nil
    }

    /// Linear fades over the first and last `fadeFrames` of the range, for the `n` frames just read
    /// into `input` at `offset` (they start at source frame `sourceFrame`).
    private func applyEdgeFades(at offset: Int, frames n: Int) {
        let ch = info.channels
        for i in 0..<n {
            let f = sourceFrame + i
            // Stretched, the fade-out is made on the output instead (`fadeOut`).
            let fromStart = f - startFrame, toEnd = bypassStretch ? endFrame - 1 - f : Int.max
            guard let g = edgeGain(framesFromEdge: min(fromStart, toEnd)) else { continue }
            for c in 0..<ch { input[(offset + i) * ch + c] *= g }
        }
    }

    /// The seam: the `frames` frames that follow the loop's end fade out (equal power) while the
    /// loop's first `frames` fade in, written to `input` at `offset`. So each pass after the
    /// first is exactly `loop.length` frames long, and the waveform has no step at the seam.
    private func crossfadeIntoLoopStart(frames n: Int, at offset: Int) throws {
        guard let loop else { return }
        let ch = info.channels
        let tail = min(n, info.frames - loop.end)   // none when the loop ends with the file
        var tailRead = 0
        if tail > 0 { tailRead = seamTail.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: tail) } }
        try file.seek(toFrame: loop.start)
        let head = input.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress! + offset * ch, frames: n) }
        for i in 0..<n {
            let w = (Double(i) + 0.5) / Double(n) * Double.pi / 2
            let fadeIn = Float(sin(w)), fadeOut = Float(cos(w))
            for c in 0..<ch {
                let k = (offset + i) * ch + c
                let a = i < head ? input[k] : 0
                let b = i < tailRead ? seamTail[i * ch + c] : 0
                input[k] = a * fadeIn + b * fadeOut
            }
        }
        sourceFrame = loop.start + head
        pass += 1
    }

    /// Resamples the first `frames` frames of `middle` into `output`; returns the frames made.
    private func resample(frames: Int, flush: Bool) throws -> Int {
        let ch = info.channels
        guard resampler != nil else { preconditionFailure("resampling without a resampler: start(at:) makes one") }
        let need = resampler!.outputCapacity(forInput: max(frames, 1024)) * ch
        if output.count < need { output = [Float](repeating: 0, count: need) }
        var produced = 0
        var consumed = 0
        try middle.withUnsafeBufferPointer { inBuf in
            try output.withUnsafeMutableBufferPointer { outBuf in
                while consumed < frames {
                    let r = try resampler!.process(inBuf.baseAddress! + consumed * ch, frames: frames - consumed,
                                                  into: outBuf.baseAddress! + produced * ch, capacity: outBuf.count / ch - produced)
                    consumed += r.consumed
                    produced += r.produced
                    if r.consumed == 0 && r.produced == 0 { break }
                }
                if flush {
                    while true {
                        let room = outBuf.count / ch - produced
                        if room == 0 { break }
                        let r = try resampler!.process(nil, frames: 0, into: outBuf.baseAddress! + produced * ch, capacity: room)
                        produced += r.produced
                        if r.produced == 0 { resampleFlushed = true; break }
                    }
                }
            }
        }
        return produced
    }
}
