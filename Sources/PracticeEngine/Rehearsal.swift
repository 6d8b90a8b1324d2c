// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeAudio

/// What a practice loop adds around the music: a count-in, silence before each repeat, a pre-roll
/// before A, and a speed trainer. All of it is part of the stream, so `render` writes the whole
/// rehearsal and the player plays the same.
public struct Rehearsal: Sendable, Equatable {
    /// Seconds of silence before each repeat.
    public var gap: Double = 0
    /// Clicks before the first pass (`countInEvery`: before every pass).
    public var countIn = 0
    public var countInEvery = false
    /// The song's tempo; clicks come at `bpm` × the playback rate, so they match what is heard.
    public var bpm: Double?
    /// Seconds before A that each pass starts.
    public var preRoll: Double = 0
    public var trainer: Trainer?
    /// The count-in spoken ("five, six, seven, eight": the last beats of an eight, so the first
    /// step lands on one) instead of clicked.
    public var voice = false

    public init(gap: Double = 0, countIn: Int = 0, countInEvery: Bool = false, bpm: Double? = nil, preRoll: Double = 0, trainer: Trainer? = nil,
                voice: Bool = false) {
        self.gap = gap; self.countIn = countIn; self.countInEvery = countInEvery; self.bpm = bpm
        self.preRoll = preRoll; self.trainer = trainer; self.voice = voice
    }

    /// The words of a spoken count-in of `n` beats: the last `n` counts of an eight.
    public static func countWords(_ n: Int) -> [String] {
        let names = ["one", "two", "three", "four", "five", "six", "seven", "eight"]
        return (0..<n).map { k in names[(((8 - n + k) % 8) + 8) % 8] }
    }

    /// A spoken count-in of `n` beats at `sampleRate`, each word at a peak of 0.5 (as the clicks);
    /// made once a process (espeak-ng), so a host can make it before playing and the decoder
    /// thread only finds it.
    public static func spokenCount(_ n: Int, sampleRate: Int) throws(SpeechError) -> [[Float]] {
        try countWords(n).map { w throws(SpeechError) in
            let word = try Speech.word(w, sampleRate: sampleRate)
            let peak = max(word.map(abs).max() ?? 1, 1e-6)
            return word.map { $0 * 0.5 / peak }
        }
    }

    /// Nothing added: the loop is seamless (crossfaded at the seam).
    public var isPlain: Bool { gap == 0 && countIn == 0 && preRoll == 0 && trainer == nil }
}

/// A speed trainer: start at `from`, change by `step` after every `every` passes, stay at `to`.
public struct Trainer: Sendable, Equatable {
    public var from: Double
    public var to: Double
    public var step: Double
    public var every: Int

    public init(from: Double, to: Double, step: Double, every: Int = 1) {
        self.from = from; self.to = to; self.step = step; self.every = every
    }

    /// `FROM:TO:STEP[/EVERY]`, such as `0.6:1.0:0.05/2`; nil if it does not read.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let r = parts[0].split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard r.count == 3, let from = r[0], let to = r[1], let step = r[2] else { return nil }
        var every = 1
        if parts.count == 2 { guard let e = Int(parts[1]), e >= 1 else { return nil }; every = e }
        self.init(from: from, to: to, step: step, every: every)
    }

    /// The passes that take the trainer to its top speed and play it there once more round
    /// (`every` passes at each speed, `to` included): what a render without `--times` writes.
    public var passesToTop: Int {
        let steps = Int((abs(to - from) / abs(step) - 1e-9).rounded(.up))
        return (max(steps, 0) + 1) * every
    }

    /// The rate of pass `k` (from 0): `from` moved by `step` every `every` passes, never past `to`.
    public func rate(forPass k: Int) -> Double {
        let moved = from + Double(k / every) * abs(step) * (to >= from ? 1 : -1)
        let r = to >= from ? min(moved, to) : max(moved, to)
        return (r * 1000).rounded() / 1000
    }
}

