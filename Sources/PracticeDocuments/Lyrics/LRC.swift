// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// LRC lyrics files (see formats.md, "LRC"): `[mm:ss.xx]text` lines, header tags, `[offset:±ms]`,
/// enhanced (A2) `<mm:ss.xx>` word stamps, and FLO's `[mm:ss:SSS]`.
public enum LRC {
    /// Something the parser skipped or changed: its 1-based line and what, in a few words.
    struct Warning: Equatable {
        var line: Int
        var message: String
    }

    /// Lenient parse, never crashes, never throws: returns the lyrics and one-line warnings for what it skipped (with line numbers).
    /// Text that is not text (a NUL byte) has no lyrics; files go through `LyricsFile.load`, which says so.
    public static func parse(_ text: String) -> (lyrics: Lyrics, warnings: [String]) {
        let (lyrics, warnings) = read((try? Interchange.textLines(Data(text.utf8))) ?? [])
        return (lyrics, warnings.map { "line \($0.line): \($0.message)" })
    }

    /// Strict export: header tags, [mm:ss.xx] hundredths rounded to nearest, <mm:ss.xx> word stamps, offset folded in (none written).
    public static func write(_ lyrics: Lyrics) -> String {
        var out = ""
        for key in tagOrder(lyrics.tags.keys) where key != "offset" {
            out += "[\(key):\(oneLine(lyrics.tags[key]!))]\n"
        }
        if lyrics.isSynced {
            for line in lyrics.lines {
                out += "[\(stamp(line.time))]"
                if line.words.isEmpty {
                    // Text that would read as another time stamp (`[00:12.50]…`) goes behind a word
                    // stamp at the line's own time, so that it reads back as this one line's text.
                    if startsWithStamp(line.text) { out += "<\(stamp(line.time))>" }
                    out += oneLine(line.text)
                } else {
                    for word in line.words { out += "<\(stamp(word.time))>\(oneLine(word.text))" }
                }
                out += "\n"
            }
        } else {
            for text in lyrics.plain { out += oneLine(text) + "\n" }
        }
        return out
    }

