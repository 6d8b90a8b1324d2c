// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Glibc
import PracticeAudio
import PracticeDocuments
import PracticeEngine
import PracticeTUI

extension Practice {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Write a slowed-down (or sped-up, or transposed) copy of a track to a file.",
            discussion: """
                The output format comes from OUT's extension: .wav, .flac, .aiff, .ogg (Vorbis), \
                .opus (48 kHz), .mp3 or .m4a (AAC, which phones play). Lossless outputs keep the input's sample format unless \
                --sample-format says otherwise. At --rate 1 and --pitch 0 the samples are copied unchanged. \
                A .wav output gets the markers of the track's sidecar as cue points (with labels), placed \
                where they fall in the output.

                Examples:
                  practice render song.mp3 -o slow.wav --rate 0.8
                  practice render song.flac -o verse.ogg --from 0:32 --to 1:04 --rate 0.7
                  practice render song.mp3 -o drill.wav --loop chorus --times 8 --rate 0.8
                """)

        @Argument(help: "The audio file to read.", completion: .file(extensions: ["wav", "flac", "ogg", "opus", "mp3", "aiff"]))
        var file: String

        @Option(name: [.customShort("o"), .long], help: "The file to write; its extension picks the format.")
        var output: String

        @OptionGroup var sound: SoundOptions
        @OptionGroup var place: PlaceOptions

        @Flag(help: "Replace OUT if it exists.")
        var force = false

        @Option(help: "Sample format for .wav, .flac and .aiff: s16, s24 or float.")
        var sampleFormat: String?

        @Option(help: "Sample rate of OUT in Hz (default: the input's; .opus is always 48000).")
        var sampleRate: Int?

        @Flag(help: "Show a progress bar even when not on a terminal.")
        var progress = false

        @Flag(name: .shortAndLong, help: "Print nothing but errors.")
        var quiet = false

        func validate() throws {
            if let f = sampleFormat, !["s16", "s24", "float"].contains(f) {
                throw ValidationError("'--sample-format' must be s16, s24 or float (got '\(f)')")
            }
            if let r = sampleRate, !(8_000...384_000).contains(r) {
                throw ValidationError("'--sample-rate' must be from 8000 to 384000 (got '\(r)')")
            }
            try place.checkRate(against: sound)
        }

        func run() throws {
            // An MP4's decoder (FFmpeg's libraries) loads while the rest is set up.
            SoundFile.prepare(file)
            var job = RenderJob(input: file, output: output)
            job.audioStream = place.audioStream
            job.settings = sound.renderSettings
            (job.from, job.to, job.loop) = try Places.resolve(place.request, for: file)
            // A trainer without --times: every speed up to its top one.
            if let trainer = job.loop?.rehearsal.trainer, place.times == nil { job.loop?.passes = trainer.passesToTop }
            job.force = force
            job.sampleRate = sampleRate
            job.sampleFormat = sampleFormat.flatMap(RenderJob.SampleFormat.init(rawValue:))
            if job.container == .wav { job.cues = try RenderJob.cues(file, audioStream: place.audioStream, sidecar: place.sidecar) }
            let showProgress = !quiet && (progress || (Terminal.isTTY(STDOUT_FILENO) && Terminal.isTTY(STDERR_FILENO)))
            if let signal = try Renderer.renderOnTerminal(job, progress: showProgress, quiet: quiet) { Glibc.exit(128 + signal) }
        }
    }
}