/// Plays a stream through the `Pipeline`: a range, a plain loop (seamless, the pipeline wraps it),
/// or a loop pass by pass with count-ins and gaps between the passes and the trainer's rate for
/// each. Either way it records which output frames hold what (`timeline`), so the heard position
/// can be mapped back and a render's cue points placed.
final class Program {
    let pipeline: Pipeline
    /// With `quality` high, a rehearsal's passes are played from here once they are made (the
    /// player's; a render makes every pass itself).
    let cache: PassCache?
    /// The fade at each edge of a rehearsal's pass (it starts and stops against silence or a count-in).
    static let passFade = 0.005

    private(set) var timeline = Timeline()
    /// Keep only the newest pieces (an endless rehearsal would grow the map forever); nil keeps all (a render).
    var pieceLimit: Int?
    /// Output frames produced since `start`.
    private(set) var outputFrames = 0
    private var loop: LoopRegion?
    private var rehearsal = Rehearsal()
    private var settings = PlaybackSettings()
    private var pass = 0
    private var passStart = 0
    private var segmented = false
    private var inPass = false
    private var finished = false
    /// The insert being written: frames left, frames done, and its click spacing.
    private var insertLeft = 0
    private var insertDone = 0
    private var clickSpacing = 0
    private var scratch: [Float] = []
    private let click: [Float]
    private let accent: [Float]
    /// A spoken count-in's words at the output's rate (empty: clicks).
    private var words: [[Float]] = []
    /// The pass playing from the cache (nil: the pipeline plays it), and how much of it is out.
    private var memory: [Float]?
    private var memoryOffset = 0
    /// A plain loop at high quality on its way to its cycle (its pass as it repeats, made ahead).
    private enum Cycle {
        /// Asked of the cache; the live stream plays.
        case asked(PassCache.Key)
        /// Made: the live stream plays up to the wrap at output frame `at` (`passesDone` passes
        /// in), and the frames after it are `held` until there are a fade's worth.
        case planned(at: Int, passesDone: Int, cycle: [Float], held: [Float])
        /// Played over and over from memory: `offset` frames of this pass out, and the passes
        /// left, this one included (nil: endless).
        case playing(cycle: [Float], offset: Int, passesLeft: Int?)
    }
    private var cycle: Cycle?

    init(pipeline: Pipeline, cache: PassCache? = nil) {
        self.pipeline = pipeline
        self.cache = cache
        // A 30 ms decaying sine: 1 kHz, the first of a count 1.5 kHz.
        func tone(_ f: Double) -> [Float] {
            let n = pipeline.outputRate * 3 / 100
            return (0..<n).map { i in
                let t = Double(i) / Double(pipeline.outputRate)
                return Float(0.5 * sin(2 * .pi * f * t) * exp(-t / 0.008))
            }
        }
        click = tone(1_000)
        accent = tone(1_500)
    }

    var earlyEnd: (frame: Int, reason: String)? { pipeline.earlyEnd }
    var sourceFrame: Int { pipeline.sourceFrame }

    /// Fraction done (nil for an endless loop).
    var progress: Double? {
        guard segmented, let loop else { return pipeline.progress }
        guard let passes = loop.passes else { return nil }
        let inPassDone = memory.map { Double(memoryOffset) / Double(max($0.count, 1)) } ?? pipeline.progress ?? 0
        return min((Double(pass) + inPassDone) / Double(passes), 1)
    }

    /// `edgeFade`: seconds of fade in and out at the range's edges (a preview's), when there is no loop.
    func start(at frame: Int, end: Int, loop: LoopRegion?, edgeFade: Double = 0, settings: PlaybackSettings) throws {
        self.loop = loop
        self.settings = settings
        rehearsal = loop?.rehearsal ?? Rehearsal()
        segmented = loop != nil && !rehearsal.isPlain
        timeline = Timeline()
        outputFrames = 0
        pass = 0
        finished = false
        memory = nil
        cycle = nil
        guard let loop, segmented else {
            try pipeline.start(at: frame, end: end, loop: loop, edgeFade: loop == nil ? edgeFade : 0, settings: settings)
            timeline.pieces = [Timeline.Piece(outStart: 0, source: frame, sourceEnd: loop?.end ?? end,
                                              sourcePerOutput: pipeline.sourceFramesPerOutputFrame, lead: pipeline.stretchLead,
                                              pass: 0, rate: settings.rate, isAudio: true, wrap: loop)]
            if let cache, let loop, settings.quality == .high, settings.rate != 1 || settings.pitch != 0, loop.passes.map({ $0 > 1 }) ?? true {
                let key = PassCache.Key(from: loop.start, end: loop.end, settings: settings, cycle: true)
                cycle = .asked(key)
                cache.prepare([key])
            }
            return
        }
        passStart = frame
        inPass = false
        // Spoken (made before playing by the host, else now); clicks if it cannot speak.
        words = rehearsal.voice && rehearsal.countIn > 0 ? (try? Rehearsal.spokenCount(rehearsal.countIn, sampleRate: pipeline.outputRate)) ?? [] : []
        prepareCachedPasses(loop)
        beginInsert(clicks: rehearsal.countIn, gap: 0, before: loop.firstPass)
        if insertLeft == 0 { try beginPass() }
    }

