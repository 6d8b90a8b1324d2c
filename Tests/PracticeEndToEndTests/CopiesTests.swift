// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// A crew's sidecar, made on a FLAC, used with everybody else's copy of the song: encoded by
/// Debian's lame, oggenc and opusenc, resampled, padded, trimmed and cut by sox. Every marker
/// must land within 20 ms of its music, as found in the copy's own decoded signal.
@Suite struct CopiesTests {
    /// The song (60 s of generated music) and its copies, made once for the suite.
    final class Copies: @unchecked Sendable {  // immutable after init
        static let shared = try! Copies()
        let dir = ScratchDirectory("copies")
        let song = Signals.music(seconds: 60, seed: 21)
        /// The crew's markers on the FLAC. 'Bridge' is in the 16 s that one copy cuts from the
        /// middle (20–36 s), 'Outro' past the end of the copy cut at 46 s.
        static let markers: [(name: String, time: Double)] = [("Intro", 3), ("Verse", 12.5), ("Bridge", 27), ("Chorus", 41.25), ("Outro", 52)]

        init() throws {
            let sox = "/usr/bin/sox"
            try Signals.write(song, to: dir.file("song.wav"))
            try Signals.write(song, to: dir.file("song.flac"), container: .flac)
            let tools: [(String, [String])] = [
                ("/usr/bin/lame", ["--quiet", "-b", "128", "song.wav", "mp3-128k.mp3"]),
                ("/usr/bin/oggenc", ["--quiet", "-q", "2", "-o", "ogg-q2.ogg", "song.wav"]),
                ("/usr/bin/opusenc", ["--quiet", "--bitrate", "64", "song.wav", "opus-64k.opus"]),
                (sox, ["song.wav", "-r", "48000", "48k.flac"]),
                (sox, ["song.wav", "padded.flac", "pad", "1.3"]),
                (sox, ["song.wav", "trimmed.flac", "trim", "0.7"]),
                (sox, ["song.wav", "fade-cut.flac", "trim", "0", "46", "fade", "t", "0", "46", "4"]),
                (sox, ["song.wav", "head.wav", "trim", "0", "20"]),
                (sox, ["song.wav", "tail.wav", "trim", "36"]),
                (sox, ["head.wav", "tail.wav", "middle-cut.flac"]),
                // The padded copy as a shop's MP3, for the merge below.
                ("/usr/bin/lame", ["--quiet", "-b", "128", "--resample", "44.1", "padded.wav", "padded.mp3"]),
            ]
            try Signals.write([Float](repeating: 0, count: Int(1.3 * 44_100) * 2) + song, to: dir.file("padded.wav"))
            for (tool, args) in tools {
                let r = try run(tool, args, currentDirectory: dir.path)
                guard r.status == 0 else { throw PracticeTestError("\(tool) \(args): \(r.stderr)") }
            }
            try Signals.write(Signals.music(seconds: 60, seed: 22), to: dir.file("other-song.flac"), container: .flac)
            // The same tune played 8 % faster: a re-recording at another tempo.
            try Signals.write(Signals.music(seconds: 56, seed: 21, noteSeconds: 0.23), to: dir.file("faster.flac"), container: .flac)
            for m in Self.markers {
                let r = try practice(["markers", "add", "song.flac", m.name, String(m.time)], in: dir, environment: ["XDG_CACHE_HOME": dir.file("cache")])
                guard r.status == 0 else { throw PracticeTestError(r.stderr) }
            }
        }

        /// The copy's markers as `practice markers list --json` gives them with the crew's sidecar.
        func list(_ copy: String, _ extra: [String] = [], cache: String = "cache") throws -> (times: [String: Double], result: ProcessResult) {
            let r = try practice(["markers", "list", copy, "--markers", "song.flac.practice.json", "--json"] + extra, in: dir,
                                 environment: ["XDG_CACHE_HOME": dir.file(cache)])
            let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            var times: [String: Double] = [:]
            for m in doc?["markers"] as? [[String: Any]] ?? [] { times[m["name"] as! String] = m["time"] as? Double }
            return (times, r)
        }

