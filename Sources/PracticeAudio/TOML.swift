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