    /// The passes ahead at each speed they will be played at (the trainer's, up to its top speed and
    /// 32 passes at most), asked of the cache in the order they come.
    private func prepareCachedPasses(_ loop: LoopRegion) {
        guard let cache, settings.quality == .high else { return }
        let last = loop.firstPass + min(loop.passes ?? Int.max, rehearsal.trainer.map { max($0.passesToTop, 1) } ?? 2, 32)
        var keys: [PassCache.Key] = []
        for k in loop.firstPass..<max(last, loop.firstPass + 1) {
            if let key = passKey(k), !keys.contains(key) { keys.append(key) }
        }
        cache.prepare(keys)
    }

    /// The cache's key for pass `k` (from the stream's start, `loop.firstPass` first); nil where
    /// it is not made ahead: at fast quality, where Rubber Band has nothing to do (1.0×, no pitch
    /// shift: the pass is only decoded), or for a first pass that starts elsewhere than the
    /// others (a stream begun inside the loop: it plays once, live).
    private func passKey(_ k: Int) -> PassCache.Key? {
        guard let loop else { return nil }
        var s = settings
        s.rate = rate(forPass: k)
        let from = passStartFor(k)
        guard cache != nil, s.quality == .high, s.rate != 1 || s.pitch != 0, from == passStartFor(loop.firstPass + 1) else { return nil }
        return PassCache.Key(from: from, end: loop.end, settings: s)
    }

    private func rate(forPass k: Int) -> Double {
        rehearsal.trainer?.rate(forPass: k) ?? settings.rate
    }

    private func beginInsert(clicks: Int, gap: Double, before k: Int) {
        let r = pipeline.outputRate
        let bpm = (rehearsal.bpm ?? 120) * rate(forPass: k)
        clickSpacing = Int((60 / bpm * Double(r)).rounded())
        let gapFrames = Int((gap * Double(r)).rounded())
        insertLeft = gapFrames + clicks * clickSpacing
        insertDone = -gapFrames   // the gap comes first; clicks from 0 on
        inPass = false
        if insertLeft > 0 {
            append(Timeline.Piece(outStart: outputFrames, source: passStartFor(k), sourceEnd: passStartFor(k), sourcePerOutput: 0, lead: 0,
                                  pass: k - (loop?.firstPass ?? 0), rate: rate(forPass: k), isAudio: false,
                                  clickSpacing: clickSpacing, clicks: clicks, gap: gapFrames))
        }
    }

    private func passStartFor(_ k: Int) -> Int {
        guard let loop else { return passStart }
        if k == loop.firstPass { return passStart }
        return max(loop.start - Int((rehearsal.preRoll * Double(pipeline.info.sampleRate)).rounded()), 0)
    }

