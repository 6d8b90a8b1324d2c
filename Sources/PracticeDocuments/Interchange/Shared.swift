// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// What the readers and writers share: text decoding, number and time checks, ordering, wording.
extension Interchange {
    /// What a reader found: entries in file order and notes on what it skipped or adjusted.
    struct Reading {
        var entries: [InterchangeEntry] = []
        var notes: [String] = []
    }

    /// One line of a text file: its 1-based number and its text without the line end.
    struct TextLine {
        let number: Int
        let text: String
    }

    /// The latest time we accept, in seconds: 24 hours.
    static let maxTime: Double = 24 * 60 * 60

    /// Splits a text file into lines: UTF-8 (a BOM is dropped), LF, CRLF or CR-only line ends.
    /// UTF-16 with a BOM is accepted by decoding it (Windows tools save CUE sheets that way);
    /// UTF-16 without a BOM has NUL bytes and is refused as "not a text file".
    static func textLines(_ data: Data) throws(InterchangeError) -> [TextLine] {
        var bytes = [UInt8](data)
        if bytes.count >= 2, (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF) {
            bytes = try utf16AsUTF8(bytes)
        } else if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            bytes.removeFirst(3)
        }
        let lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let separator = bytes.contains(lf) || !bytes.contains(cr) ? lf : cr   // old Mac files end lines with CR alone
        var lines: [TextLine] = []
        var start = 0
        while true {
            let stop = bytes[start...].firstIndex(of: separator) ?? bytes.count
            var end = stop
            if separator == lf, end > start, bytes[end - 1] == cr { end -= 1 }
            let number = lines.count + 1
            let raw = bytes[start..<end]
            if raw.contains(0) { throw InterchangeError(line: number, message: "not a text file") }
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw InterchangeError(line: number, message: "not UTF-8 text")
            }
            lines.append(TextLine(number: number, text: text))
            if stop == bytes.count { break }
            start = stop + 1
        }
        return lines
    }

    /// Decodes UTF-16 that starts with a byte order mark into UTF-8 bytes without it.
    private static func utf16AsUTF8(_ bytes: [UInt8]) throws(InterchangeError) -> [UInt8] {
        guard bytes.count % 2 == 0 else { throw InterchangeError(line: nil, message: "truncated UTF-16 text") }
        let littleEndian = bytes[0] == 0xFF
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2 - 1)
        var i = 2
        while i + 1 < bytes.count {
            let (low, high) = littleEndian ? (bytes[i], bytes[i + 1]) : (bytes[i + 1], bytes[i])
            units.append(UInt16(high) << 8 | UInt16(low))
            i += 2
        }
        guard let text = String(validating: units, as: UTF16.self) else {
            throw InterchangeError(line: nil, message: "not UTF-16 text")
        }
        return Array(text.utf8)
    }

    /// True for an empty line or one of spaces and tabs.
    static func isBlank(_ text: String) -> Bool {
        text.allSatisfy { $0 == " " || $0 == "\t" }
    }

    /// True for the ASCII digits 0–9 only (not other Unicode numbers).
    static func isDigit(_ c: Character) -> Bool {
        // (Not `isWholeNumber`, a look-up of Unicode's numeric values: a quarter of importing
        // 10,000 labels.)
        guard let a = c.asciiValue else { return false }
        return a >= UInt8(ascii: "0") && a <= UInt8(ascii: "9")
    }

    /// True when `text` is one or more ASCII digits.
    static func isDigits<S: StringProtocol>(_ text: S) -> Bool {
        !text.isEmpty && text.allSatisfy(isDigit)
    }

    /// Parses a plain decimal number: `[+-]digits[.digits][e[+-]digits]` (also `.5` and `5.`);
    /// nil for anything else, including `nan`, `inf` and hexadecimal, which `Double(_:)` accepts.
    static func decimal<S: StringProtocol>(_ text: S) -> Double? {
        var rest = Substring(text)
        if rest.first == "+" || rest.first == "-" { rest.removeFirst() }
        let mantissa = rest.prefix { $0 != "e" && $0 != "E" }
        let exponent = rest.dropFirst(mantissa.count)
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.allSatisfy(isDigit) }),
              parts.contains(where: { !$0.isEmpty }) else { return nil }
        if !exponent.isEmpty {
            var digits = exponent.dropFirst()
            if digits.first == "+" || digits.first == "-" { digits.removeFirst() }
            guard isDigits(digits) else { return nil }
        }
        return Double(String(text))
    }

    /// Parses `[+-]digits` as an integer; `.tooLarge` when it has only digits but does not fit.
    static func integer<S: StringProtocol>(_ text: S) -> IntegerParse {
        var digits = Substring(text)
        if digits.first == "+" || digits.first == "-" { digits.removeFirst() }
        guard isDigits(digits) else { return .notInteger }
        guard let value = Int64(String(text)) else { return .tooLarge }
        return .value(value)
    }

    /// The outcome of `integer(_:)`.
    enum IntegerParse: Equatable {
        case value(Int64), tooLarge, notInteger
    }

    /// Checks a time read from a file: finite, not negative, at most 24 hours.
    static func checkedTime(_ seconds: Double, line: Int?) throws(InterchangeError) -> Double {
        guard seconds.isFinite, seconds <= maxTime else { throw InterchangeError(line: line, message: "time out of range") }
        guard seconds >= 0 else { throw InterchangeError(line: line, message: "negative time") }
        return seconds
    }

    /// Quotes a piece of the input for a message, cut to 40 characters.
    static func quoted<S: StringProtocol>(_ text: S) -> String {
        text.count > 40 ? "\"\(text.prefix(40))…\"" : "\"\(text)\""
    }

    /// `1 line`, `2 lines`: a count with its noun.
    static func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
    }

    /// Sorts by start, keeping the file order of equal starts.
    static func sortedByStart(_ entries: [InterchangeEntry]) -> [InterchangeEntry] {
        entries.enumerated()
            .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)
    }

    /// Replaces tabs and line breaks with spaces; `changed` counts the names that had any.
    static func singleLine(_ name: String, changed: inout Int) -> String {
        guard let one = name.onOneLine(tabs: true) else { return name }
        changed += 1
        return one
    }

    /// True when `seconds × unitsPerSecond` is not already a whole number of units.
    static func needsRounding(_ seconds: Double, unitsPerSecond: Double) -> Bool {
        let units = seconds * unitsPerSecond
        return abs(units - units.rounded()) > 1e-6
    }

    /// Entries to write: sorted by start, without those no format can hold (times that are not
    /// finite, negative, past 24 hours, or regions ending before they start); a region of zero
    /// length becomes a point.
    static func prepared(_ entries: [InterchangeEntry]) -> (entries: [InterchangeEntry], notes: [String]) {
        var kept: [InterchangeEntry] = [], dropped = 0
        for var entry in entries {
            let validStart = entry.start.isFinite && entry.start >= 0 && entry.start <= maxTime
            let validEnd = entry.end.map { $0.isFinite && $0 >= entry.start && $0 <= maxTime } ?? true
            guard validStart, validEnd else { dropped += 1; continue }
            if entry.end == entry.start { entry.end = nil }
            kept.append(entry)
        }
        let notes = dropped == 0 ? [] : ["left out \(counted(dropped, "entry", "entries")) with a time outside 0 to 24 hours or an end before the start"]
        return (sortedByStart(kept), notes)
    }

    /// For each point, the end a chapter or cue needs: the next later point's start, else
    /// `duration`, never before the point itself (so the points tile the track, and regions
    /// laid over them do not cut them short). Regions keep their own end.
    static func regionEnds(_ entries: [InterchangeEntry], duration: Double) -> [Double] {
        entries.enumerated().map { i, entry in
            if let end = entry.end { return end }
            let next = entries[(i + 1)...].first { $0.end == nil && $0.start > entry.start }?.start
            let end = next ?? (duration.isFinite ? min(duration, maxTime) : entry.start)
            return max(end, entry.start)
        }
    }
}
