// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeSongs
import PracticeTUI
import PracticeLibrary

/// One libFuzzer target per parser (`make fuzz`, README "Reliability"): each takes any bytes,
/// must not crash, and checks what must hold for whatever it reads (a document written back
/// reads back the same, terminal-safe text steers nothing). A broken promise is a crash too, so
/// the fuzzer finds it. The same functions replay the seed corpora and every crash found, as
/// tests (`FuzzCorpusTests`).
public enum FuzzTargets {
    /// Reads one input; true when it was read as what the parser reads (the seeds must be).
    public typealias Target = @Sendable ([UInt8]) -> Bool

    public static let all: [String: Target] = [
        "json": json, "sidecar": sidecar, "beats": beats,
        "lrc": lrc, "cue": interchange(.cue), "audacity": interchange(.audacity), "ffmetadata": interchange(.ffmetadata),
        "webvtt": interchange(.webvtt), "wav": interchange(.wav),
        "song": song, "keys-conf": keysConf, "terminal-keys": terminalKeys, "control": control, "config": config,
        "tags": tags, "times": times, "terminal-safe": terminalSafe, "container": container,
    ]

    /// Stops the run with what broke (the fuzzer saves the input).
    static func broken(_ what: String, _ input: [UInt8]) -> Never {
        fatalError("\(what) (\(input.count) bytes)")
    }

    static func text(_ input: [UInt8]) -> String { String(decoding: input, as: UTF8.self) }

    // Our JSON reader and writer: what is read is written back compact and pretty, and reads back equal.
    static let json: Target = { input in
        guard let value = try? JSONValue.parse(Data(input)) else { return false }
        for written in [value.compact(), value.pretty()] {
            guard let again = try? JSONValue.parse(written) else { broken("written JSON does not read back", input) }
            if again != value { broken("written JSON reads back different", input) }
        }
        return true
    }

    // A sidecar: written and read again it is the same document, written the same way; merging
    // it with itself changes nothing.
    static let sidecar: Target = { input in
        let quick = try? Sidecar.decode(Data(input))
        checkQuickRead(quick, input)
        guard let s = quick else { return false }
        checkSidecar(s, input)
        return true
    }

    /// Markers read from the bytes straight into `Marker`s (`Sidecar.decode(Data)`) against the whole-way
    /// read through a `JSONValue`: both read it or neither, and what they read is the same (when
    /// every marker and loop has its id: one without is given a new one each time).
    static func checkQuickRead(_ quick: Sidecar?, _ input: [UInt8]) {
        let tree = try? JSONValue.parse(Data(input))
        let whole = tree.flatMap { try? Sidecar.decode($0) }
        if (quick == nil) != (whole == nil) { broken("the sidecar read in place and read whole disagree on whether it reads", input) }
        guard let quick, let whole else { return }
        let entries = ["markers", "loops"].flatMap { tree?.object?[$0]?.array ?? [] }
        guard entries.allSatisfy({ $0.object?["id"]?.string != nil }) else { return }
        if quick != whole { broken("the sidecar read in place differs from the one read whole", input) }
    }

    static func checkSidecar(_ s: Sidecar, _ input: [UInt8]) {
        let written = s.encoded()
        guard let again = try? Sidecar.decode(written) else { broken("a written sidecar does not read back", input) }
        if again.encoded() != written { broken("a sidecar written twice differs", input) }
        var merged = again
        let report = merged.merge(again)
        if merged.encoded() != written { broken("merging a sidecar with itself changed it: \(report)", input) }
        _ = s.liveMarkers.map { $0.name.terminalSafe }
    }