    private func beginPass() throws {
        guard let loop else { return }
        var s = settings
        s.rate = rate(forPass: pass + loop.firstPass)
        let from = passStartFor(pass + loop.firstPass)
        memory = nil
        if let cache, let key = passKey(pass + loop.firstPass), let made = cache.pass(key) {
            // Made ahead by the same pipeline: the same samples as below, for a copy's CPU.
            memory = made
            memoryOffset = 0
            cache.served()
            append(Timeline.Piece(outStart: outputFrames, source: from, sourceEnd: loop.end,
                                  sourcePerOutput: pipeline.sourceFramesPerOutputFrame(atRate: s.rate),
                                  lead: 0, pass: pass, rate: s.rate, isAudio: true))
        } else {
            try pipeline.start(at: from, end: loop.end, edgeFade: Self.passFade, settings: s)
            append(Timeline.Piece(outStart: outputFrames, source: from, sourceEnd: loop.end, sourcePerOutput: pipeline.sourceFramesPerOutputFrame,
                                  lead: pipeline.stretchLead, pass: pass, rate: s.rate, isAudio: true))
        }
        inPass = true
    }

    /// A plain loop's live output, until the cycle takes over at a wrap: the frames before the
    /// wrap go out, those after it are held until there are a seam's worth, then faded into the
    /// cycle's first (`beginCycle`).
    private func produceLive(_ p: UnsafePointer<Float>, _ n: Int, _ body: (UnsafePointer<Float>, Int) throws -> Void) throws {
        let ch = pipeline.info.channels
        if case .asked(let key) = cycle, let made = cache?.pass(key) { planCycle(made) }
        guard case .planned(let at, let passesDone, let made, var held) = cycle else {
            outputFrames += n
            try body(p, n)
            return
        }
        let before = min(max(at - outputFrames, 0), n)
        if before > 0 {
            outputFrames += before
            try body(p, before)
        }
        held.append(contentsOf: UnsafeBufferPointer(start: p + before * ch, count: (n - before) * ch))
        if held.count / ch >= fadeFrames(made) {
            try beginCycle(at: at, passesDone: passesDone, made, after: held, body)
        } else {
            cycle = .planned(at: at, passesDone: passesDone, cycle: made, held: held)
        }
    }

    /// The fade from the live stream into the cycle: a seam's 10 ms.
    private func fadeFrames(_ cycle: [Float]) -> Int {
        min(pipeline.seamOutputFrames, cycle.count / pipeline.info.channels)
    }

    /// The wrap where the cycle takes over: the first whose live frames are not out yet, if
    /// passes are left after it (else the loop plays live to its end).
    private func planCycle(_ made: [Float]) {
        guard let loop, let live = timeline.pieces.last, loop.length > 0 else { return }
        let length = Double(loop.length), into = Double(live.source - loop.start)
        // Output frame of the wrap after `k` passes (the live piece's lead is 0: Rubber Band's output is lined up).
        func wrap(_ k: Int) -> Int { live.outStart + Int(((Double(k) * length - into) / live.sourcePerOutput).rounded()) }
        var k = max(Int(((into + Double(outputFrames - live.outStart) * live.sourcePerOutput) / length).rounded(.up)), 1)
        while wrap(k) < outputFrames { k += 1 }
        if let passes = loop.passes, k >= passes { cycle = nil; return }
        cycle = .planned(at: wrap(k), passesDone: k, cycle: made, held: [])
        cache?.served()
    }

    /// Fades the `held` live frames (from the wrap at `at` on) into the cycle's first, and plays
    /// the cycle from there on.
    private func beginCycle(at: Int, passesDone: Int, _ made: [Float], after held: [Float], _ body: (UnsafePointer<Float>, Int) throws -> Void) throws {
        guard let loop else { return }
        let ch = pipeline.info.channels
        let fade = fadeFrames(made)
        let out = PassCache.linearFade(from: held[...], into: made[...], frames: fade, channels: ch)
        let passesLeft = loop.passes.map { $0 - passesDone }
        append(Timeline.Piece(outStart: at, source: loop.start, sourceEnd: loop.end, sourcePerOutput: Double(loop.length) / Double(made.count / ch),
                              lead: 0, pass: (timeline.pieces.last?.pass ?? 0) + passesDone, rate: settings.rate, isAudio: true,
                              wrap: LoopRegion(start: loop.start, end: loop.end, passes: passesLeft)))
        cycle = .playing(cycle: made, offset: fade, passesLeft: passesLeft)
        outputFrames += fade
        try out.withUnsafeBufferPointer { try body($0.baseAddress!, fade) }
    }