    /// `mm:ss.xx`: minutes (two digits or more), seconds, hundredths rounded to nearest (via the millisecond).
    public static func stamp(_ seconds: Double) -> String {
        let ms = seconds.isFinite ? Int64((max(seconds, 0) * 1000).rounded()) : 0
        let cs = (ms + 5) / 10
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(cs / 6000)):\(two(cs / 100 % 60)).\(two(cs % 100))"
    }

    /// The usual header order (`ti`, `ar`, `al`, `au`, `length`, `by`, `re`, `ve`), then the rest by name.
    static func tagOrder(_ keys: Dictionary<String, String>.Keys) -> [String] {
        let known = ["ti", "ar", "al", "au", "length", "by", "re", "ve"]
        return known.filter(keys.contains) + keys.filter { !known.contains($0) }.sorted()
    }

    /// Whether `text` begins (after spaces) with what the reader takes for a line's time stamp.
    static func startsWithStamp(_ text: String) -> Bool {
        leadingStamp(text.drop { $0 == " " || $0 == "\t" }, "[", "]") != nil
    }

    /// The time stamped between `open` and `close` at the very start of `text`, and what follows.
    /// Brackets are looked for among the text's scalars: a combining mark right after one (text
    /// that starts with one) joins it in a single Character, and must not hide it.
    static func leadingStamp(_ text: Substring, _ open: Unicode.Scalar, _ close: Unicode.Scalar) -> (ms: Int64, rest: Substring)? {
        let scalars = text.unicodeScalars
        guard scalars.first == open, let end = scalars.firstIndex(of: close),
              let ms = milliseconds(Substring(scalars[scalars.index(after: scalars.startIndex)..<end])) else { return nil }
        return (ms, Substring(scalars[scalars.index(after: end)...]))
    }

    private static func oneLine(_ text: String) -> String { text.onOneLine() ?? text }

    // MARK: Reading

    /// A stamped line before sorting: its stamps in file order (milliseconds, before the offset),
    /// its text, and its words (milliseconds as stamped, which belong with the first stamp).
    private struct Stamped {
        var stamps: [Int64]
        var text: String
        var words: [(ms: Int64, text: String)]
    }

    /// Parses the lines of a file (`Interchange.textLines` decoded and split them).
    static func read(_ lines: [Interchange.TextLine]) -> (lyrics: Lyrics, warnings: [Warning]) {
        var stamped: [Stamped] = []
        var others: [(line: Int, text: String, bracketed: Bool)] = []   // text without stamps, and blank lines
        var tags: [String: String] = [:]
        var offset: Int64 = 0
        var warnings: [Warning] = []
        for raw in lines {
            let number = raw.number
            let line = raw.text.trimmingWhitespace()
            var rest = Substring(line)
            var stamps: [Int64] = []
            while true {   // `[00:21.10][00:45.10]`, also with spaces between
                let next = stamps.isEmpty ? rest : rest.drop { $0 == " " || $0 == "\t" }
                guard let (ms, after) = leadingStamp(next, "[", "]") else { break }
                stamps.append(ms)
                rest = after
            }
            if !stamps.isEmpty {
                // Line separators other than LF (U+0085, U+2028) at the ends are white space too: a
                // text of only those is no text, as it is once written back (where they are spaces).
                let (text, words, unordered) = wordsOf(rest.trimmingWhitespaceAndNewlines(), lineTime: stamps[0])
                if unordered { warnings.append(Warning(line: number, message: "word stamps out of order; each kept no earlier than the one before")) }
                stamped.append(Stamped(stamps: stamps, text: text, words: words))
            } else if let (key, value) = tag(line) {
                if key == "offset" {
                    guard let ms = Int64(value.replacing(" ", with: "")), abs(ms) <= 86_400_000 else {
                        warnings.append(Warning(line: number, message: "skipped \(Interchange.quoted(line)) (the offset is a whole number of milliseconds, such as +250)"))
                        continue
                    }
                    offset = ms
                } else {
                    tags[key] = value
                }
            } else {
                others.append((number, line, line.hasPrefix("[")))
            }
        }
        if stamped.isEmpty {   // unsynced: the text, without blank lines at either end
            var plain = others.map(\.text)
            while plain.first?.isEmpty == true { plain.removeFirst() }
            while plain.last?.isEmpty == true { plain.removeLast() }
            return (Lyrics(plain: plain, tags: tags), warnings)
        }
        for other in others where !other.text.isEmpty {
            let why = other.bracketed ? "not a time stamp or a tag" : "no time stamp"
            warnings.append(Warning(line: other.line, message: "skipped \(Interchange.quoted(other.text)) (\(why))"))
        }
        warnings.sort { $0.line < $1.line }
        func seconds(_ ms: Int64) -> Double { Double(max(ms - offset, 0)) / 1000 }
        var lines: [Lyrics.Line] = []
        for s in stamped {
            for stamp in s.stamps {
                // A line with several stamps repeats its words, moved with it.
                let words = s.words.map { Lyrics.Word(time: seconds($0.ms - s.stamps[0] + stamp), text: $0.text) }
                lines.append(Lyrics.Line(time: seconds(stamp), text: s.text, words: words))
            }
        }
        let sorted = lines.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        return (Lyrics(lines: sorted, tags: tags), warnings)
    }

    /// Milliseconds of a stamp's inside: `mm:ss`, `mm:ss.x`…`mm:ss.xxx`, or FLO's `mm:ss:xxx`;
    /// minutes have 1–4 digits (1440 is 24 hours, the latest a marker may be, and what a stamp
    /// moved by the longest `offset` can reach), seconds 1–2 and are below 60. nil for anything else.
    static func milliseconds(_ inside: Substring) -> Int64? {
        let parts = inside.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        var secondsPart = parts[1], fraction: Substring = ""
        if parts.count == 3 {
            fraction = parts[2]
            guard !fraction.isEmpty else { return nil }
        } else if let dot = secondsPart.firstIndex(of: ".") {
            fraction = secondsPart[secondsPart.index(after: dot)...]
            secondsPart = secondsPart[..<dot]
            guard !fraction.isEmpty else { return nil }
        }
        func digits(_ s: Substring, _ range: ClosedRange<Int>) -> Int64? {
            guard range.contains(s.count), s.allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { return nil }
            return Int64(s)
        }
        guard let minutes = digits(parts[0], 1...4), let seconds = digits(secondsPart, 1...2), seconds < 60 else { return nil }
        var ms = (minutes * 60 + seconds) * 1000
        if !fraction.isEmpty {
            guard let f = digits(fraction, 1...3) else { return nil }
            ms += f * [100, 10, 1][fraction.count - 1]
        }
        return ms
    }

    /// `[key:value]` filling the whole line, the key a letter then letters, digits, `_` or `-`
    /// (lower-cased); the value trimmed. nil for anything else. Scalars, as `leadingStamp`: a value
    /// starting with a combining mark makes one Character of it and the `:`.
    static func tag(_ line: String) -> (key: String, value: String)? {
        let scalars = line.unicodeScalars
        guard scalars.first == "[", scalars.last == "]", scalars.count >= 3 else { return nil }
        let inside = scalars.dropFirst().dropLast()
        guard let colon = inside.firstIndex(of: ":") else { return nil }
        let key = Substring(inside[..<colon]).trimmingWhitespace()
        guard let first = key.first, first.isASCII, first.isLetter,
              key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else { return nil }
        return (key.lowercased(), Substring(inside[inside.index(after: colon)...]).trimmingWhitespace())
    }

    /// Splits a line's text at its `<mm:ss.xx>` word stamps. Text before the first stamp becomes a
    /// word at the line's time; the words joined give the text (stamps removed, trimmed). A stamp
    /// earlier than the one before is raised to it (`unordered`), so words stay in time order.
    static func wordsOf(_ text: String, lineTime: Int64) -> (text: String, words: [(ms: Int64, text: String)], unordered: Bool) {
        var segments: [(ms: Int64?, text: String)] = [(nil, "")]
        var rest = Substring(text)
        while let open = rest.unicodeScalars.firstIndex(of: "<") {   // scalars: as `leadingStamp`
            segments[segments.count - 1].text += Substring(rest.unicodeScalars[..<open])
            let from = Substring(rest.unicodeScalars[open...])
            if let (ms, after) = leadingStamp(from, "<", ">") {
                segments.append((ms, ""))
                rest = after
            } else {
                segments[segments.count - 1].text += "<"
                rest = Substring(from.unicodeScalars.dropFirst())
            }
        }
        segments[segments.count - 1].text += rest
        guard segments.count > 1 else { return (segments[0].text.trimmingWhitespace(), [], false) }
        if segments[0].text.allSatisfy(\.isBlank) { segments.removeFirst() }
        var words: [(ms: Int64, text: String)] = []
        var unordered = false
        for s in segments {
            var ms = s.ms ?? lineTime
            if let previous = words.last?.ms, ms < previous { ms = previous; unordered = true }
            words.append((ms, s.text))
        }
        // Trimmed at both ends as a line's text is, so that the words join to the text.
        for k in words.indices {
            words[k].text = String(words[k].text.drop(while: \.isBlank))
            if !words[k].text.isEmpty { break }
        }
        for k in words.indices.reversed() {
            while words[k].text.last?.isBlank == true { words[k].text.removeLast() }
            if !words[k].text.isEmpty { break }
        }
        return (words.map(\.text).joined(), words, unordered)
    }
}
