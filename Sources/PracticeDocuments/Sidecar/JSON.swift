// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// A JSON document as read, so that fields this version does not know survive a rewrite.
///
/// Our own reader and writer rather than Foundation's: on Linux `JSONSerialization` reports a
/// syntax error as "around character 25" (people need the line and column), and its writer puts
/// a space before each colon and rewrites numbers; ours keeps number literals as written.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The literal as written (`12.5`, `1e3`), so numbers we do not interpret are kept exactly.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number of seconds kept to the millisecond: `12.5`, `83`, `0.001`.
    public static func seconds(_ s: Double) -> JSONValue { .number(JSONValue.formatMilliseconds(s)) }
    public static func integer(_ i: Int) -> JSONValue { .number(String(i)) }
    public static func double(_ d: Double) -> JSONValue { .number(JSONValue.formatMilliseconds(d)) }

    /// Seconds as written in our files: at most 3 decimals, no trailing zeros (`12`, `12.5`, `0.001`);
    /// from 10¹² s on, as Swift writes the number (`1e+308`). Always a JSON number: a non-finite
    /// value has none, so asking for one is a bug that stops here rather than writing a file that
    /// nobody can read (readers reject non-finite numbers before they get this far).
    public static func formatMilliseconds(_ s: Double) -> String {
        precondition(s.isFinite, "JSON has no number for \(s)")
        let ms = (s * 1000).rounded()
        if ms == 0 { return "0" }
        guard ms.magnitude < 1e15 else { return String(s) }
        if ms == (ms / 1000).rounded() * 1000 { return String(Int(ms / 1000)) }
        return String(ms / 1000)
    }

    public var double: Double? { if case .number(let n) = self { return JSONValue.value(ofNumber: n) } else { return nil } }

    /// A JSON number's value, as `Double(literal)` reads it. The literals our files hold (`12.345`:
    /// at most 15 digits, no exponent) are read directly: the digits as a whole number, divided by
    /// a power of ten, both exact in a Double, so the one rounding of the division gives the
    /// correctly rounded value, as `strtod` does (Clinger's fast path); any other goes to `Double`.
    /// (Reading 10,000 markers' times through `strtod` was a tenth of adding one to them.)
    static func value(ofNumber literal: String) -> Double? {
        var literal = literal
        return literal.withUTF8 { value(ofNumber: $0) }
    }

    /// `value(ofNumber:)` of a literal's bytes, as they lie in a document being read.
    static func value(ofNumber b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0, negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0, digits = 0, fraction = -1
        while i < b.count {
            let c = b[i]
            if c >= 0x30, c <= 0x39 {
                mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                digits += 1
                if fraction >= 0 { fraction += 1 }
            } else if c == UInt8(ascii: "."), fraction < 0 {
                fraction = 0
            } else {
                break
            }
            i += 1
        }
        guard i == b.count, digits > 0, digits <= 15, fraction != 0 else { return Double(String(decoding: b, as: UTF8.self)) }
        let value = Double(mantissa) / powersOfTen[max(fraction, 0)]
        return negative ? -value : value
    }

    /// 10⁰ … 10¹⁵, each exact in a Double.
    private static let powersOfTen: [Double] = (0...15).map { k in (0..<k).reduce(1.0) { x, _ in x * 10 } }
    public var int: Int? {
        guard case .number(let n) = self else { return nil }
        if let i = Int(n) { return i }
        if let d = JSONValue.value(ofNumber: n), d == d.rounded(), d.magnitude < 1e15 { return Int(d) }
        return nil
    }
    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// What a person calls this kind of value, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "true/false"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// A syntax error at a line and column (both from 1; columns count characters).
public struct JSONSyntaxError: Error, Equatable, Sendable {
    public var line: Int
    public var column: Int
    public var message: String
}

// MARK: Reading

