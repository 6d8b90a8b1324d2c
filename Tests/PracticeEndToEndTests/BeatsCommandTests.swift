// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// `practice beats` on generated drums with known beats: the grid found and kept in the sidecar,
/// shown again without analysing, and corrected by --one, --meter and --bpm.
@Suite struct BeatsCommandTests {
    let dir = ScratchDirectory("beats-cli")

    func practice(_ args: [String]) throws -> ProcessResult { try run(practiceBinary, args, environment: ["XDG_CACHE_HOME": dir.file("cache")], currentDirectory: dir.path) }

    /// A rendered file's length, from libsndfile's header (through `practice info --json`).
    struct Track {
        let seconds: Double
        init(_ path: String) throws {
            let r = try run(practiceBinary, ["info", path, "--json"])
            seconds = ((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["duration"] as? Double) ?? -1
        }
    }

    func grid(_ r: ProcessResult) throws -> (tempo: Double, one: Double, meter: Int, beats: [Double]) {
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        return (o["tempo"] as! Double, o["one"] as! Double, o["meter"] as! Int, o["beats"] as! [Double])
    }

    @Test func foundKeptShownAndCorrected() throws {
        let known = (0..<40).map { 0.5 + Double($0) * 0.5 }   // 120 bpm, accents every 4 from 0.5 s
        try Signals.write(Signals.drums(beats: known, seconds: 20.2), to: dir.file("song.wav"), channels: 1, tags: ["title": "Drill"])
        var r = try practice(["beats", "song.wav", "--json"])
        #expect(r.status == 0 && r.stderr == "practice: kept in song.wav.practice.json\n", "\(r)")
        var g = try grid(r)
        #expect(abs(g.tempo - 120) < 0.6 && g.meter == 8, "\(g)")
        #expect(known.allSatisfy { t in g.beats.contains { abs($0 - t) <= 0.02 } } && g.beats.count == known.count, "\(g.beats)")
        let k = Int(((g.one - 0.5) / 0.5).rounded())
        #expect(abs(g.one - (0.5 + Double(k) * 0.5)) <= 0.02 && k % 4 == 0, "the one on an accented beat: \(g.one)")
        let sidecar = try String(contentsOfFile: dir.file("song.wav.practice.json"), encoding: .utf8)
        #expect(sidecar.contains("\"beats\": {") && sidecar.contains("\"source\": \"aubio\""), "\(sidecar)")

        // Shown again from the sidecar: nothing analysed, nothing written.
        r = try practice(["beats", "song.wav"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Drill: 12") == true && lines.first?.contains(" bpm (or 60) in eights, the one at 0:0") == true, "\(r.stdout)")
        // The other reading: every other beat (the one kept), then back to the beats found.
        g = try grid(try practice(["beats", "song.wav", "--other", "--json"]))
        #expect(g.tempo == 60 && g.beats.count == known.count / 2 && g.beats.contains(g.one), "\(g)")
        r = try practice(["beats", "song.wav", "--other"])
        #expect(r.status == 0 && r.stdout.contains(" bpm (or 60) in eights") && r.stdout.contains("\n40 beats (found) from "), "\(r)")
        #expect(lines.count == 3 && lines[2].hasPrefix("eight 1 at ") && lines[2].contains(", eight 2 at "), "\(r.stdout)")

        // Places on the grid: eight 2 is the eight beats (4 s) from 4 s after the one; bar 3 (bars of
        // 4 in eights) 2 s long from 4 s after it; a marker snapped to the nearest beat.
        for (args, seconds) in [(["--from", "eight 2", "--to", "eight 2"], 4.0), (["--loop", "eight 2"], 4.0), (["--loop", "bar 3", "bar 3"], 2.0)] {
            r = try practice(["render", "song.wav", "-o", "part.wav", "--force", "-q"] + args)
            #expect(r.status == 0, "\(args): \(r)")
            let length = try Track(dir.file("part.wav")).seconds
            #expect(abs(length - seconds) < 0.03, "\(args): \(length) s")
        }
        r = try practice(["render", "song.wav", "-o", "part.wav", "--force", "-q", "--from", "eight 9"])
        #expect(r.status == 64 && r.stderr.hasPrefix("practice: --from: no eight 9 (the beats make "), "\(r)")
        // Counts no grid has (found by the beat-grid fuzz target: an overflow once crashed here).
        for count in ["eight 9223372036854775807", "bar 99999999999999999999", "eight 1152921504606846976"] {
            r = try practice(["render", "song.wav", "-o", "part.wav", "--force", "-q", "--loop", count])
            #expect(r.status == 64 && r.stderr.hasPrefix("practice: --loop: no \(count.split(separator: " ")[0]) ") && r.stderr.hasSuffix("from the one)\n"), "\(r)")
        }
        r = try practice(["markers", "add", "song.wav", "Turn", "1.26", "--snap"])
        #expect(r.status == 0 && r.stdout.hasPrefix("added marker 'Turn' at 0:01."), "\(r)")
        let turn = (try JSONSerialization.jsonObject(with: Data(try practice(["markers", "song.wav", "--json"]).stdout.utf8)) as? [String: Any])?["markers"] as? [[String: Any]]
        #expect(turn?.first.flatMap { $0["time"] as? Double }.map { abs($0 - 1.5) <= 0.02 } == true, "snapped to the beat at 1.5 s: \(String(describing: turn))")

        // Corrections: the one to the beat nearest 1.26 s (1.5), counted in bars of 4.
        g = try grid(try practice(["beats", "song.wav", "--one", "1.26", "--meter", "4", "--json"]))
        #expect(abs(g.one - 1.5) <= 0.02 && g.meter == 4 && g.beats.count == known.count)
        // A steady grid at 100 bpm through that one.
        g = try grid(try practice(["beats", "song.wav", "--bpm", "100", "--json"]))
        #expect(g.tempo == 100 && g.meter == 4 && g.beats.contains(g.one) && zip(g.beats.dropFirst(), g.beats).allSatisfy { abs($0 - $1 - 0.6) < 0.0015 }, "\(g)")
        #expect(g.beats.first! < 0.6 && g.beats.last! > 19.4)

        // No grid: one line saying how to make one.
        try Signals.write(Signals.sine(440, seconds: 2), to: dir.file("plain.wav"))
        r = try practice(["beats", "plain.wav"])
        #expect(r.status == 65 && r.stderr == "practice: plain.wav: no steady beat found\n" && !FileManager.default.fileExists(atPath: dir.file("plain.wav.practice.json")), "\(r)")
        r = try practice(["markers", "add", "plain.wav", "A", "1", "--snap"])
        #expect(r.status == 64 && r.stderr == "practice: --snap: no beats known for plain.wav; find them with 'practice beats plain.wav'\n", "\(r)")

        for (args, message) in [
            (["--meter", "5"], "practice: --meter 5: a count is 8 (eights), 4 or 3 (bars)\n"),
            (["--bpm", "500"], "practice: --bpm 500: a tempo is 20 to 400 beats a minute\n"),
            (["--one", "soon"], "practice: --one 'soon': not a time (12.34, 0:12.34)\n"),
            (["--one", "99"], "practice: --one 1:39.000 is past the end of song.wav (0:20.200)\n"),
        ] {
            r = try practice(["beats", "song.wav"] + args)
            #expect(r.status == 64 && r.stderr == message && r.stdout.isEmpty, "\(args): \(r)")
        }
    }

    /// A spoken count-in: "five, six, seven, eight", each word's first sound on its beat (120 bpm:
    /// every 0.5 s from the start of the render), then the loop.
    @Test func aSpokenCountInLandsOnTheBeats() throws {
        try Signals.write(Signals.sine(220, seconds: 6, amplitude: 0.3), to: dir.file("tone.wav"))
        let r = try practice(["render", "tone.wav", "-o", "counted.wav", "-q", "--loop", "2", "4", "--times", "1",
                              "--count-in", "4", "--bpm", "120", "--count-in-sound", "voice"])
        #expect(r.status == 0, "\(r)")
        let (samples, info) = try Signals.read(dir.file("counted.wav"))
        let left = stride(from: 0, to: samples.count, by: info.channels).map { Double(samples[$0]) }
        let rate = Double(info.sampleRate)
        #expect(abs(Double(left.count) / rate - 4.0) < 0.01, "2 s of count-in and the 2 s loop")
        for k in 0..<4 {
            let from = Int((Double(k) * 0.5 - 0.01) * rate)
            let onset = Analysis.onset(Array(left[max(from, 0)..<Int((Double(k) * 0.5 + 0.2) * rate)]), threshold: 0.01).map { Double(max(from, 0) + $0) / rate }
            #expect(onset.map { abs($0 - Double(k) * 0.5) < 0.02 } == true, "word \(k + 1) at \(String(describing: onset)) s")
            // A word, not a click: still sounding 60 ms on (a click is gone in 30 ms).
            let later = left[Int((Double(k) * 0.5 + 0.06) * rate)..<Int((Double(k) * 0.5 + 0.09) * rate)].map(abs).max() ?? 0
            #expect(later > 0.01, "word \(k + 1) goes on: \(later)")
        }
        let bad = try practice(["render", "tone.wav", "-o", "x.wav", "--loop", "2", "4", "--count-in", "4", "--bpm", "120", "--count-in-sound", "drum"])
        #expect(bad.status == 64 && bad.stderr == "practice: --count-in-sound 'drum': 'click' or 'voice'\n", "\(bad)")
    }

    /// `beats --help` wraps its paragraphs where the terminal ends, not mid-sentence: every line of
    /// the description but a paragraph's last runs to within 12 columns of 80.
    @Test func theHelpWrapsWhole() throws {
        let r = try practice(["beats", "--help"])
        let text = r.stdout.components(separatedBy: "\n\nExamples:")[0].components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n")
        let paragraphs = text.components(separatedBy: "\n\n").map { $0.split(separator: "\n") }
        #expect(!paragraphs.isEmpty && paragraphs.allSatisfy { lines in lines.dropLast().allSatisfy { $0.count >= 68 && $0.count <= 80 } }, "\(r.stdout)")
    }
}
