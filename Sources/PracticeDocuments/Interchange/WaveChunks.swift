// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

extension Interchange {
    /// RIFF WAVE marker chunks, parsed and written by hand (libsndfile writes no names).
    /// All numbers are little-endian; every chunk is padded to an even size.
    enum Wave {
        /// A chunk's four-character id, where its body is, and its whole extent (header, body, pad).
        struct Chunk {
            var id: String
            var body: Range<Int>
            var whole: Range<Int>
            /// The chunk's size field points past the end of the file.
            var truncated: Bool
        }

        /// A `cue ` point: its id and its sample frame.
        private struct CuePoint {
            var id: UInt32
            var frame: UInt32
        }

        /// A `smpl` loop: its cue id and its first and last (inclusive) sample frames.
        private struct Loop {
            var cueID: UInt32
            var start: UInt32
            var last: UInt32
        }

        // MARK: Reading

        /// Reads cue points (regions when an `ltxt` gives them a length), their `labl` names and
        /// `smpl` loops. Cue points without a label are named "Cue 1", "Cue 2"… in time order.
        static func read(_ data: Data) throws(InterchangeError) -> Reading {
            let bytes = [UInt8](data)
            var reading = Reading()
            var sampleRate: UInt32?, cues: [CuePoint] = [], loops: [Loop] = []
            var labels: [UInt32: String] = [:], lengths: [UInt32: UInt32] = [:], regionTexts: [UInt32: String] = [:]
            var latin1 = 0
            for chunk in try chunks(bytes) {
                let body = chunk.body
                switch chunk.id {
                case "fmt ":
                    guard !chunk.truncated, body.count >= 16 else { throw InterchangeError(line: nil, message: "fmt chunk too short") }
                    sampleRate = u32(bytes, body.lowerBound + 4)
                case "cue ":
                    guard !chunk.truncated, body.count >= 4 else { throw InterchangeError(line: nil, message: "truncated cue chunk") }
                    let count = Int(u32(bytes, body.lowerBound))
                    guard 4 + count * 24 <= body.count else {   // 24 bytes a point
                        throw InterchangeError(line: nil, message: "cue chunk too short for \(counted(count, "point"))")
                    }
                    for i in 0..<count {
                        let at = body.lowerBound + 4 + i * 24
                        let position = u32(bytes, at + 4), sampleOffset = u32(bytes, at + 20)
                        // dwSampleOffset is the frame in the data chunk; a few writers fill dwPosition only.
                        cues.append(CuePoint(id: u32(bytes, at), frame: sampleOffset == 0 ? position : sampleOffset))
                    }
                case "LIST":
                    guard !chunk.truncated else { throw InterchangeError(line: nil, message: "truncated LIST chunk") }
                    guard body.count >= 4, fourCC(bytes, body.lowerBound) == "adtl" else { continue }   // INFO and others
                    for sub in try subchunks(bytes, in: (body.lowerBound + 4)..<body.upperBound) {
                        switch sub.id {
                        case "labl":
                            guard sub.body.count >= 4 else { throw InterchangeError(line: nil, message: "labl chunk too short") }
                            let id = u32(bytes, sub.body.lowerBound)
                            let (text, wasLatin1) = label(bytes[(sub.body.lowerBound + 4)..<sub.body.upperBound])
                            if wasLatin1 { latin1 += 1 }
                            labels[id] = text
                        case "ltxt":
                            guard sub.body.count >= 20 else { throw InterchangeError(line: nil, message: "ltxt chunk too short") }
                            let id = u32(bytes, sub.body.lowerBound)
                            lengths[id] = u32(bytes, sub.body.lowerBound + 4)
                            let (text, wasLatin1) = label(bytes[(sub.body.lowerBound + 20)..<sub.body.upperBound])
                            if !text.isEmpty { regionTexts[id] = text; if wasLatin1 { latin1 += 1 } }
                        default: break   // note, file
                        }
                    }
                case "smpl":
                    guard !chunk.truncated, body.count >= 36 else { throw InterchangeError(line: nil, message: "smpl chunk too short") }
                    let count = Int(u32(bytes, body.lowerBound + 28))
                    guard 36 + count * 24 <= body.count else {   // a 36-byte header, then 24 bytes a loop
                        throw InterchangeError(line: nil, message: "smpl chunk too short for \(counted(count, "loop"))")
                    }
                    for i in 0..<count {
                        let at = body.lowerBound + 36 + i * 24
                        loops.append(Loop(cueID: u32(bytes, at), start: u32(bytes, at + 8), last: u32(bytes, at + 12)))
                    }
                default:
                    if chunk.truncated { reading.notes.append("the file ends inside the \(quoted(chunk.id)) chunk") }
                }
            }
            guard !cues.isEmpty || !loops.isEmpty else { return reading }
            guard let sampleRate else { throw InterchangeError(line: nil, message: "no fmt chunk") }
            guard sampleRate > 0 else { throw InterchangeError(line: nil, message: "sample rate is 0") }
            let rate = Double(sampleRate)

            // A cue that a loop names and that sits at the loop's start is that loop, not a marker.
            let loopCues = Set(loops.map { [$0.cueID, $0.start] })
            var unnamed = 0
            let sortedCues = cues.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
            for cue in sortedCues where !loopCues.contains([cue.id, cue.frame]) {
                let start = try checkedTime(Double(cue.frame) / rate, line: nil)
                var end: Double?
                if let length = lengths[cue.id], length > 0 {
                    end = try checkedTime((Double(cue.frame) + Double(length)) / rate, line: nil)
                }
                let name: String
                if let label = labels[cue.id] ?? regionTexts[cue.id] {
                    name = label
                } else {
                    unnamed += 1
                    name = "Cue \(unnamed)"
                }
                reading.entries.append(InterchangeEntry(name: name, start: start, end: end))
            }
            for (i, loop) in loops.enumerated() {
                guard loop.last >= loop.start else { throw InterchangeError(line: nil, message: "loop \(i + 1) ends before it starts") }
                let start = try checkedTime(Double(loop.start) / rate, line: nil)
                let end = try checkedTime((Double(loop.last) + 1) / rate, line: nil)   // the last frame is stored inclusive
                let name = labels[loop.cueID] ?? regionTexts[loop.cueID] ?? "Loop \(i + 1)"
                reading.entries.append(InterchangeEntry(name: name, start: start, end: end))
            }
            if latin1 > 0 { reading.notes.append("read \(counted(latin1, "label")) as Latin-1 (not UTF-8)") }
            return reading
        }

