// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// Playing through ALSA's `file` plugin captures exactly what the player wrote to the device; it
/// must be what `render` writes with the same settings, sample for sample (a plain loop at
/// `--quality high` excepted: played, it fades into its cycle made ahead). The stretcher is a
/// setting whose default differs (play: fast, render: high), so where `play` is given none,
/// `render` is given play's.
@Suite struct CaptureTests {
    let fx = Fixtures.shared

    @Test(arguments: [
        ["--rate", "1"], ["--rate", "0.8"], ["--rate", "1.5", "--from", "1.5"], ["--pitch", "-3", "--to", "4"],
        ["--rate", "0.7", "--pitch", "2", "--from", "0:01", "--to", "0:05.5"],
        ["--rate", "0.8", "--loop", "1", "2.5", "--times", "3", "--from", "0.5"],
        ["--loop", "1", "2", "--times", "2", "--gap", "0.2", "--count-in", "2", "--count-in-every", "--bpm", "150", "--pre-roll", "0.3"],
        ["--loop", "1", "2", "--times", "3", "--trainer", "0.7:1.0:0.15"],
        // Rubber Band's passes, made ahead and played from memory once made: the same to the
        // sample as render's, which makes each pass live, whenever the change comes.
        ["--rate", "0.8", "--quality", "high", "--loop", "1", "2", "--times", "4", "--gap", "0.2"],
        ["--quality", "high", "--loop", "1", "2", "--times", "3", "--trainer", "0.7:0.9:0.1", "--pitch", "-2", "--formant"],
    ])
    func playbackCapturesExactlyWhatRenderWrites(settings: [String]) throws {
        let raw = fx.dir.file("cap-\(UUID().uuidString).raw")
        let env = ALSACapture.environment(in: fx.dir, rawPath: raw)
        let p = try practice(["play", "mix.flac", "--device", "capture"] + settings, in: fx.dir, environment: env)
        #expect(p.status == 0)
        #expect(p.stderr == "" && p.stdout == "")
        let out = "ren-\(UUID().uuidString).wav"
        let stretcher = settings.contains("--quality") ? [] : ["--quality", "fast"]
        let r = try practice(["render", "mix.flac", "-o", out, "--sample-format", "float", "-q"] + settings + stretcher, in: fx.dir)
        #expect(r.status == 0 && r.stderr == "")
        let captured = try Signals.readRawFloat(raw)
        let rendered = try Signals.read(fx.dir.file(out)).samples
        #expect(captured.count == rendered.count, "captured \(captured.count / 2) frames, rendered \(rendered.count / 2)")
        #expect(captured == rendered)
        #expect(!captured.isEmpty)
    }

    /// A device that takes only 48 kHz, for a 44.1 kHz track: the player resamples to the
    /// device's rate (ALSA's own resampling is off), and what it writes is render's at
    /// `--sample-rate 48000` to the sample (at the track's rate it would be 165,375 frames).
    @Test func aDeviceAtAnotherRateGetsWhatRenderWritesAtThatRate() throws {
        let raw = fx.dir.file("cap48-\(UUID().uuidString).raw")
        let env = ALSACapture.environment(in: fx.dir, rawPath: raw)
        let p = try practice(["play", "mix.flac", "--device", "capture48k", "--rate", "0.8", "--to", "3", "-v"], in: fx.dir, environment: env)
        #expect(p.status == 0 && p.stderr.contains("practice: playing through 'capture48k' at 48000 Hz, 2 channels\n"), "\(p)")
        let out = "ren48-\(UUID().uuidString).wav"
        let r = try practice(["render", "mix.flac", "-o", out, "--sample-format", "float", "-q", "--rate", "0.8", "--to", "3",
                              "--quality", "fast", "--sample-rate", "48000"], in: fx.dir)
        #expect(r.status == 0 && r.stderr == "")
        let captured = try Signals.readRawFloat(raw)
        let rendered = try Signals.read(fx.dir.file(out))
        #expect(rendered.info.sampleRate == 48_000)
        #expect(captured.count == 2 * 180_000, "3 s at 0.8× is 3.75 s: 180,000 frames at 48 kHz, captured \(captured.count / 2)")
        #expect(captured == rendered.samples)
    }
}