extension JSONValue {
    /// Parses one JSON document (RFC 8259). Duplicate keys in an object are an error.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        try reading(data) { (reader) throws(JSONSyntaxError) in try reader.document() }
    }

    /// Parses a document whose top level is an object, and reads each item of its list at `key`
    /// with `item`, straight from the bytes: no dictionary and no `JSONValue` for each, which is
    /// most of the work for a sidecar's 10,000 markers. `items` is nil when there is no such
    /// member. Throws when the document is not an object, that member is not a list, or `item`
    /// throws (it does for anything it does not take): the caller then reads the document with
    /// `parse`, which says what is wrong. A key written twice is an error, as in `parse`.
    static func parse<Item>(_ data: Data, splitting key: String, item: @escaping (inout JSONReader) throws(JSONSyntaxError) -> Item)
        throws(JSONSyntaxError) -> (root: [String: JSONValue], items: [Item]?) {
        var items: [Item]?
        return try reading(data) { (reader) throws(JSONSyntaxError) in
            reader.skipSpace()
            guard reader.i < reader.bytes.count, reader.bytes[reader.i] == UInt8(ascii: "{") else { throw reader.error("expected an object") }
            reader.split = (key, { (reader) throws(JSONSyntaxError) in items = try reader.list(of: item) })
            let root = try reader.members()
            reader.skipSpace()
            guard reader.i == reader.bytes.count else { throw reader.error("unexpected \(reader.describe(reader.i)) after the end of the document") }
            // (`key`'s member, when there is one, is the split list's place holder.)
            return (Dictionary(uniqueKeysWithValues: root.lazy.filter { $0.key != key }), items)
        }
    }

    /// The same, from bytes in hand (a file read whole with `ReadableFile.wholeFile`).
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer(document).get()
    }

    /// The one document in `bytes`.
    private static func document(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONSyntaxError> {
        reading(bytes) { (reader) throws(JSONSyntaxError) in try reader.document() }
    }

    /// Runs `body` on a reader over `data`'s bytes, in place.
    private static func reading<R>(_ data: Data, _ body: (inout JSONReader) throws(JSONSyntaxError) -> R) throws(JSONSyntaxError) -> R {
        try data.withUnsafeBytes { reading($0.bindMemory(to: UInt8.self), body) }.get()
    }

    private static func reading<R>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (inout JSONReader) throws(JSONSyntaxError) -> R) -> Result<R, JSONSyntaxError> {
        var reader = JSONReader(bytes: bytes)
        do throws(JSONSyntaxError) { return .success(try body(&reader)) } catch { return .failure(error) }
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        // From the string's bytes as they lie (`Data(text.utf8)` asks the view's conformances first).
        var text = text
        return try text.withUTF8(document).get()
    }

    /// Where the value at `path` (`markers[3].time`, as `SidecarFormatError.field` names it)
    /// starts in `data`: its line and column, for an error about a value that parsed.
    public static func location(of path: String, in data: Data) -> (line: Int, column: Int)? {
        data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw.bindMemory(to: UInt8.self))
            reader.target = path
            _ = try? reader.document()
            guard let found = reader.found else { return nil }
            let e = reader.error("", at: found)
            return (e.line, e.column)
        }
    }
}

