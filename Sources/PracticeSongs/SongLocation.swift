// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// Where a song document or one of its files is: a local file or an http(s) URL.
public enum SongLocation: Sendable, Equatable, CustomStringConvertible {
    /// An absolute path.
    case local(String)
    /// An http or https URL.
    case remote(URL)

    /// A command line's SOURCE: an http(s) URL, a `file://` URL, or a path (relative to the
    /// current folder). Nil for another scheme or a URL without a host.
    public init?(source: String) {
        guard let scheme = Self.scheme(of: source) else {
            let absolute = source.hasPrefix("/") ? source : FileManager.default.currentDirectoryPath + "/" + source
            self = .local(Path.normalized(absolute))
            return
        }
        guard let url = URL(string: source) else { return nil }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { return nil }
            self = .remote(url)
        case "file": self = .local(url.path)
        default: return nil
        }
    }

    /// The scheme of `text` if it starts like a URL (`name://`), lowercased.
    static func scheme(of text: String) -> String? {
        guard let r = text.firstRange(of: "://") else { return nil }
        let name = text[..<r.lowerBound]
        guard let first = name.first, first.isASCII, first.isLetter,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) else { return nil }
        return name.lowercased()
    }

    /// The absolute URL: the cache's key is made from it.
    public var url: URL {
        switch self {
        case .local(let path): URL(fileURLWithPath: path)
        case .remote(let url): url
        }
    }

    /// How messages name it: the path, or the URL.
    public var description: String {
        switch self {
        case .local(let path): path
        case .remote(let url): url.absoluteString
        }
    }

    /// Resolves a document's link (`field`: `file` or `image`) against the document's location
    /// (after redirects): relative links as a browser would, absolute http(s) URLs as they are, and
    /// `file://` URLs and absolute paths as local files. A link that climbs out of its folder
    /// (a `..` segment, written or percent-encoded) is refused, whatever it points at.
    public func resolve(_ link: String, field: String, in document: String) throws(PracticeError) -> SongLocation {
        let quoted = JSONValue.string(link).compact()
        if Self.climbs(link) {
            throw PracticeError(.dataError, "\(document): '\(field)' would escape the cache folder (got \(quoted))")
        }
        // Characters a URL cannot hold (a space in a local document's path) are encoded first;
        // existing %XX escapes are kept.
        let encoded = Self.percentEncoded(link)
        guard let resolved = URL(string: encoded, relativeTo: url)?.absoluteURL else {
            throw PracticeError(.dataError, "\(document): '\(field)' is not a URL or a path (got \(quoted))")
        }
        switch resolved.scheme?.lowercased() {
        case "http", "https": if !(resolved.host ?? "").isEmpty { return .remote(resolved) }
        case "file":
            // A document from the web must not read this machine's files.
            if case .remote = self { throw PracticeError(.dataError, "\(document): '\(field)' points at a local file from a web document (got \(quoted))") }
            return .local(resolved.path)
        default: break
        }
        throw PracticeError(.dataError, "\(document): '\(field)' must be an http(s) URL or a path (got \(quoted))")
    }

    /// `text` with every byte a URL cannot hold as it is (not unreserved, reserved or `%`)
    /// written as %XX.
    static func percentEncoded(_ text: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".utf8)
        var out = ""
        for byte in text.utf8 {
            if allowed.contains(byte) { out.unicodeScalars.append(Unicode.Scalar(byte)) } else { out += cFormat("%%%02X", Int(byte)) }
        }
        return out
    }

    /// `text` with its %XX escapes decoded; nil when an escape is malformed or the bytes are not UTF-8.
    static func percentDecoded(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.next().flatMap({ UInt8(String(UnicodeScalar($0)), radix: 16) }),
                  let low = utf8.next().flatMap({ UInt8(String(UnicodeScalar($0)), radix: 16) }) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether a link's path has a segment that is `..` or holds a `/` once percent-decoded.
    static func climbs(_ link: String) -> Bool {
        var path = Substring(link)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if let r = path.firstRange(of: "://") { path = path[r.upperBound...].drop { $0 != "/" } }
        return path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let decoded = Self.percentDecoded(segment) ?? String(segment)
            return decoded == ".." || decoded.contains("/")
        }
    }

    /// The name of this file in the cache: the last segment of the path, percent-decoded, with
    /// control characters replaced by `_`. A name that is empty, `.`, `..` or holds a `/` is an
    /// error naming the document and the field.
    public func cacheName(field: String, in document: String) throws(PracticeError) -> String {
        let last: String
        switch self {
        case .local(let path):
            last = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        case .remote(let url):
            let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
            let segment = String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
            last = Self.percentDecoded(segment) ?? segment
        }
        if last == ".." || last.contains("/") {
            throw PracticeError(.dataError, "\(document): '\(field)' would escape the cache folder (got \(JSONValue.string(description).compact()))")
        }
        guard !last.isEmpty, last != "." else {
            throw PracticeError(.dataError, "\(document): '\(field)' names no file (got \(JSONValue.string(description).compact()))")
        }
        return String(String.UnicodeScalarView(last.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "_" : $0 }))
    }
}
