// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeTestSupport

/// The `practice` binary built beside the test bundle.
/// The binary the tests run: `PRACTICE_BINARY` (`make test` sets it to the release build, the
/// one `make install` installs), else the one built beside the tests.
let practiceBinary = ProcessInfo.processInfo.environment["PRACTICE_BINARY"]
    ?? Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("practice").path

/// Runs `practice` with `arguments` in `dir`.
func practice(_ arguments: [String], in dir: ScratchDirectory, environment: [String: String] = [:]) throws -> ProcessResult {
    try run(practiceBinary, arguments, environment: environment, currentDirectory: dir.path)
}

/// Fixtures made with the real libsndfile (and truncations of them), shared by the suites.
final class Fixtures: @unchecked Sendable {  // immutable after init
    static let shared = try! Fixtures()
    let dir = ScratchDirectory("e2e")

    init() throws {
        let fm = FileManager.default
        // 10 s of 440 Hz, stereo, 44.1 kHz, in each format.
        let tone = Signals.sine(440, seconds: 10)
        try Signals.write(tone, to: dir.file("tone.wav"), tags: ["title": "Tone", "artist": "Test"])
        try Signals.write(tone, to: dir.file("tone.flac"), container: .flac)
        try Signals.write(tone, to: dir.file("tone.mp3"), container: .mp3)
        try Signals.write(tone, to: dir.file("tone.ogg"), container: .ogg)
        // Music-like material for capture comparisons: two tones and a pulse.
        var mix = Signals.sine(330, seconds: 6, amplitude: 0.3)
        let high = Signals.sine(1_250, seconds: 6, amplitude: 0.2)
        for i in 0..<mix.count { mix[i] += high[i] * Float((i / 2) % 11_025 < 2_000 ? 1 : 0) }
        try Signals.write(mix, to: dir.file("mix.flac"), container: .flac)
        // Bad inputs.
        _ = fm.createFile(atPath: dir.file("empty.wav"), contents: Data())
        try "These are the lyrics, not a song.\n".write(toFile: dir.file("notes.mp3"), atomically: true, encoding: .utf8)
        try fm.createDirectory(atPath: dir.file("folder.wav"), withIntermediateDirectories: true)
        // A Standard MIDI File: a format libsndfile does not read.
        _ = fm.createFile(atPath: dir.file("song.mid"), contents: Data([0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0x60,
                                                                     0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 4, 0, 0xFF, 0x2F, 0]))
        for name in ["tone.flac", "tone.mp3"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: dir.file(name)))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: dir.file("cut-" + name)))
        }
    }
}