/// Reads bytes that stay put while it reads (`withUnsafeBufferPointer`), without bounds checks in
/// its inner loops: every index is compared with `bytes.count` first.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    /// Nesting depth, bounded so that hostile input cannot exhaust the stack.
    var depth = 0
    /// `location(of:in:)`: the path of the value being read, the one looked for, and where it starts.
    var path = ""
    var target: String?
    var found: Int?
    /// `parse(_:splitting:item:)`: the top-level member whose value is read by a reader of its own.
    var split: (key: String, read: (inout JSONReader) throws(JSONSyntaxError) -> Void)?
    static let maxDepth = 256

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }   // a UTF-8 byte order mark
    }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard i < bytes.count else { throw error("the file is empty; expected a JSON object") }
        let v = try value()
        skipSpace()
        guard i == bytes.count else { throw error("unexpected \(describe(i)) after the end of the document") }
        return v
    }

    func error(_ message: String, at index: Int? = nil) -> JSONSyntaxError {
        let at = min(index ?? i, bytes.count)
        var line = 1, column = 1, k = 0
        while k < at {
            if bytes[k] == 0x0A { line += 1; column = 1 } else if bytes[k] & 0xC0 != 0x80 { column += 1 }
            k += 1
        }
        return JSONSyntaxError(line: line, column: column, message: message)
    }

    func describe(_ index: Int) -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return cFormat("byte 0x%02X", b)
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard i < bytes.count else { throw error("unexpected end of file; expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected \(describe(i)); expected a value")
        }
    }

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else {
            throw error("unexpected \(describe(i)); expected a value")
        }
        i += w.count
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nested more than \(Self.maxDepth) levels deep") }
    }

    mutating func object() throws(JSONSyntaxError) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: try members()))
    }

    /// An object's members in the order written. A key written twice is an error: looked for
    /// along the list while it is short (a marker's handful), in a set of the keys past that, so
    /// that a hostile object of a million keys costs no more than a million lookups.
    mutating func members() throws(JSONSyntaxError) -> [(key: String, value: JSONValue)] {
        try enter()
        defer { depth -= 1 }
        i += 1
        var members: [(key: String, value: JSONValue)] = []
        var keys = Set<String>()
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return members }
        members.reserveCapacity(6)   // a marker's members at once
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describe(i)); expected a key in double quotes")
            }
            let keyStart = i
            let key = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("unexpected \(describe(i)); expected ':'") }
            i += 1
            skipSpace()
            let v: JSONValue
            if target == nil {
                if depth == 1, let split, key == split.key {
                    try split.read(&self)
                    v = .null   // left out of the root by `parse(_:splitting:item:)`
                } else {
                    v = try value()
                }
            } else {
                let parent = path
                path = parent.isEmpty ? key : parent + "." + key
                if path == target { found = i }
                v = try value()
                path = parent
            }
            let twice: Bool
            if members.count < 16 {
                twice = members.contains { $0.key == key }
            } else {
                if keys.isEmpty { keys = Set(members.lazy.map(\.key)) }
                twice = !keys.insert(key).inserted
            }
            if twice { throw error("duplicate key \"\(key)\"", at: keyStart) }
            members.append((key, v))
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of file; expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return members }
            throw error("unexpected \(describe(i)); expected ',' or '}'")
        }
    }

    /// A list, each item read by `item`.
    mutating func list<Item>(of item: (inout JSONReader) throws(JSONSyntaxError) -> Item) throws(JSONSyntaxError) -> [Item] {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "[") else { throw error("unexpected \(describe(i)); expected a list") }
        try enter()
        defer { depth -= 1 }
        i += 1
        var items: [Item] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return items }
        while true {
            skipSpace()
            items.append(try item(&self))
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of file; expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return items }
            throw error("unexpected \(describe(i)); expected ',' or ']'")
        }
    }

    mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipSpace()
            if target == nil {
                items.append(try value())
            } else {
                let parent = path
                path = parent + "[\(items.count)]"
                if path == target { found = i }
                items.append(try value())
                path = parent
            }
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of file; expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("unexpected \(describe(i)); expected ',' or ']'")
        }
    }

    mutating func number() throws(JSONSyntaxError) -> String {
        String(decoding: try numberBytes(), as: UTF8.self)
    }

    /// A number's literal, where it lies in the document.
    mutating func numberBytes() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8> {
        let start = i
        func digits(_ r: inout Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            let s = r
            while r < bytes.count, bytes[r] >= 0x30, bytes[r] <= 0x39 { r += 1 }
            return r - s
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 else { throw error("unexpected \(describe(i)) in a number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { throw error("a number cannot start with 0", at: start) }
        } else {
            _ = digits(&i, bytes)
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits(&i, bytes) > 0 else { throw error("unexpected \(describe(i)); expected digits after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits(&i, bytes) > 0 else { throw error("unexpected \(describe(i)); expected digits in the exponent") }
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<i])
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        let open = i
        i += 1
        var out = [UInt8]()
        var plainStart = i
        var bits: UInt8 = 0   // the bits set in any byte: below 0x80, all ASCII
        while true {
            guard i < bytes.count else { throw error("unterminated string", at: open) }
            let b = bytes[i]
            bits |= b
            if b == UInt8(ascii: "\"") {
                if out.isEmpty {   // no escapes: straight from the input
                    let plain = UnsafeBufferPointer(rebasing: bytes[plainStart..<i])
                    if bits < 0x80 {   // ASCII is UTF-8: nothing to check
                        i += 1
                        return String(decoding: plain, as: UTF8.self)
                    }
                    guard let s = String(validating: plain, as: UTF8.self) else {
                        throw error("a string is not valid UTF-8", at: open)
                    }
                    i += 1
                    return s
                }
                out.append(contentsOf: bytes[plainStart..<i])
                i += 1
                break
            }
            if b < 0x20 { throw error("control character in a string (write \\n, \\t or \\u00XX)") }
            if b != UInt8(ascii: "\\") { i += 1; continue }
            out.append(contentsOf: bytes[plainStart..<i])
            i += 1
            guard i < bytes.count else { throw error("unterminated string", at: open) }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("lone UTF-16 surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("lone UTF-16 surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw error("lone UTF-16 surrogate in \\u escape")
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                throw error("unknown escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: i - 2)
            }
            plainStart = i
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error("a string is not valid UTF-8", at: open) }
        return s
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("unexpected end of file in a \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw error("unexpected \(describe(i)) in a \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }
}

// MARK: Writing

extension JSONValue {
    /// The document for people and git: keys sorted, 2-space indent, one member or item per line,
    /// a trailing newline.
    public func pretty() -> String { String(decoding: prettyBytes(), as: UTF8.self) }

    /// `pretty()` as UTF-8, for a file. (Written as bytes: appending to a `String` checks and
    /// grows it at every piece, and a sidecar has tens of thousands of pieces.)
    public func prettyBytes() -> [UInt8] {
        var out = [UInt8]()
        write(into: &out, indent: 0, pretty: true)
        out.append(0x0A)
        return out
    }

    /// One line, keys sorted (for NDJSON and `--json` off a terminal).
    public func compact() -> String {
        var out = [UInt8]()
        write(into: &out, indent: 0, pretty: false)
        return String(decoding: out, as: UTF8.self)
    }

    static func newline(_ indent: Int, into out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent))
    }

    private func write(into out: inout [UInt8], indent: Int, pretty: Bool) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.utf8)
        case .string(let s): JSONValue.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { JSONValue.newline(indent + 2, into: &out) }
                item.write(into: &out, indent: indent + 2, pretty: pretty)
            }
            if pretty { JSONValue.newline(indent, into: &out) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            JSONValue.writeObject(members.count, members.sorted(by: { $0.key < $1.key }), into: &out, indent: indent, pretty: pretty) { member, out, indent in
                member.value.write(into: &out, indent: indent, pretty: pretty)
            }
        }
    }

    /// An object of `count` members given in key order, each value written by `value`: for
    /// writers that have their members in order already (a sidecar's markers), with no dictionary
    /// made and nothing sorted.
    static func writeObject<Value>(_ count: Int, _ members: some Sequence<(key: String, value: Value)>, into out: inout [UInt8],
                                   indent: Int, pretty: Bool, value: ((key: String, value: Value), inout [UInt8], Int) -> Void) {
        if count == 0 { out.append(contentsOf: "{}".utf8); return }
        out.append(UInt8(ascii: "{"))
        for (k, member) in members.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            if pretty { JSONValue.newline(indent + 2, into: &out) }
            JSONValue.quote(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            if pretty { out.append(0x20) }
            value(member, &out, indent + 2)
        }
        if pretty { JSONValue.newline(indent, into: &out) }
        out.append(UInt8(ascii: "}"))
    }

    /// `write` for this module's writers that put values inside members of their own.
    func writePretty(into out: inout [UInt8], indent: Int) { write(into: &out, indent: indent, pretty: true) }

    static func quote(_ s: String, into out: inout [UInt8]) {
        // (0xC2 and 0xE2 start the C1 controls and the bidirectional marks, which are escaped too,
        // so that JSON printed to a terminal stays JSON: nothing in it is left for
        // `terminalSafe` to show as `\u{…}`.)
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: their bytes are looked at in place and copied at once.
        func plain(_ c: UInt8) -> Bool {
            c >= 0x20 && c != 0x7F && c != 0xC2 && c != 0xE2 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\")
        }
        // (Swift's own strings are always contiguous; one that is not takes the loop below.)
        let copied = s.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.allSatisfy(plain) else { return false }
            out.append(contentsOf: bytes)
            return true
        } ?? false
        if copied {
            out.append(UInt8(ascii: "\""))
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out.append(contentsOf: "\\\"".utf8)
            case "\\": out.append(contentsOf: "\\\\".utf8)
            case "\n": out.append(contentsOf: "\\n".utf8)
            case "\r": out.append(contentsOf: "\\r".utf8)
            case "\t": out.append(contentsOf: "\\t".utf8)
            case _ where String.steers(u): out.append(contentsOf: cFormat("\\u%04x", u.value).utf8)
            default: UTF8.encode(u) { out.append($0) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