        /// A label's text: up to its first NUL, as UTF-8, else as Latin-1 (true when it was).
        private static func label(_ bytes: ArraySlice<UInt8>) -> (String, Bool) {
            let text = bytes.prefix { $0 != 0 }
            if let utf8 = String(validating: text, as: UTF8.self) { return (utf8, false) }
            return (String(String.UnicodeScalarView(text.map { Unicode.Scalar($0) })), true)
        }

        /// The chunks after `RIFF…WAVE`, each marked when its size runs past the end of the file.
        /// The RIFF size field is not trusted: streaming writers leave it 0 or too large.
        static func chunks(_ bytes: [UInt8]) throws(InterchangeError) -> [Chunk] {
            guard bytes.count >= 12, fourCC(bytes, 0) == "RIFF", fourCC(bytes, 8) == "WAVE" else {
                if fourCC(bytes, 0) == "RF64" { throw InterchangeError(line: nil, message: "RF64 files are not supported") }
                throw InterchangeError(line: nil, message: "not a RIFF WAVE file")
            }
            return scan(bytes, in: 12..<bytes.count)
        }

        /// The chunks in `range`; the last one is cut and marked when its size runs past the end.
        private static func scan(_ bytes: [UInt8], in range: Range<Int>) -> [Chunk] {
            var found: [Chunk] = [], at = range.lowerBound
            while at + 8 <= range.upperBound {   // an 8-byte header: id and size
                let size = Int(u32(bytes, at + 4))
                let bodyEnd = at + 8 + size
                let truncated = bodyEnd > range.upperBound
                let end = min(bodyEnd + size % 2, range.upperBound)
                found.append(Chunk(id: fourCC(bytes, at), body: (at + 8)..<min(bodyEnd, range.upperBound), whole: at..<end, truncated: truncated))
                if truncated { break }
                at = end
            }
            return found
        }