        /// Where the music at `time` on the FLAC is in `copy`, searched within ±0.12 s of `near`:
        /// the lag at which half a second of the FLAC correlates best with the copy.
        func found(_ time: Double, in copy: String, near: Double) throws -> Double {
            let (samples, info) = try Signals.read(dir.file(copy))
            let rate = Double(info.sampleRate)
            let mono = Signals.channel(samples, 0, of: info.channels)   // (optimized: a debug map here took 20 % of the suite)
            // The FLAC's half second, resampled to the copy's rate (linear: the comparison needs
            // only the envelope and the low harmonics).
            let n = Int(0.5 * rate)
            let needle = (0..<n).map { i -> Double in
                let x = (time + Double(i) / rate) * 44_100, k = Int(x), f = x - Double(k)
                return Double(song[2 * k]) * (1 - f) + Double(song[2 * (k + 1)]) * f
            }
            let centre = Int(near * rate), reach = Int(0.12 * rate)
            let lag = Analysis.bestLag(of: needle, in: mono, range: (centre - reach)...(centre + reach))
            return Double(lag) / rate
        }
    }

    /// Each copy, with what it should come out as: its offset (the markers' shift), and its cut.
    @Test(arguments: [
        ("mp3-128k.mp3", 0.0), ("ogg-q2.ogg", 0.0), ("opus-64k.opus", 0.0), ("48k.flac", 0.0),
        ("padded.flac", 1.3), ("trimmed.flac", -0.7), ("fade-cut.flac", 0.0), ("middle-cut.flac", 0.0),
    ])
    func everyMarkerLandsOnItsMusic(copy: String, offset: Double) throws {
        let c = Copies.shared
        let (times, r) = try c.list(copy)
        #expect(r.status == 0, "\(r.stderr)")
        let missing: Set<String> = copy == "middle-cut.flac" ? ["Bridge"] : copy == "fade-cut.flac" ? ["Outro"] : []
        for m in Copies.markers {
            let placed = try #require(times[m.name], "\(copy): \(m.name) missing from \(r.stdout)")
            if missing.contains(m.name) { continue }
            let expected = m.time + offset - (copy == "middle-cut.flac" && m.time > 36 ? 16 : 0)
            let heard = try c.found(m.time, in: copy, near: expected)
            #expect(abs(placed - heard) <= 0.02, "\(copy): '\(m.name)' placed at \(placed), its music is at \(heard)")
            print("\(copy): \(m.name) placed \(placed) s, found in the signal at \(heard) s")
        }
        // One line says what was done.
        let line = try #require(r.stderr.split(separator: "\n").first.map(String.init), "\(copy): nothing said")
        let pattern = #/practice: note: markers (moved [+−]\d+\.\d{3} s.*|line up with this recording) \(match (\d+) %\)(; not in this copy: .*)?/#
        let said = try #require(try pattern.wholeMatch(in: line), "\(copy): \(line)")
        #expect(Int(said.output.2)! >= 85, "\(line)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        if let name = missing.first { #expect(line.hasSuffix("; not in this copy: '\(name)'"), "\(line)") }
        if copy == "middle-cut.flac" {
            let cut = try #require(try #/markers moved \+0\.0\d\d s, then −1(5\.9[89]|6\.0[0-2])\d s from 0:3[5-6]\.\d{3} \((\d+\.\d{3}) s cut\)/#.firstMatch(in: line), "\(line)")
            #expect(abs(Double(cut.output.2)! - 16) <= 0.02, "\(line)")
        }
    }

