// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments

/// Fingerprints kept with a track's identity (Chromaprint, as Debian's fpcalc computes them), and
/// the offset between two copies of a song found from them.
@Suite struct AlignmentTests {
    let dir = ScratchDirectory("align")

    func identity(_ name: String) throws -> TrackIdentity {
        try TrackIdentity.compute(try Track.open(dir.file(name)).track)
    }

    /// The fingerprint kept with the identity is Chromaprint's, as `fpcalc` prints it for the whole file.
    @Test func theFingerprintIsFpcalcs() throws {
        try Signals.write(Signals.music(seconds: 20, seed: 1), to: dir.file("song.flac"), container: .flac)
        let print = try #require(try identity("song.flac").chromaprint)
        #expect(print.algorithm == 1 && print.start == 0 && print.lengthSeconds == 20)
        let fpcalc = try run("/usr/bin/fpcalc", ["-length", "0", dir.file("song.flac")])
        #expect(fpcalc.stdout.split(separator: "\n").contains("FINGERPRINT=" + print.fingerprint[...]), "\(fpcalc.stdout)")
        let raw = try Fingerprinter.decode(print.fingerprint)
        #expect(try Fingerprinter.encode(raw.raw, algorithm: raw.algorithm) == print.fingerprint)
        // One item per 124 ms, after Chromaprint's first 2.6 s (its window): about 140 for 20 s.
        let items: Double = (20 - 2.6) / 0.1238
        #expect(abs(Double(raw.raw.count) - items) <= 3, "\(raw.raw.count) items")
    }

    /// An MP3 with 1.3 s of silence in front, and an Ogg with 0.7 s cut from its start: the
    /// offsets found are those, to one fingerprint item (124 ms); another tune does not match.
    @Test func copiesOfOneSongLineUp() throws {
        let song = Signals.music(seconds: 45, seed: 7)
        try Signals.write(song, to: dir.file("song.flac"), container: .flac)
        try Signals.write([Float](repeating: 0, count: Int(1.3 * 44_100) * 2) + song, to: dir.file("padded.mp3"), container: .mp3)
        try Signals.write(Array(song[(Int(0.7 * 44_100) * 2)...]), to: dir.file("trimmed.ogg"), container: .ogg)
        try Signals.write(Signals.music(seconds: 45, seed: 8), to: dir.file("other.flac"), container: .flac)
        let reference = try identity("song.flac")

        let padded = try #require(Alignment.align(reference: reference, this: try identity("padded.mp3")))
        #expect(abs(padded.offset - 1.3) <= 0.125 && padded.similarity >= 0.9 && padded.isConfident, "\(padded)")
        let trimmed = try #require(Alignment.align(reference: reference, this: try identity("trimmed.ogg")))
        #expect(abs(trimmed.offset + 0.7) <= 0.125 && trimmed.similarity >= 0.9 && trimmed.isConfident, "\(trimmed)")
        let other = try #require(Alignment.align(reference: reference, this: try identity("other.flac")))
        #expect(other.similarity < 0.75 && !other.isConfident, "\(other)")
        print("alignment: padded \(padded), trimmed \(trimmed), other tune \(other.similarity)")

        // Made finer by fingerprinting this copy again from eight starts within an item: within 20 ms.
        let raw = try Fingerprinter.decode(try #require(reference.chromaprint).fingerprint).raw
        let finePadded = try Alignment.refine(padded, reference: raw, this: try Track.open(dir.file("padded.mp3")).track)
        let fineTrimmed = try Alignment.refine(trimmed, reference: raw, this: try Track.open(dir.file("trimmed.ogg")).track)
        #expect(abs(finePadded.offset - 1.3) <= 0.02 && abs(fineTrimmed.offset + 0.7) <= 0.02, "refined: \(finePadded.offset), \(fineTrimmed.offset)")
        print("refined: padded \(finePadded.offset) s, trimmed \(fineTrimmed.offset) s")
    }
}
