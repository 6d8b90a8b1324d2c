// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// printf-style formatting through the C library (`"%.2f"`, `"%02x"`, `"%04ld"`): what
/// `String(format:)` did, without the part of Foundation that brings it.
/// Integers are 64-bit here: use `%ld`, not `%d`.
public func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    var size = 64
    while true {
        var buffer = [CChar](repeating: 0, count: size)
        let needed = withVaList(arguments) { vsnprintf(&buffer, size, format, $0) }
        guard needed >= 0 else { return "" }
        if Int(needed) < size { return String(decoding: buffer.prefix(Int(needed)).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        size = Int(needed) + 1
    }
}

extension StringProtocol {
    /// Without spaces and tabs (and other horizontal white space) at either end.
    public func trimmingWhitespace() -> String { trimming(while: \.isHorizontalWhitespace) }

    /// Without white space or line breaks at either end.
    public func trimmingWhitespaceAndNewlines() -> String { trimming(while: \.isBlank) }

    private func trimming(while isSpace: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }
}

extension String {
    /// On one line: each line break (and, with `tabs`, each tab) a space; nil when it had none.
    func onOneLine(tabs: Bool = false) -> String? {
        let breaks: (Character) -> Bool = { $0.isNewline || tabs && $0 == "\t" }
        guard contains(where: breaks) else { return nil }
        return String(map { breaks($0) ? " " : $0 })
    }
}

extension Character {
    /// White space through and through: every scalar of it is. A space carrying a combining mark
    /// (U+0020 U+0301, one character) is not, though the standard library's `isWhitespace`, which
    /// looks at the first scalar only, says it is: trimming or dropping it would lose the mark.
    public var isBlank: Bool { unicodeScalars.allSatisfy(\.properties.isWhitespace) }

    /// White space that is not a line break: a space, a tab, a no-break or other Unicode space.
    var isHorizontalWhitespace: Bool { isBlank && !isNewline }
}

extension String {
    /// `&`, `<` and `>` as character references, for text that a reader takes as markup (WebVTT
    /// cues, desktop notifications' bodies, the journal's page). By scalar, as markup is read: a
    /// `<` after a prepended scalar (U+0600) or before a combining mark is one Character with it,
    /// and still opens a tag.
    public var markupEscaped: String {
        var out = String.UnicodeScalarView()
        for u in unicodeScalars {
            switch u {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            default: out.append(u)
            }
        }
        return String(out)
    }

    /// Every `old` scalar as `new` (a scalar joined to its neighbours in one Character too); nil
    /// when there is none.
    func replacingScalar(_ old: Unicode.Scalar, with new: Unicode.Scalar) -> String? {
        guard unicodeScalars.contains(old) else { return nil }
        return String(String.UnicodeScalarView(unicodeScalars.map { $0 == old ? new : $0 }))
    }
}

/// Quotes a path for a command line a user can paste.
public func shellQuote(_ s: String) -> String {
    s.allSatisfy { $0.isLetter || $0.isNumber || "-_./".contains($0) } ? s : "'" + s.replacing("'", with: "'\\''") + "'"
}

/// `2`, `0.8`, `-1.25`: a number in at most two decimals, without trailing zeros.
public func shortNumber(_ v: Double) -> String {
    if v == v.rounded() { return String(Int(v)) }
    var text = cFormat("%.2f", v)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }   // 2.001 → "2"
    return text
}