    /// Another song, and the same tune re-recorded 8 % faster: no alignment, a warning with the
    /// score, and the times as made.
    @Test(arguments: ["other-song.flac", "faster.flac"])
    func anotherRecordingIsRefused(copy: String) throws {
        let (times, r) = try Copies.shared.list(copy)
        #expect(r.status == 0)
        for m in Copies.markers { #expect(times[m.name] == m.time) }
        #expect(r.stderr.hasPrefix("practice: warning: song.flac.practice.json was made for song.flac: "), "\(r.stderr)")
        #expect(r.stderr.contains("; it does not line up with this copy (match ") && r.stderr.hasSuffix(" %), so times are as made there and may be off\n"), "\(r.stderr)")
    }

    /// The alignment is kept for the copy: the next open reads it (a kept map that says +5 s is
    /// what the markers follow), and `--no-align` leaves the times alone.
    @Test func theAlignmentIsKeptAndCanBeTurnedOff() throws {
        let c = Copies.shared
        let first = try c.list("padded.flac", cache: "cache-kept")
        #expect(first.result.status == 0 && abs(first.times["Intro"]! - 4.3) <= 0.02)
        let folder = c.dir.file("cache-kept/practice/alignment")
        let kept = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        var doc = try String(contentsOfFile: folder + "/" + kept, encoding: .utf8)
        let offset = try #require(try #/"offset": ([0-9.]+)/#.firstMatch(in: doc)).output.1
        doc = doc.replacing("\"offset\": \(offset)", with: "\"offset\": 5")
        try doc.write(toFile: folder + "/" + kept, atomically: true, encoding: .utf8)
        let second = try c.list("padded.flac", cache: "cache-kept")
        // The note was said when the copy was first lined up; the kept map moves the markers silently.
        #expect(first.result.stderr.hasPrefix("practice: note: markers moved +1.") && first.result.stderr.contains(" s to match this recording (match "), "\(first.result.stderr)")
        #expect(second.times["Intro"] == 8 && second.result.stderr.isEmpty, "\(second.result.stderr)")

        let off = try c.list("padded.flac", ["--no-align"], cache: "cache-kept")
        #expect(off.times["Intro"] == 3)
        #expect(off.result.stderr.hasSuffix("; not lined up with this copy (--no-align): times may be off\n"), "\(off.result.stderr)")
    }

    /// `markers align` shows the alignment marker by marker and makes the sidecar this copy's
    /// own; `markers merge` lines a friend's up before merging; the git driver lines up two
    /// versions made on different copies by their fingerprints alone (to ±62 ms).
    @Test func alignShowsAndApplies() throws {
        let c = Copies.shared
        let dir = c.dir.file("align-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["middle-cut.flac", "padded.mp3", "trimmed.flac", "song.flac.practice.json"] {
            try FileManager.default.copyItem(atPath: c.dir.file(name), toPath: dir + "/" + name)
        }
        func practice(_ args: [String]) throws -> ProcessResult {
            try run(practiceBinary, args, environment: ["XDG_CACHE_HOME": c.dir.file("cache"), "PRACTICE_AUTHOR": ""], currentDirectory: dir)
        }
        var r = try practice(["markers", "align", "middle-cut.flac", "--from", "song.flac.practice.json", "--dry-run"])
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(r.status == 0 && lines.count == 7, "\(r.stdout)\(r.stderr)")
        #expect(lines[0].hasPrefix("middle-cut.flac against song.flac.practice.json (made for song.flac): moved +0.0") && lines[0].contains(" s cut), match 9"), "\(lines[0])")
        #expect(lines[1] == "NAME    THERE     HERE")
        #expect(lines[2].hasPrefix("Intro   0:03.000  0:03.0") && lines[4].hasPrefix("Bridge  0:27.000  0:19.") && lines[4].hasSuffix("  not in this copy"), "\(r.stdout)")
        #expect(lines[5].hasPrefix("Chorus  0:41.250  0:25.2"), "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/middle-cut.flac.practice.json"))

        // Applied: the MP3's own sidecar, on its own times; nothing to line up afterwards.
        r = try practice(["markers", "align", "padded.mp3", "--from", "song.flac.practice.json"])
        #expect(r.status == 0 && r.stdout.hasSuffix("\nmerged into padded.mp3.practice.json\n"), "\(r.stdout)\(r.stderr)")
        let own = try String(contentsOfFile: dir + "/padded.mp3.practice.json", encoding: .utf8)
        #expect(own.contains("\"fileName\": \"padded.mp3\""))
        r = try practice(["markers", "padded.mp3"])
        let rows = r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(r.stderr == "" && rows.map { String($0[1]) } == ["Intro", "Verse", "Bridge", "Chorus", "Outro"], "\(r.stdout)\(r.stderr)")
        for (row, m) in zip(rows, Copies.markers) {
            let parts = row[0].split(separator: ":").compactMap { Double($0) }   // m:ss.fff
            #expect(parts.count == 2 && abs(parts[0] * 60 + parts[1] - m.time - 1.3) <= 0.02, "\(row)")
        }
        // The cut copy's own sidecar through 'markers merge': 'Bridge' is left out, with a note.
        r = try practice(["markers", "merge", "middle-cut.flac", "song.flac.practice.json"])
        #expect(r.status == 0 && r.stderr.contains("practice: note: left out 'Bridge': its music is not in this copy\n"), "\(r.stderr)")
        #expect(try practice(["markers", "middle-cut.flac"]).stdout.split(separator: "\n").map { $0.split(separator: " ").last! } == ["NAME", "Intro", "Verse", "Chorus", "Outro"])
        // 'markers import' of a practice sidecar merges it the same way, lined up.
        r = try practice(["markers", "import", "trimmed.flac", "song.flac.practice.json"])
        let imported = try #/merged song\.flac\.practice\.json into trimmed\.flac\.practice\.json:\n  \+ marker 'Intro' at 0:02\.(28|29|30|31|32)\d\n/#.prefixMatch(in: r.stdout)
        #expect(r.status == 0 && imported != nil, "\(r.stdout)\(r.stderr)")
        r = try practice(["markers", "import", "trimmed.flac", "song.flac.practice.json", "--offset", "1"])
        #expect(r.status == 64)
        // A copy that does not line up is refused, and nothing is written.
        try Signals.write(Signals.music(seconds: 60, seed: 23), to: dir + "/other.flac", container: .flac)
        r = try practice(["markers", "align", "other.flac", "--from", "song.flac.practice.json"])
        #expect(r.status == 65 && r.stdout == "" && r.stderr.hasPrefix("practice: song.flac.practice.json (made for song.flac) does not line up with other.flac (match ") && r.stderr.hasSuffix("): nothing changed\n"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/other.flac.practice.json"))

        // The git driver: ours on the MP3's times, theirs (a new marker) on the FLAC's.
        try FileManager.default.copyItem(atPath: dir + "/song.flac.practice.json", toPath: dir + "/theirs.json")
        r = try practice(["markers", "add", "trimmed.flac", "Tag", "30.3", "--markers", "theirs.json"])   // 31.0 on the FLAC
        #expect(r.status == 0)
        // Without the MP3 in the checkout (%P names no audio here): from the fingerprints alone,
        // to one item; with it (%P is its sidecar), to 20 ms.
        for (p, within) in [("song.practice.json", 0.065), ("padded.mp3.practice.json", 0.02)] {
            try? FileManager.default.removeItem(atPath: dir + "/ours.json")
            try FileManager.default.copyItem(atPath: dir + "/padded.mp3.practice.json", toPath: dir + "/ours.json")
            r = try practice(["markers", "merge-driver", "song.flac.practice.json", "ours.json", "theirs.json", p])
            #expect(r.status == 0 && r.stderr.contains("their version is on the times of song.flac, ours on those of padded.mp3: their markers moved +1.3"), "\(r.stderr)")
            r = try practice(["markers", "padded.mp3", "--markers", "ours.json", "--json"])
            let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            let tag = try #require((doc?["markers"] as? [[String: Any]])?.first { $0["name"] as? String == "Tag" }?["time"] as? Double)
            let heard = try c.found(31, in: "padded.mp3", near: 32.3)
            #expect(abs(tag - heard) <= within, "\(p): Tag at \(tag) on the MP3, its music at \(heard)")
            #expect(r.stderr == "")
        }
    }

    /// Two dancers edit one shared sidecar in git, one with the FLAC and one with a shop's MP3
    /// that has 1.3 s of silence in front. The driver merges cleanly; the file stays on the
    /// FLAC's timeline (what nobody edited keeps its exact time), and on both copies every
    /// marker is on the same music, found in the MP3's signal within 20 ms of the FLAC's.
    @Test func twoCopiesEditOneSidecarAndMergeThroughGit() throws {
        let c = Copies.shared
        let repo = c.dir.file("crew-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: c.dir.file("song.flac"), toPath: repo + "/song.flac")
        try FileManager.default.copyItem(atPath: c.dir.file("padded.mp3"), toPath: repo + "/song.mp3")
        try FileManager.default.copyItem(atPath: c.dir.file("song.flac.practice.json"), toPath: repo + "/song.practice.json")
        let env = ["HOME": repo, "XDG_CACHE_HOME": repo + "/.cache", "GIT_CONFIG_NOSYSTEM": "1", "PRACTICE_AUTHOR": "",
                   "GIT_AUTHOR_NAME": "Ana", "GIT_AUTHOR_EMAIL": "ana@example.org", "GIT_COMMITTER_NAME": "Ana", "GIT_COMMITTER_EMAIL": "ana@example.org"]
        func git(_ args: [String]) throws -> ProcessResult { try run("/usr/bin/git", args, environment: env, currentDirectory: repo) }
        func practice(_ args: [String]) throws -> ProcessResult {
            let r = try run(practiceBinary, args + ["--markers", "song.practice.json"], environment: env, currentDirectory: repo)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            return r
        }
        try "*.practice.json merge=practice\n.cache\n".write(toFile: repo + "/.gitattributes", atomically: true, encoding: .utf8)
        _ = try git(["init", "-q", "-b", "main"])
        _ = try git(["config", "merge.practice.driver", "\(practiceBinary) markers merge-driver %O %A %B %P"])
        _ = try git(["add", "song.practice.json", ".gitattributes"])
        _ = try git(["commit", "-q", "-m", "the crew's markers"])
        _ = try git(["checkout", "-q", "-b", "flac"])
        _ = try practice(["markers", "add", "song.flac", "Solo", "33"])
        _ = try git(["commit", "-q", "-am", "a solo"])
        _ = try git(["checkout", "-q", "main"])
        // On the MP3: a break at 18.3 s (17.0 s on the FLAC), and the verse half a second later.
        let added = try practice(["markers", "add", "song.mp3", "Break", "18.3"])
        #expect(added.stdout == "added marker 'Break' at 0:18.300 (song.practice.json)\n")
        let moved = try #require(try #/practice: note: markers moved \+(\d\.\d{3}) s to match this recording \(match 9\d %\)\n/#.wholeMatch(in: added.stderr), "\(added.stderr)")
        #expect(abs(Double(moved.output.1)! - 1.3) <= 0.02)
        _ = try practice(["markers", "move", "song.mp3", "Verse", "+0.5"])
        _ = try git(["commit", "-q", "-am", "a break"])
        let merged = try git(["merge", "-q", "--no-edit", "flac"])
        #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")

        // The shared file is still the FLAC's, and what nobody moved kept its time exactly.
        let shared = try String(contentsOfFile: repo + "/song.practice.json", encoding: .utf8)
        #expect(shared.contains("\"fileName\": \"song.flac\""))
        func times(_ copy: String) throws -> [String: Double] {
            let r = try practice(["markers", "list", copy, "--json"])
            let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            var out: [String: Double] = [:]
            for m in doc?["markers"] as? [[String: Any]] ?? [] { out[m["name"] as! String] = m["time"] as? Double }
            return out
        }
        let flac = try times("song.flac"), mp3 = try times("song.mp3")
        #expect(flac["Intro"] == 3 && flac["Chorus"] == 41.25 && flac["Solo"] == 33, "\(flac)")
        #expect(mp3["Break"] == 18.3, "\(mp3)")
        #expect(Set(flac.keys) == Set(mp3.keys) && flac.count == 7)
        for (name, t) in flac {
            let onMP3 = try #require(mp3[name])
            let heard = try c.found(t, in: "padded.mp3", near: t + 1.3)
            #expect(abs(onMP3 - heard) <= 0.02, "'\(name)': at \(t) s on the FLAC, \(onMP3) s on the MP3, whose music there is at \(heard) s")
        }
    }
}

struct PracticeTestError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
