// SPDX-License-Identifier: GPL-3.0-or-later
// beat-corpus DIR: writes the generated beat corpus (BeatCorpus.all) and its held-out tracks
// (BeatCorpus.heldOut) into DIR as 44.1 kHz WAV files, and DIR/corpus.json: for each track its
// file, set ("corpus" or "held-out"), style, tempo, known beats and ones, and meter. For
// bench/beats, which runs practice, aubio and librosa on them.
import Foundation
import PracticeTestSupport

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: beat-corpus DIR\n".utf8))
    exit(64)
}
let dir = arguments[1]
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
var entries: [[String: Any]] = []
for (set, tracks) in [("corpus", BeatCorpus.all), ("held-out", BeatCorpus.heldOut)] {
    for (style, bpm) in tracks {
        let t = BeatCorpus.track(style, bpm: bpm)
        let file = "\(set)-\(style)-\(Int(bpm)).wav".replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: ",", with: "")
        try Signals.write(t.samples, to: "\(dir)/\(file)", channels: 1)
        entries.append(["file": file, "set": set, "style": style, "bpm": bpm, "beats": t.beats, "ones": t.ones, "meter": t.meter])
    }
}
try JSONSerialization.data(withJSONObject: entries, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: "\(dir)/corpus.json"))
print("beat-corpus: \(entries.count) tracks in \(dir)")
