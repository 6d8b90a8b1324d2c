import Foundation
import Testing
import PracticeTestSupport

@Suite struct CommandTests {
    let fx = Fixtures.shared

    @Test func infoShowsFormatDurationRateChannelsAndTags() throws {
        let r = try practice(["info", "tone.wav"], in: fx.dir)
        #expect(r.status == 0 && r.stderr == "")
        #expect(r.stdout == """
            File:         tone.wav
            Format:       WAV, 16-bit PCM
            Duration:     0:10.000 (441000 frames)
            Sample rate:  44100 Hz
            Channels:     2
            Title:        Tone
            Artist:       Test

            """)
        let j = try practice(["info", "tone.mp3", "--json"], in: fx.dir)
        #expect(j.status == 0)
        #expect(j.stdout == #"{"channels":2,"container":"MP3","duration":10,"encoding":"MPEG layer III","frames":441000,"path":"tone.mp3","sampleRate":44100,"tags":{},"version":1}"# + "\n")
    }

    @Test(arguments: ["play", "render", "info"])
    func everyCommandHasHelpWithAnExample(command: String) throws {
        let r = try practice([command, "--help"], in: fx.dir)
        #expect(r.status == 0)
        #expect(r.stdout.contains("Examples:\n  practice "))
        #expect(r.stdout.contains("USAGE: practice \(command)"))
    }

    /// Rendering writes a readable file of the expected length, format and rate for each container.
    @Test(arguments: [("wav", "WAV, 16-bit PCM", 44_100), ("flac", "FLAC, 16-bit PCM", 44_100), ("aiff", "AIFF, 16-bit PCM", 44_100),
                      ("ogg", "Ogg Vorbis", 44_100), ("opus", "Ogg Opus", 48_000), ("mp3", "MP3", 44_100)])
    func renderWritesEachFormat(ext: String, format: String, rate: Int) throws {
        let out = "slow-\(UUID().uuidString).\(ext)"
        let r = try practice(["render", "tone.flac", "-o", out, "--rate", "0.8"], in: fx.dir)
        #expect(r.status == 0)
        #expect(r.stdout == "")
        let read = try Signals.read(fx.dir.file(out))
        #expect(read.info.sampleRate == rate)
        #expect(read.info.format.description == format)
        let expected = 441_000.0 / 0.8 * Double(rate) / 44_100
        // Lossy encoders pad or trim a little at the ends; lossless is exact.
        let tolerance = ["wav", "flac", "aiff"].contains(ext) ? 0.0 : 0.002
        #expect(abs(Double(read.info.frames) / expected - 1) <= max(tolerance, 1 / expected), "\(read.info.frames) frames")
        let f = Analysis.dominantFrequency(Signals.channel(read.samples, 0, of: 2), sampleRate: rate)
        #expect(abs(f / 440 - 1) < 0.005)
        let seconds = String(format: "%.3f", Double(Int(expected.rounded(.down))) / Double(rate))
        if ["wav", "flac", "aiff"].contains(ext) {
            #expect(r.stderr == "practice: wrote \(out) (0:\(seconds), \(rate) Hz, 2 ch)\n")
        }
    }
}
