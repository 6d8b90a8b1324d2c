// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import Synchronization
import PracticeDocuments
import PracticeEngine

/// Copies a song's files into the cache: http(s) URLs through libcurl (`HTTPGet`), local files with a
/// plain copy. Every failure is a `PracticeError` naming the URL or path: 66 for a missing file
/// (HTTP 404 and 410 included), 69 for the network (no connection, a timeout, too many
/// redirects, any other HTTP error), 65 for a document over `limit`, 74 when writing fails.
public struct Fetcher: Sendable {
    /// Seconds to wait for a connection, and then for more data, before giving up.
    public var timeout: Double
    /// Redirects followed before giving up.
    public var maximumRedirects = 10

    public init(timeout: Double = 30) { self.timeout = timeout }

    /// What a fetch got.
    public struct Fetched: Sendable {
        /// Where the data came from in the end (after redirects): relative links resolve against it.
        public var location: SongLocation
        public var bytes: Int64
    }

    /// Fetches `location` into a new file at `path`; `name` is how errors name the source.
    /// `limit` is the most bytes accepted (more is a data error). `progress` gets the bytes so
    /// far and the size when the server told it, from any thread.
    public func fetch(_ location: SongLocation, name: String, to path: String, limit: Int64? = nil,
                      progress: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in }) async throws(PracticeError) -> Fetched {
        switch location {
        case .local(let source): return try copy(source, name: name, to: path, limit: limit)
        case .remote(let url): return try await download(url, name: name, to: path, limit: limit, progress: progress)
        }
    }

    private func copy(_ source: String, name: String, to path: String, limit: Int64?) throws(PracticeError) -> Fetched {
        try ReadableFile.check(source, name: name)
        var info = stat()
        let size = stat(source, &info) == 0 ? Int64(info.st_size) : 0
        if let limit, size > limit { throw Self.tooLarge(name, limit) }
        do { try FileManager.default.copyItem(atPath: source, toPath: path) } catch {
            throw PracticeError(.ioError, "\(name): cannot copy it into the cache: \(systemMessage(for: error))")
        }
        return Fetched(location: .local(source), bytes: size)
    }

    static func tooLarge(_ name: String, _ limit: Int64) -> PracticeError {
        PracticeError(.dataError, "\(name): too large for a song document (over \(limit >> 20) MiB)")
    }

    private func download(_ url: URL, name: String, to path: String, limit: Int64?,
                          progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws(PracticeError) -> Fetched {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PracticeError(.cannotCreate, "\(path): cannot create: \(systemMessage())") }
        defer { close(fd) }

        var get = HTTPGet(url: url.absoluteString)
        get.userAgent = "practice/0.1"
        get.idleTimeout = timeout
        get.maximumRedirects = maximumRedirects
        // The transfer blocks this thread; a cancelled task stops it at libcurl's next progress call.
        let cancelled = Atomic<Bool>(false)
        var failure: PracticeError?
        let result = await withTaskCancellationHandler {
            Result { () throws(CurlError) -> HTTPGet.Response in
                try get.run(isCancelled: { cancelled.load(ordering: .relaxed) }) { data, response in
                    if let limit, (response.expectedLength ?? 0) > limit || response.received > limit {
                        failure = Self.tooLarge(name, limit)
                        return false
                    }
                    guard Self.writeAll(fd, data) else {
                        failure = PracticeError(.ioError, "\(path): cannot write: \(systemMessage())")
                        return false
                    }
                    progress(response.received, response.expectedLength)
                    return true
                }
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
        if let failure { throw failure }
        switch result {
        case .success(let response):
            guard (200..<300).contains(response.status) else {
                let kind: PracticeError.Kind = [404, 410].contains(response.status) ? .noInput : .unavailable
                throw PracticeError(kind, "\(name): HTTP \(response.status)\(Self.reason(response.status).map { " " + $0 } ?? "")")
            }
            return Fetched(location: .remote(URL(string: response.url) ?? url), bytes: response.received)
        case .failure(let error):
            let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
            let reason = switch error.kind {
            case .timedOut: "timed out (no answer or data for \(seconds) s)"
            case .stopped: "cancelled"
            case .cannotConnect: "cannot connect to the server"
            case .cannotResolve: "cannot find the server \(url.host ?? "")"
            case .tooManyRedirects: "too many redirects (more than \(maximumRedirects))"
            case .brokenOff:
                if let expected = error.expected { "the transfer broke off after \(error.received) of \(expected) bytes" }
                else { "the connection was lost after \(error.received) bytes" }
            case .unavailable, .other: error.message
            }
            throw PracticeError(.unavailable, "\(name): \(reason)")
        }
    }

    private static func writeAll(_ fd: Int32, _ data: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < data.count {
            let n = write(fd, data.baseAddress! + done, data.count - done)
            if n < 0 { if errno == EINTR { continue }; return false }
            done += n
        }
        return true
    }

    /// The standard reason phrase (RFC 9110) of an HTTP status.
    static func reason(_ status: Int) -> String? {
        let phrases = [400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
                       405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
                       408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
                       413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
                       417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content", 425: "Too Early",
                       426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
                       431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
                       500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
                       504: "Gateway Timeout", 505: "HTTP Version Not Supported", 300: "Multiple Choices", 304: "Not Modified"]
        return phrases[status]
    }
}
