// SPDX-License-Identifier: GPL-3.0-or-later
/// Times as people type them: `83.5`, `1:23.5`, `1:02:03.25` (seconds, m:ss, h:mm:ss).
public enum Timecode {
    /// Parses a time in seconds; nil for anything else (negative, empty, minutes ≥ 60 after hours, …).
    /// The note a typed time needs when it reads like minutes and seconds but means seconds:
    /// `1.30` is 1.3 s, where `1:30` was likely meant. Nil for every other time.
    public static func ambiguity(_ text: String) -> String? {
        let t = text.trimmingWhitespace()
        let parts = t.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...3).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isWholeNumber } }),
              let minutes = Int(parts[0]), minutes >= 1, let seconds = Int(parts[1]), seconds < 60, let value = Double(t) else { return nil }
        var shown = String(value)
        if shown.hasSuffix(".0") { shown.removeLast(2) }
        let spoken = seconds == 0 ? "\(minutes) min" : seconds == 30 && minutes == 1 ? "a minute and a half" : "\(minutes) min \(seconds) s"
        return "\(t) is \(shown) s; \(minutes):\(parts[1]) is \(spoken)"
    }

    public static func parse(_ text: String) -> Double? {
        let parts = text.trimmingWhitespace().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let last = parts.last, isDecimal(last), let seconds = Double(last) else { return nil }
        var total = seconds
        if parts.count > 1 {
            guard seconds < 60 else { return nil }
            var scale = 60.0
            for (i, p) in parts.dropLast().reversed().enumerated() {
                guard !p.isEmpty, p.allSatisfy(\.isASCII), p.allSatisfy(\.isNumber), let v = Double(p) else { return nil }
                if i == 0, parts.count == 3, v >= 60 { return nil }
                total += v * scale
                scale *= 60
            }
        }
        return total.isFinite ? total : nil
    }

    private static func isDecimal(_ s: Substring) -> Bool {
        guard !s.isEmpty, s.first != ".", s.last != "." else { return false }
        var dots = 0
        for c in s {
            if c == "." { dots += 1 } else if !(c.isASCII && c.isNumber) { return false }
        }
        return dots <= 1
    }

    /// Formats seconds as `m:ss.d` (or `h:mm:ss.d` from an hour on), truncating to tenths.
    public static func format(_ seconds: Double, decimals: Int = 1) -> String {
        // Past 100,000 hours (or not a number at all) there is nothing useful to show, and Int would overflow.
        guard seconds.isFinite, seconds < 360_000_000 else { return seconds.isNaN ? "?" : "≥ 100000:00:00" }
        let s = max(0, seconds)
        let scale = decimals == 0 ? 1.0 : decimals == 1 ? 10.0 : decimals == 2 ? 100.0 : 1000.0
        let units = Int((s * scale + 1e-6).rounded(.down))   // 2.01 s is 2009.999… ms in binary
        let whole = units / Int(scale), fraction = units % Int(scale)
        let h = whole / 3600, m = (whole / 60) % 60, sec = whole % 60
        // Written as ASCII digits straight into the string (a listing formats 10,000 times; the
        // interpolations and paddings took a fifteenth of a marker listing).
        return String(unsafeUninitializedCapacity: 16 + max(0, decimals)) { out in
            var i = 0
            func digits(_ v: Int, width: Int) { writeDigits(v, width: width, into: out, at: &i) }
            if h > 0 {
                digits(h, width: 1); out[i] = UInt8(ascii: ":"); i += 1
                digits(m, width: 2)
            } else {
                digits(m, width: 1)
            }
            out[i] = UInt8(ascii: ":"); i += 1
            digits(sec, width: 2)
            if decimals > 0 { out[i] = UInt8(ascii: "."); i += 1; digits(fraction, width: decimals) }
            return i
        }
    }
}

/// Writes `v` as ASCII digits in at least `width` places, zeros in front (C's `%0*d`; a negative
/// `v` takes its `-` in the width), into `out` from `i`, and moves `i` past them.
func writeDigits(_ v: Int, width: Int, into out: UnsafeMutableBufferPointer<UInt8>, at i: inout Int) {
    var width = width
    if v < 0 { out[i] = UInt8(ascii: "-"); i += 1; width -= 1 }
    var n = 1, rest = v.magnitude / 10
    while rest > 0 { n += 1; rest /= 10 }
    let count = max(n, width)
    var x = v.magnitude
    for k in stride(from: i + count - 1, through: i, by: -1) { out[k] = UInt8(ascii: "0") + UInt8(x % 10); x /= 10 }
    i += count
}
