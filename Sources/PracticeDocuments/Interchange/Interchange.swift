// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// Other programs' marker files that practice reads and writes (see formats.md, "Interchange formats").
public enum InterchangeFormat: String, CaseIterable, Sendable {
    /// Audacity's exported label track (`.txt`): `start⇥end⇥text` per line.
    case audacity
    /// A CUE sheet (`.cue`): one `TRACK` per marker, times in 1/75 s frames.
    case cue
    /// ffmpeg's metadata file (`;FFMETADATA1`) with `[CHAPTER]` sections.
    case ffmetadata
    /// WebVTT chapters (`.vtt`) for `<track kind="chapters">`.
    case webvtt
    /// LRC lyrics (`.lrc`): a marker per stamped line, named by its text.
    case lrc
    /// A RIFF WAVE file's `cue `, `LIST`/`adtl` and `smpl` chunks.
    case wav

    /// From a file name's extension: txt → audacity, cue → cue, ffmeta/ffmetadata/meta → ffmetadata, vtt → webvtt, lrc → lrc, wav/wave → wav. nil otherwise.
    public init?(pathExtension: String) {
        var ext = pathExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "txt": self = .audacity
        case "cue": self = .cue
        case "ffmeta", "ffmetadata", "meta": self = .ffmetadata
        case "vtt": self = .webvtt
        case "lrc": self = .lrc
        case "wav", "wave": self = .wav
        default: return nil
        }
    }

    /// Formats that can be written as a text file (all but wav).
    public static var exportable: [InterchangeFormat] { allCases.filter { $0 != .wav } }

    /// Formats without regions (CUE sheets, LRC): loops are left out on export.
    public var holdsPointsOnly: Bool { self == .cue || self == .lrc }
}

/// A named place in another program's file: a point (end == nil) or a region (start..end), seconds.
public struct InterchangeEntry: Sendable, Equatable {
    /// The label, track or chapter title.
    public var name: String
    /// Where it starts, in seconds from the start of the audio.
    public var start: Double
    /// Where a region ends, in seconds; nil for a point.
    public var end: Double?

    /// A point when `end` is nil, otherwise a region.
    public init(name: String, start: Double, end: Double? = nil) {
        self.name = name
        self.start = start
        self.end = end
    }
}

/// Why a file cannot be read: the line (1-based, nil when not line-based) and what is wrong, one short lower-case sentence.
public struct InterchangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line of a text file, or nil (binary files, whole-file problems).
    public var line: Int?
    /// What is wrong, in one short lower-case sentence.
    public var message: String

    /// An error at `line` (nil when not line-based).
    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }

    /// `line 3: not a time: "abc"`, or the bare message without a line.
    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

/// Readers and writers for the formats of `InterchangeFormat`, in pure Swift.
public enum Interchange {
    /// Reads points and regions, leniently as formats.md says. `notes` say what was skipped or adjusted (one short sentence each, e.g. "skipped 2 Audacity frequency lines").
    public static func read(_ data: Data, format: InterchangeFormat) throws(InterchangeError) -> (entries: [InterchangeEntry], notes: [String]) {
        var reading: Reading
        if format == .wav {
            reading = try Wave.read(data)
        } else {
            let lines = try textLines(data)
            if lines.allSatisfy({ isBlank($0.text) }) {
                reading = Reading()   // an empty text file holds no markers; that is not an error
            } else {
                switch format {
                case .audacity: reading = try Audacity.read(lines)
                case .cue: reading = try Cue.read(lines)
                case .ffmetadata: reading = try FFMetadata.read(lines)
                case .webvtt: reading = try WebVTT.read(lines)
                case .lrc: reading = try LyricLines.read(lines)
                case .wav: reading = Reading()   // handled above
                }
            }
        }
        if reading.entries.isEmpty { reading.notes.append("no markers in the file") }
        return (sortedByStart(reading.entries), reading.notes)
    }

    /// Writes entries in the strict form (rounded to nearest as the format needs). `notes` say what was dropped or rounded (e.g. "CUE sheets hold points only: 1 loop kept as its start point", "times rounded to CUE frames (1/75 s)"). `audioFileName` is for CUE's FILE line; `duration` (seconds) ends the last WebVTT cue of a point; `title` goes to CUE TITLE / FFMETADATA title= / LRC [ti:] when given. `leftOut` counts the entries the file does not hold (each said in `notes`): those no format can hold, CUE's beyond 99 or on a frame already taken, and LRC's without a name. Not for .wav (cue points go into a WAV file with `appendCues`).
    public static func write(_ entries: [InterchangeEntry], format: InterchangeFormat, audioFileName: String, duration: Double, title: String?) -> (data: Data, notes: [String], leftOut: Int) {
        let (ready, initialNotes) = prepared(entries)
        var notes = initialNotes, leftOut = entries.count - ready.count
        let text: String
        switch format {
        case .audacity: text = Audacity.write(ready, notes: &notes)
        case .cue: text = Cue.write(ready, audioFileName: audioFileName, title: title, notes: &notes, leftOut: &leftOut)
        case .ffmetadata: text = FFMetadata.write(ready, duration: duration, title: title, notes: &notes)
        case .webvtt: text = WebVTT.write(ready, duration: duration, notes: &notes)
        case .lrc: text = LyricLines.write(ready, title: title, notes: &notes, leftOut: &leftOut)
        case .wav: return (Data(), ["WAV cues are not a text file: render a WAV to get them"], entries.count)
        }
        return (Data(text.utf8), notes, leftOut)
    }

    /// Appends `entries` as `cue ` and `LIST`/`adtl` chunks to the RIFF WAVE file at `path` (one
    /// that has none yet, such as a fresh render) and fixes its RIFF size, without reading the
    /// audio: memory stays flat however long the file is.
    public static func appendCues(toWAVAt path: String, entries: [InterchangeEntry], sampleRate: Int) throws(InterchangeError) {
        let chunks = try Wave.cueChunks(entries, sampleRate: sampleRate)
        guard !chunks.isEmpty else { return }
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw InterchangeError(line: nil, message: "cannot open \(path) to add cue points: \(systemMessage())") }
        defer { close(fd) }
        func failed() -> InterchangeError { InterchangeError(line: nil, message: "cannot add cue points to \(path): \(systemMessage())") }
        func write(_ bytes: [UInt8], at offset: Int) throws(InterchangeError) {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
                if n < 0 { if errno == EINTR { continue }; throw failed() }
                done += n
            }
        }
        var header = [UInt8](repeating: 0, count: 12)
        guard pread(fd, &header, 12, 0) == 12, header.prefix(4).elementsEqual("RIFF".utf8), header.suffix(4).elementsEqual("WAVE".utf8) else {
            throw InterchangeError(line: nil, message: "not a RIFF WAVE file")
        }
        var end = Int(lseek(fd, 0, SEEK_END))
        guard end >= 12 else { throw failed() }
        if end % 2 == 1 { try write([0], at: end); end += 1 }   // chunks start on even offsets
        try write(chunks, at: end)
        let size = end + chunks.count - 8
        guard size <= Int(UInt32.max) else { throw InterchangeError(line: nil, message: "file too large for RIFF") }
        try write(withUnsafeBytes(of: UInt32(size).littleEndian) { Array($0) }, at: 4)
    }
}
