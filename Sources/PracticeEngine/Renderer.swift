// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeDocuments
import PracticeSystem

/// Writes a track through the pipeline to a file, faster than real time.
public struct RenderJob: Sendable {
    public var input: String
    public var output: String
    /// The audio stream of a container with several (nil: the first).
    public var audioStream: Int?
    public var settings = PlaybackSettings()
    /// Range in seconds on the source timeline; nil = start / end of the track.
    public var from: Double?
    public var to: Double?
    /// A region to write `passes` times (nil passes: once), after a lead-in from `from` if given.
    public var loop: LoopRange?
    public var force = false
    /// Markers (points) and loops (regions) in seconds on the source's timeline, written into a
    /// WAV output as cue points wherever the output plays them: once per pass of a loop, after
    /// count-ins and gaps, at each pass's rate (placed by the stream's `Timeline`).
    public var cues: [InterchangeEntry] = []
    /// The length of the pieces a plain render is cut into for both cores (SplitRender); nil:
    /// 10 s (`SplitRender.pieceSeconds`). (Tests make them short, to have seams in a short render.)
    public var pieceSeconds: Double?
    /// For lossless containers; nil = the input's own (16-bit for lossy inputs).
    public var sampleFormat: SoundFileWriter.SampleFormat?
    /// nil = the input's rate (or what the container requires).
    public var sampleRate: Int?

    public init(input: String, output: String) { self.input = input; self.output = output }
    public typealias SampleFormat = SoundFileWriter.SampleFormat

    /// The container chosen by the output's extension.
    public var container: SoundFileWriter.Container? { .init(pathExtension: Path.pathExtension(output)) }
}

public struct RenderResult: Sendable {
    public var frames: Int
    public var sampleRate: Int
    public var channels: Int
    public var earlyEnd: String?
}

public enum Renderer {
    /// The title a render carries, saying what it is: "Chorus drill · 0.80× · −2 st" (a loop by its
    /// name), "Song · 0.80×" (the track's title, else its file name), a trainer as "0.60–1.00×".
    /// Nil for a plain copy (the original title stays).
    static func title(for job: RenderJob, track: Track) -> String? {
        let trainer = job.loop?.rehearsal.trainer
        let s = job.settings
        guard job.loop != nil || s.rate != 1 || s.pitch != 0 else { return nil }
        var parts: [String] = []
        if let loop = job.loop {
            parts.append("\(loop.name ?? "\(Timecode.format(loop.start)) – \(Timecode.format(loop.end))") drill")
        } else {
            parts.append(track.displayTitle)
        }
        if let t = trainer {
            parts.append(cFormat("%.2f–%.2f×", t.from, t.to))
        } else if s.rate != 1 {
            parts.append(cFormat("%.2f×", s.rate))
        }
        if s.pitch != 0 {
            let st = s.pitch == s.pitch.rounded() ? String(Int(abs(s.pitch))) : cFormat("%.1f", abs(s.pitch))
            parts.append("\(s.pitch > 0 ? "+" : "−")\(st) st")
        }
        return parts.joined(separator: " · ")
    }

    /// A render stopped by a signal.
    struct Interrupted: Error {}