    // A beat grid inside a sidecar, and the counts worked out from it.
    static let beats: Target = { input in
        var data = Data(#"{"format":"practice-markers","version":1,"beats":"#.utf8)
        data.append(contentsOf: input)
        data.append(contentsOf: Array("}".utf8))
        guard let s = try? Sidecar.decode(data) else { return false }
        checkSidecar(s, input)
        guard let grid = s.beats else { return false }
        for t in [-1, 0, grid.one, grid.times.first ?? 0, (grid.times.last ?? 0) + 1, .nan, .infinity] {
            if let k = grid.nearest(t) {
                guard grid.times.indices.contains(k) else { broken("nearest beat out of range", input) }
                let c = grid.count(ofBeat: k)
                if c.beat < 1 || c.beat > grid.meter { broken("beat \(c.beat) of \(grid.meter)", input) }
            }
            _ = grid.beat(at: t)
        }
        for n in [-1, 0, 1, 2, 1_000_000, Int.max] { _ = grid.start(ofGroup: n) }
        _ = BeatGrid.tempo(of: grid.times)
        return true
    }

    static let lrc: Target = { input in
        let (lyrics, _) = LRC.parse(text(input))
        _ = lyrics.lines.map { $0.text.terminalSafe }
        return interchange(.lrc)(input) && !lyrics.lines.isEmpty
    }

    // Other programs' marker files: whatever is read is written back (text formats) and reads back
    // as the same entries at the same times, to the format's precision (LRC: 1/100 s, CUE: 1/75 s,
    // the others 1 ms), less those the writer counts as left out (CUE: one per frame, 99 tracks;
    // LRC: markers without a name): then each entry read back is at the time of its own written one.
    // Names read back as written, unless they hold what the format cannot (tabs and line breaks;
    // CUE: quotes, more than 80 characters; LRC: `<`), which the writer changes and says so.
    static func interchange(_ format: InterchangeFormat) -> Target {
        { input in
            guard let (entries, _) = try? Interchange.read(Data(input), format: format) else { return false }
            for e in entries where !e.start.isFinite || e.start < 0 || (e.end.map { !$0.isFinite || $0 < e.start } ?? false) {
                broken("\(format) read a time that is not one: \(e)", input)
            }
            guard format != .wav else { return !entries.isEmpty }
            let duration = (entries.map { $0.end ?? $0.start }.max() ?? 0) + 1
            let (data, notes, leftOut) = Interchange.write(entries, format: format, audioFileName: "song.flac", duration: duration, title: "Title")
            guard let back = try? Interchange.read(data, format: format) else { broken("written \(format) does not read back", input) }
            let precision = format == .lrc ? 0.01 : format == .cue ? 1.0 / 75 : 0.001
            func near(_ w: Double, _ r: Double) -> Bool { abs(w - r) <= max(precision, w * 1e-12) }
            let written = entries.map(\.start).sorted(), read = back.entries.map(\.start).sorted()
            if read.count != written.count - leftOut {
                broken("written \(format) reads back \(read.count) of \(written.count) entries (\(leftOut) left out: \(notes))", input)
            }
            if leftOut == 0 {
                for (w, r) in zip(written, read) where !near(w, r) { broken("written \(format) moves an entry from \(w) s to \(r) s", input) }
                let plain = entries.allSatisfy { e in
                    !e.name.contains { $0 == "\t" || $0.isNewline }
                        && (format != .cue || !e.name.unicodeScalars.contains("\"") && e.name.count <= 80)
                        && (format != .lrc || !e.name.unicodeScalars.contains("<"))
                }
                let names = entries.map(\.name).sorted(), namesBack = back.entries.map(\.name).sorted()
                if plain, names != namesBack {
                    broken("written \(format) reads back the names \(namesBack.filter { !names.contains($0) }) for \(names.filter { !namesBack.contains($0) })", input)
                }
            } else {
                var unmatched = written
                for r in read {
                    guard let k = unmatched.firstIndex(where: { near($0, r) }) else { broken("written \(format) reads back an entry at \(r) s, written at none", input) }
                    unmatched.remove(at: k)
                }
            }
            return !entries.isEmpty
        }
    }

    static let song: Target = { input in
        (try? SongDocument.parse(Data(input), name: "song.json")) != nil
    }

    static let keysConf: Target = { input in
        var b = KeyBindings.defaults
        return (try? b.apply(text(input), file: "keys.conf")) != nil && b != KeyBindings.defaults
    }

    // The terminal's input bytes as keys, fed in two pieces (a sequence split between reads).
    static let terminalKeys: Target = { input in
        var d = KeyDecoder()
        let half = input.count / 2
        let keys = d.feed(Array(input[..<half])) + d.feed(Array(input[half...])) + d.flush()
        return !keys.isEmpty
    }

    // Lines of the control protocol through its one codec, as the player reads commands and a
    // client reads state messages: whatever reads is written back as a line that reads as the same.
    static let control: Target = { input in
        var read = false
        for line in text(input).split(separator: "\n", omittingEmptySubsequences: false) {
            if let command = try? PlayerCommand.parse(String(line)) {
                read = true
                guard let again = try? PlayerCommand.parse(command.line) else { broken("a command's line does not read: \(command.line)", input) }
                guard again.line == command.line else { broken("a command's line reads as another: \(command.line) → \(again.line)", input) }
            }
            if let message = StateMessage(line: String(line)) {
                read = true
                guard let again = StateMessage(line: message.line) else { broken("a state message's line does not read: \(message.line)", input) }
                guard again.line == message.line else { broken("a state message's line reads as another: \(message.line) → \(again.line)", input) }
            }
        }
        return read
    }

    // config.toml: toml++ turns it into JSON, which must then read (it is our JSON reader's input).
    static let config: Target = { input in
        let t = text(input)
        _ = try? TOML.valueRange(of: "library.folders", in: t)
        guard let json = try? TOML.json(from: t) else { return false }
        guard let value = try? JSONValue.parse(json) else { broken("toml++'s JSON does not read", input) }
        return (try? Config(json: value, file: "config.toml")) != nil
    }

    /// The input after its first byte as a file in memory (/dev/shm) whose extension the first
    /// byte picks among `extensions`; nil when it cannot be written. The caller unlinks it.
    static func file(_ input: [UInt8], as extensions: [String]) -> String? {
        guard let kind = input.first else { return nil }
        let path = "/dev/shm/practice-fuzz-\(getpid()).\(extensions[Int(kind) % extensions.count])"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { return nil }
        input.dropFirst().withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return path
    }

    // Tags and covers through TagLib, from a file whose kind (by extension) the first byte picks.
    static let tags: Target = { input in
        guard let path = file(input, as: ["mp3", "flac", "ogg", "opus", "m4a", "wav", "aiff", "oga"]) else { return false }
        defer { unlink(path) }
        guard let t = try? TrackTags.read(path) else { return false }
        for s in [t.title, t.artist, t.album].compactMap({ $0 }) where s.terminalSafe.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{1B}" }) {
            broken("a tag is not terminal-safe", input)
        }
        return t.title != nil
    }

