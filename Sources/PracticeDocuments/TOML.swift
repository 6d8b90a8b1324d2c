// SPDX-License-Identifier: GPL-3.0-or-later
internal import CToml
import Glibc

/// Why a document is not TOML, from toml++: its words and where (line and column from 1; 0 when
/// it does not say).
public struct TOMLError: Error, Equatable, Sendable {
    public var message: String
    public var line: Int
    public var column: Int
}

/// TOML documents, through toml++ (Debian's libtomlplusplus-dev).
public enum TOML {
    /// The document as one JSON object, so that the program reads it with its one JSON reader:
    /// tables become objects, arrays lists, dates and times strings.
    public static func json(from text: String) throws(TOMLError) -> String {
        var error = practice_toml_error()
        var bytes = Array(text.utf8)
        bytes.append(0)
        let json = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                practice_toml_to_json($0, buffer.count - 1, &error)
            }
        }
        guard let json else {
            let message = withUnsafeBytes(of: error.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            throw TOMLError(message: message, line: Int(error.line), column: Int(error.column))
        }
        defer { practice_toml_free(json) }
        return String(cString: json)
    }
}

extension TOML {
    /// Where the value at `key` (dotted: `library.folders`) is written in `text`: the range of its
    /// UTF-8 bytes, from its first character to just after its last; nil when there is no such
    /// value. For changing one value and keeping the rest of what a person wrote.
    public static func valueRange(of key: String, in text: String) throws(TOMLError) -> Range<Int>? {
        let bytes = Array(text.utf8)
        var region = practice_toml_region()
        let rc = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { practice_toml_value_region($0.baseAddress, $0.count, key, &region) }
        }
        if rc < 0 { _ = try json(from: text); throw TOMLError(message: "not TOML", line: 0, column: 0) }
        guard rc > 0 else { return nil }
        // Line and column (from 1, columns counting characters) to byte offsets.
        func offset(line: Int, column: Int) -> Int {
            var k = 0, l = 1
            while l < line, k < bytes.count { if bytes[k] == UInt8(ascii: "\n") { l += 1 }; k += 1 }
            var c = 1
            while c < column, k < bytes.count, bytes[k] != UInt8(ascii: "\n") {
                k += 1
                while k < bytes.count, bytes[k] & 0xC0 == 0x80 { k += 1 }
                c += 1
            }
            return k
        }
        let a = offset(line: Int(region.begin_line), column: Int(region.begin_column))
        let b = offset(line: Int(region.end_line), column: Int(region.end_column))
        return a < b ? a..<b : nil
    }
}