    /// Renders `job`, reporting progress (0…1) now and then. The output appears only when complete:
    /// it is written to a temporary file in the same folder and renamed over the target. When
    /// `interrupted` says so (a signal came), the temporary file is removed and nothing is written.
    public static func render(_ job: RenderJob, interrupted: () -> Bool = { false }, progress: (Double) -> Void = { _ in }) throws(PracticeError) -> RenderResult {
        guard let container = job.container else {
            throw PracticeError(.usage, "\(job.output): unknown output format '.\(Path.pathExtension(job.output))' (use .wav, .flac, .ogg, .opus, .mp3, .aiff or .m4a)")
        }
        let opened = try Track.open(job.input, audioStream: job.audioStream)
        let track = opened.track
        var range = try track.playRange(from: job.from, to: job.to, loop: job.loop)
        if range.loop != nil, range.loop?.passes == nil { range.loop?.passes = 1 }
        let (start, end, region) = (range.start, range.end, range.loop)

        if let kind = FileSystem.kind(job.output) {
            if kind == .directory { throw PracticeError(.cannotCreate, "\(job.output): is a directory") }
            if !job.force { throw PracticeError(.cannotCreate, "\(job.output): already exists (use --force to replace it)") }
        }
        if let output = Path.resolved(job.output), output == Path.resolved(job.input) {
            throw PracticeError(.cannotCreate, "\(job.output): is the input file; choose another output")
        }
        let rate = container.requiredSampleRate ?? job.sampleRate ?? track.info.sampleRate
        let sampleFormat = job.sampleFormat ?? defaultSampleFormat(for: track.info.format, container: container)
        guard container.supports(sampleFormat) else {
            throw PracticeError(.usage, "\(job.output): \(container.rawValue) cannot store \(sampleFormat.rawValue) samples")
        }

        let folder = Path.folder(of: job.output)
        let partial = ".\(Path.lastComponent(job.output)).partial-"
        let temporary = Path.appending(partial + "\(getpid())", to: folder)
        // What a render killed part-way left (`.NAME.partial-PID` of a process that is gone) goes now.
        AtomicFile.removeAbandoned(in: folder) { name in
            name.hasPrefix(partial) ? Int32(name.dropFirst(partial.count)) : nil
        }
        func makeWriter() throws(PracticeError) -> SoundFileWriter {
            do {
                var tags = track.tags
                if let title = title(for: job, track: track) { tags["title"] = title }
                return try SoundFileWriter(path: temporary, container: container, sampleFormat: sampleFormat,
                                           sampleRate: rate, channels: track.info.channels, tags: tags)
            } catch {
                let reason: String
                if case .sndfile(let e) = error, e.isSystem { reason = systemMessage() } else { reason = error.message }
                throw PracticeError(.cannotCreate, "\(job.output): cannot create: \(reason)")
            }
        }
        var writer = try makeWriter()
        FaultPoint.reach("render-created")
        var frames = 0
        var program: Program
        // A plain range goes over both cores where that gives the same length (SplitRender).
        let split = region == nil && !track.lengthIsEstimate
            ? SplitRender(path: job.input, audioStream: job.audioStream, file: opened.file, start: start, end: end,
                          settings: job.settings, outputRate: rate, pieceSeconds: job.pieceSeconds ?? SplitRender.pieceSeconds)
            : nil
        do {
            let pipeline = try Pipeline(file: opened.file, outputRate: rate, settings: job.settings)
            pipeline.lengthIsEstimate = track.lengthIsEstimate
            program = Program(pipeline: pipeline)
            try program.start(at: start, end: end, loop: region, settings: job.settings)
            func write(_ p: UnsafePointer<Float>, _ n: Int) throws {
                try writer.write(p, frames: n)
                if frames == 0 { FaultPoint.reach("render-block") }
                frames += n
            }
            var single = split == nil
            if let split {
                do {
                    _ = try split.run(write: write, interrupted: interrupted, progress: progress)
                } catch SplitRender.Stop.interrupted {
                    throw Interrupted()
                } catch SplitRender.Stop.fileShort {
                    // The file holds less than it says: one stream renders what there is, and says so.
                    try writer.close()
                    writer = try makeWriter()
                    frames = 0
                    single = true
                }
            }
            var lastReport = -1.0
            while try single && program.produce({ (p, n) throws in try write(p, n) }) {
                if interrupted() { throw Interrupted() }
                let done = program.progress ?? 0
                if done - lastReport >= 0.01 { progress(done); lastReport = done }
            }
            try writer.close()
            if container == .wav, !job.cues.isEmpty {
                let entries = placed(job.cues, on: program.timeline, outputFrames: frames, outputRate: rate, track: track)
                do { try Interchange.appendCues(toWAVAt: temporary, entries: entries, sampleRate: rate) } catch {
                    try? FileManager.default.removeItem(atPath: temporary)
                    throw PracticeError(.ioError, "\(job.output): cannot write cue points: \(error.message)")
                }
            }
        } catch is Interrupted {
            try? FileManager.default.removeItem(atPath: temporary)
            throw PracticeError(.tempFailure, "\(job.output): interrupted; nothing was written")
        } catch let e as AudioFileError {
            // libsndfile's encoders say what they could not do, not why: a full disk is the usual
            // why (looked at before the part is removed, which frees its room).
            let full = Self.isFull(folder)
            try? FileManager.default.removeItem(atPath: temporary)
            throw PracticeError(.ioError, "\(job.output): write failed: \(full ? "\(String(cString: strerror(ENOSPC))) (the disk is full)" : e.message); nothing was written")
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw PracticeError(.software, "\(job.input): processing failed: \(error)")
        }
        // An estimated length let `--from` past the audio's real end: nothing to write.
        if frames == 0, program.pipeline.ranOut {
            try? FileManager.default.removeItem(atPath: temporary)
            let at = Timecode.format(Double(start) / Double(track.info.sampleRate), decimals: 3)
            // Where the audio ends: decoded once (and kept with the track's identity).
            let end = (try? TrackIdentity.of(track).pcm.frames).map { " (\(Timecode.format(Double($0) / Double(track.info.sampleRate), decimals: 3)), decoded)" } ?? ""
            throw PracticeError(.usage, "--from \(at) is past the end of \(job.input)\(end)")
        }
        progress(1)
        // On disk before it takes the final name: a crash never leaves a part under it.
        switch AtomicFile.commit(temporary, to: job.output) {
        case nil: break
        case .flush(let reason)?: throw PracticeError(.ioError, "\(job.output): write failed: \(reason); nothing was written")
        case .rename(let reason)?: throw PracticeError(.cannotCreate, "\(job.output): cannot create: \(reason)")
        }
        let early = program.earlyEnd.map { "\(job.input): \($0.reason) at \(Timecode.format(Double($0.frame) / Double(track.info.sampleRate), decimals: 3)) of \(Timecode.format(track.duration, decimals: 3)); rendered what was there" }
        return RenderResult(frames: frames, sampleRate: rate, channels: track.info.channels, earlyEnd: early)
    }