    /// The next block of the cycle; false once its last pass is out.
    private func produceCycle(_ made: [Float], offset: Int, passesLeft: Int?, _ body: (UnsafePointer<Float>, Int) throws -> Void) throws -> Bool {
        let ch = pipeline.info.channels
        let frames = made.count / ch
        var offset = offset, passesLeft = passesLeft
        if offset == frames {
            if let left = passesLeft {
                passesLeft = left - 1
                if left - 1 <= 0 { cycle = .playing(cycle: made, offset: offset, passesLeft: passesLeft); return false }
            }
            offset = 0
        }
        let n = min(Pipeline.blockFrames, frames - offset)
        try made.withUnsafeBufferPointer { try body($0.baseAddress! + offset * ch, n) }
        cycle = .playing(cycle: made, offset: offset + n, passesLeft: passesLeft)
        outputFrames += n
        return true
    }

    /// The next block of the pass playing from the cache; false once it is all out.
    private func produceFromMemory(_ samples: [Float], _ body: (UnsafePointer<Float>, Int) throws -> Void) rethrows -> Bool {
        let ch = pipeline.info.channels
        let n = min(Pipeline.blockFrames, samples.count / ch - memoryOffset)
        guard n > 0 else { return false }
        try samples.withUnsafeBufferPointer { try body($0.baseAddress! + memoryOffset * ch, n) }
        memoryOffset += n
        outputFrames += n
        return true
    }

    private func append(_ piece: Timeline.Piece) {
        timeline.pieces.append(piece)
        if let limit = pieceLimit, timeline.pieces.count > limit { timeline.pieces.removeFirst(timeline.pieces.count - limit) }
    }

    /// Produces the next output; false once everything has been played.
    func produce(_ body: (UnsafePointer<Float>, Int) throws -> Void) throws -> Bool {
        guard segmented, let loop else {
            switch cycle {
            case .playing(let made, let offset, let passesLeft)?:
                return try produceCycle(made, offset: offset, passesLeft: passesLeft, body)
            case nil:
                return try pipeline.produce { p, n in
                    outputFrames += n
                    try body(p, n)
                }
            case .asked?, .planned?:
                let more = try pipeline.produce { p, n in try produceLive(p, n, body) }
                if !more, case .planned(_, _, _, let held)? = cycle, !held.isEmpty {
                    // The stream ended before the fade into the cycle: what was held is the end.
                    cycle = nil
                    try held.withUnsafeBufferPointer { try body($0.baseAddress!, held.count / pipeline.info.channels) }
                    outputFrames += held.count / pipeline.info.channels
                }
                if case .playing? = cycle { return true }
                return more
            }
        }
        while !finished {
            if inPass {
                if let memory {
                    if try produceFromMemory(memory, body) { return true }
                } else if try pipeline.produce({ p, n in
                    outputFrames += n
                    try body(p, n)
                }) {
                    return true
                }
                pass += 1
                if let passes = loop.passes, pass >= passes { finished = true; return false }
                if memory == nil, pipeline.earlyEnd != nil { finished = true; return false }
                beginInsert(clicks: rehearsal.countInEvery ? rehearsal.countIn : 0, gap: rehearsal.gap, before: pass + loop.firstPass)
                if insertLeft == 0 { try beginPass() }
                continue
            }
            // Silence and clicks, a block at a time.
            let ch = pipeline.info.channels
            let n = min(insertLeft, Pipeline.blockFrames)
            if scratch.count < n * ch { scratch = [Float](repeating: 0, count: Pipeline.blockFrames * ch) }
            for i in 0..<(n * ch) { scratch[i] = 0 }
            for i in 0..<n {
                let t = insertDone + i
                guard t >= 0, clickSpacing > 0 else { continue }
                let k = t / clickSpacing, offset = t % clickSpacing
                let wave = k < words.count ? words[k] : k == 0 ? accent : click
                if k < rehearsal.countIn, offset < min(wave.count, clickSpacing) { for c in 0..<ch { scratch[i * ch + c] = wave[offset] } }
            }
            try scratch.withUnsafeBufferPointer { try body($0.baseAddress!, n) }
            outputFrames += n
            insertLeft -= n
            insertDone += n
            if insertLeft == 0 { try beginPass() }
            return true
        }
        return false
    }
}