        /// The sub-chunks of a `LIST` body; one running past the list's end is an error.
        private static func subchunks(_ bytes: [UInt8], in range: Range<Int>) throws(InterchangeError) -> [Chunk] {
            let found = scan(bytes, in: range)
            if let cut = found.first(where: \.truncated) {
                throw InterchangeError(line: nil, message: "truncated \(cut.id.trimmingWhitespace()) chunk in LIST")
            }
            return found
        }

        // MARK: Writing

        /// The `cue ` and `LIST`/`adtl` chunks for `entries` (empty for none), ready to append.
        static func cueChunks(_ entries: [InterchangeEntry], sampleRate: Int) throws(InterchangeError) -> [UInt8] {
            guard sampleRate > 0 else { throw InterchangeError(line: nil, message: "bad sample rate \(sampleRate)") }
            var out: [UInt8] = []
            // Frames first (this also refuses NaN before anything is sorted), then by start.
            var points: [(name: String, frame: UInt32, length: UInt32)] = []
            for entry in entries {
                let frame = try self.frame(entry.start, rate: sampleRate, name: entry.name)
                var length: UInt32 = 0   // a point, or a region too short for one sample
                if let endTime = entry.end {
                    let end = try self.frame(endTime, rate: sampleRate, name: entry.name)
                    if end > frame { length = end - frame }
                }
                points.append((entry.name, frame, length))
            }
            points = points.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
            if !points.isEmpty {
                var cue: [UInt8] = [], list: [UInt8] = Array("adtl".utf8)
                append32(&cue, UInt32(points.count))
                for (i, point) in points.enumerated() {
                    let id = UInt32(i + 1)
                    // {id, position, 'data', chunk start, block start, sample offset}
                    append32(&cue, id); append32(&cue, point.frame)
                    cue += Array("data".utf8)
                    append32(&cue, 0); append32(&cue, 0); append32(&cue, point.frame)

                    var labl: [UInt8] = []
                    append32(&labl, id)
                    labl += Array(point.name.utf8) + [0]
                    appendChunk(&list, "labl", labl)
                    if point.length > 0 {
                        // {id, sample length, purpose, country, language, dialect, code page}
                        var ltxt: [UInt8] = []
                        append32(&ltxt, id); append32(&ltxt, point.length)
                        ltxt += Array("rgn ".utf8) + [UInt8](repeating: 0, count: 8)
                        appendChunk(&list, "ltxt", ltxt)
                    }
                }
                appendChunk(&out, "cue ", cue)
                appendChunk(&out, "LIST", list)
            }
            return out
        }

        /// A time as a sample frame, rounded to nearest; throws past 24 hours or 32 bits.
        private static func frame(_ seconds: Double, rate: Int, name: String) throws(InterchangeError) -> UInt32 {
            let frame = (seconds * Double(rate)).rounded()
            guard seconds.isFinite, seconds >= 0, seconds <= maxTime, frame <= Double(UInt32.max) else {
                throw InterchangeError(line: nil, message: "time out of range: \(quoted(name))")
            }
            return UInt32(frame)
        }

        // MARK: Bytes

        /// The little-endian UInt32 at `at`; 0 when it is not all inside `bytes`.
        static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
            guard at >= 0, at + 4 <= bytes.count else { return 0 }
            return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }

        /// The four bytes at `at` as text (`"fmt "`); empty when they are not all inside `bytes`.
        static func fourCC(_ bytes: [UInt8], _ at: Int) -> String {
            guard at >= 0, at + 4 <= bytes.count else { return "" }
            return String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
        }

        /// Appends a little-endian UInt32.
        static func append32(_ out: inout [UInt8], _ value: UInt32) {
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
        }

        /// Appends a chunk: id, size, body and a pad byte when the size is odd.
        static func appendChunk(_ out: inout [UInt8], _ id: String, _ body: [UInt8]) {
            out += Array(id.utf8)
            append32(&out, UInt32(body.count))
            out += body
            if body.count % 2 == 1 { out.append(0) }
        }
    }
}