    // A container FFmpeg reads (libsndfile refusing it), whose kind (by extension) the first byte
    // picks: its MP4 header read as `info` reads it; opened, its length and streams sane, read, sought to its middle and its start (our
    // wrapper's handling of what FFmpeg returns: frames, time stamps, packets' lengths).
    static let container: Target = { input in
        guard let path = file(input, as: ["m4a", "mp4", "webm", "mkv", "wma", "ac3", "mov"]) else { return false }
        defer { unlink(path) }
        // `info`'s own reading of an MP4's header: sane where it answers.
        if let header = MP4Header.read(path) {
            let i = header.info
            guard i.sampleRate > 0, (1...8).contains(i.channels), i.frames >= 0, header.streams.indices.contains(0) else { broken("the MP4 header said \(i)", input) }
        }
        guard let file = try? SoundFile(path: path) else { return false }
        let info = file.info
        guard info.channels > 0, info.sampleRate > 0, info.frames >= 0, !file.audioStreams.isEmpty else { broken("opened with \(info)", input) }
        // Up to 8 channels and 4096 frames a read; three reads after each place.
        let channels = min(info.channels, 64)
        var buffer = [Float](repeating: 0, count: 4_096 * channels)
        for place in [-1, info.frames / 2, 0] {
            if place >= 0 { try? file.seek(toFrame: place) }
            for _ in 0..<3 {
                let n = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: 4_096 * channels / info.channels) }
                guard n >= 0, n * info.channels <= buffer.count else { broken("read \(n) frames", input) }
                if buffer[0..<(n * info.channels)].contains(where: { !$0.isFinite }) { broken("a sample is not a number", input) }
                if n == 0 { break }
            }
        }
        for s in file.tags.values where s.terminalSafe.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{1B}" }) {
            broken("a tag is not terminal-safe", input)
        }
        return true
    }

    // Times as typed on the command line and in the practice screen's prompts.
    static let times: Target = { input in
        guard let t = Timecode.parse(text(input)) else { return false }
        if !t.isFinite || t < 0 || t.sign == .minus { broken("Timecode read \(t)", input) }
        _ = Timecode.format(t, decimals: 3)
        return true
    }

    // Nothing that steers a terminal survives `terminalSafe`.
    static let terminalSafe: Target = { input in
        let safe = text(input).terminalSafe
        for u in safe.unicodeScalars {
            switch u.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: broken("terminalSafe kept U+\(String(u.value, radix: 16))", input)
            default: continue
            }
        }
        return safe != text(input)
    }
}