    /// Whether the file system holding `folder` ("." for the working one) has (next to) no room left.
    static func isFull(_ folder: String) -> Bool {
        var st = statvfs()
        guard statvfs(folder, &st) == 0 else { return false }
        return UInt64(st.f_bavail) * UInt64(st.f_frsize) < 64 * 1024
    }

    /// Source-timeline entries as they fall in the output: a point at every output frame that plays
    /// it; a region from each of its starts to the first end after it. Seconds on the output's timeline.
    static func placed(_ entries: [InterchangeEntry], on timeline: Timeline, outputFrames: Int, outputRate: Int,
                       track: Track) -> [InterchangeEntry] {
        var out: [InterchangeEntry] = []
        let seconds = { (frame: Int) in Double(frame) / Double(outputRate) }
        for e in entries {
            let starts = timeline.outputFrames(of: track.frame(clamping: e.start), before: outputFrames)
            guard let end = e.end else {
                out += starts.map { InterchangeEntry(name: e.name, start: seconds($0)) }
                continue
            }
            let ends = timeline.outputFrames(of: track.frame(clamping: end), before: outputFrames, atEnd: true)
            for s in starts {
                if let e2 = ends.first(where: { $0 > s }) { out.append(InterchangeEntry(name: e.name, start: seconds(s), end: seconds(e2))) }
            }
        }
        return out.sorted { ($0.start, $0.end ?? -1, $0.name) < ($1.start, $1.end ?? -1, $1.name) }
    }

    /// Keep the input's sample format where the container can store it; lossy inputs become 16-bit.
    static func defaultSampleFormat(for format: AudioFormat, container: SoundFileWriter.Container) -> SoundFileWriter.SampleFormat {
        if format.isFloat { return container.supports(.float) ? .float : .s24 }
        switch format.pcmBits {
        case .some(let bits) where bits > 16: return .s24
        default: return .s16
        }
    }
}

extension RenderJob {
    /// The sidecar's markers and loops as they fall in the output, for a WAV's cue chunk. A
    /// sidecar that cannot be read only costs the cues (with a warning), not the render.
    public static func cues(_ file: String, audioStream: Int?, sidecar: String?) throws(PracticeError) -> [InterchangeEntry] {
        let track = try Track.describe(file, audioStream: audioStream)
        do {
            let loaded = try SidecarStore.load(for: track, explicit: sidecar)
            guard !loaded.sidecar.liveMarkers.isEmpty || !loaded.sidecar.liveLoops.isEmpty else { return [] }
            // (Its warnings and notices were said when the places were looked up.)
            return loaded.sidecar.interchangeEntries(for: .wav)
        } catch {
            Console.warn(["\(error.message); rendering without cue points"])
            return []
        }
    }
}
