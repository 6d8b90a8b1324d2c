import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLSession on Linux, over the system's libcurl
#endif
import Synchronization
import PracticeDocuments
import PracticeEngine

/// Copies a song's files into the cache: http(s) URLs through URLSession, local files with a
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
        let size = ((try? FileManager.default.attributesOfItem(atPath: source)[.size]) as? NSNumber)?.int64Value ?? 0
        if let limit, size > limit { throw Self.tooLarge(name, limit) }
        do { try FileManager.default.copyItem(atPath: source, toPath: path) } catch {
            throw PracticeError(.ioError, "\(name): cannot copy it into the cache: \((error as NSError).localizedDescription)")
        }
        return Fetched(location: .local(source), bytes: size)
    }

    /// FoundationNetworking makes an empty `org.swift.foundation.URLCache/practice` folder in the
    /// user's cache for every session configuration (`.default` and `.ephemeral` both create a
    /// `URLCache`; swift-corelibs-foundation 6.x), though we keep no HTTP cache: remove it again if empty.
    static func removeEmptyURLCacheFolder() {
        guard let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first else { return }
        let folder = caches.appendingPathComponent("org.swift.foundation.URLCache")
        rmdir(folder.appendingPathComponent(ProcessInfo.processInfo.processName).path)
        rmdir(folder.path)
    }

    static func tooLarge(_ name: String, _ limit: Int64) -> PracticeError {
        PracticeError(.dataError, "\(name): too large for a song document (over \(limit >> 20) MiB)")
    }

    private func download(_ url: URL, name: String, to path: String, limit: Int64?,
                          progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws(PracticeError) -> Fetched {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PracticeError(.cannotCreate, "\(path): cannot create: \(systemMessage())") }
        defer { close(fd) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Our watchdog below owns timeouts: FoundationNetworking's request timeout runs from the
        // start of the transfer (swift-corelibs-foundation, HTTPURLProtocol.swift: "the timeout
        // value needs to be reset on every data transfer"), so it would cut off a long download.
        configuration.timeoutIntervalForRequest = 86_400
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let transfer = Transfer(fd: fd, name: name, path: path, limit: limit, maximumRedirects: maximumRedirects, progress: progress)
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: queue)
        defer {
            session.finishTasksAndInvalidate()
            Self.removeEmptyURLCacheFolder()
        }
        var request = URLRequest(url: url)
        request.setValue("practice/0.1", forHTTPHeaderField: "User-Agent")
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")   // progress counts the bytes on the wire
        let task = session.dataTask(with: request)

        let timeout = timeout
        let watchdog = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                if transfer.secondsIdle > timeout {
                    let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
                    transfer.fail(PracticeError(.unavailable, "\(name): timed out (no answer or data for \(seconds) s)"))
                    task.cancel()
                    return
                }
            }
        }
        defer { watchdog.cancel() }
        let error = await withTaskCancellationHandler {
            await withCheckedContinuation { transfer.start(task, continuation: $0) }
        } onCancel: {
            task.cancel()
        }
        return try transfer.result(error: error, url: url)
    }
}

/// One download's delegate: writes the body to a file and keeps what the watchdog and the result
/// need. URLSession calls it on one serial queue; the watchdog reads it from another thread.
private final class Transfer: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var response: HTTPURLResponse?
        var received: Int64 = 0
        var redirects = 0
        var lastActivity = ContinuousClock.now
        /// A failure we decided on (a timeout, too many redirects, an HTTP error, a write error).
        var failure: PracticeError?
        var continuation: CheckedContinuation<(any Error)?, Never>?
    }
    private let state = Mutex(State())
    private let fd: Int32
    private let name: String
    private let path: String
    private let limit: Int64?
    private let maximumRedirects: Int
    private let progress: @Sendable (Int64, Int64?) -> Void

    init(fd: Int32, name: String, path: String, limit: Int64?, maximumRedirects: Int, progress: @escaping @Sendable (Int64, Int64?) -> Void) {
        self.fd = fd; self.name = name; self.path = path; self.limit = limit; self.maximumRedirects = maximumRedirects
        self.progress = progress
    }

    func start(_ task: URLSessionTask, continuation: CheckedContinuation<(any Error)?, Never>) {
        state.withLock { $0.continuation = continuation; $0.lastActivity = .now }
        task.resume()
    }

    var secondsIdle: Double {
        let (s, atto) = (ContinuousClock.now - state.withLock { $0.lastActivity }).components
        return Double(s) + Double(atto) / 1e18
    }

    /// Records the first failure; later ones are consequences of it.
    func fail(_ error: PracticeError) { state.withLock { if $0.failure == nil { $0.failure = error } } }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let follow = state.withLock { s in
            s.redirects += 1
            s.lastActivity = .now
            return s.redirects <= maximumRedirects
        }
        // Not followed, the redirect becomes the response, which the failure then turns down.
        // (Cancelling here crashes FoundationNetworking: it then gets a callback it no longer expects.)
        if !follow { fail(PracticeError(.unavailable, "\(name): too many redirects (more than \(maximumRedirects))")) }
        completionHandler(follow ? request : nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        let failed = state.withLock { $0.response = http; $0.lastActivity = .now; return $0.failure != nil }
        var failure: PracticeError?
        if let http, !(200..<300).contains(http.statusCode) {
            let kind: PracticeError.Kind = [404, 410].contains(http.statusCode) ? .noInput : .unavailable
            failure = PracticeError(kind, "\(name): HTTP \(http.statusCode)\(Self.reason(http.statusCode).map { " " + $0 } ?? "")")
        } else if let limit, response.expectedContentLength > limit {
            failure = Fetcher.tooLarge(name, limit)
        }
        guard !failed, let failure else { return completionHandler(.allow) }
        fail(failure)
        // FoundationNetworking ignores a .cancel disposition (it cannot pause libcurl), so cancel the task too.
        dataTask.cancel()
        completionHandler(.cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (ok, total, expected) = state.withLock { s -> (Bool, Int64, Int64?) in
            guard s.failure == nil else { return (false, s.received, nil) }
            s.received += Int64(data.count)
            s.lastActivity = .now
            let length = s.response?.expectedContentLength ?? -1
            return (true, s.received, length >= 0 ? length : nil)
        }
        guard ok else { return }
        if let limit, total > limit {
            fail(Fetcher.tooLarge(name, limit))
            dataTask.cancel()
            return
        }
        let written = data.withUnsafeBytes { raw -> Bool in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 { if errno == EINTR { continue }; return false }
                done += n
            }
            return true
        }
        guard written else {
            fail(PracticeError(.ioError, "\(path): cannot write: \(systemMessage())"))
            dataTask.cancel()
            return
        }
        progress(total, expected)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = state.withLock { s in
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(returning: error)
    }

    /// What the finished transfer amounts to: where it came from, or the error to report.
    func result(error: (any Error)?, url: URL) throws(PracticeError) -> Fetcher.Fetched {
        let s = state.withLock { $0 }
        if let failure = s.failure { throw failure }
        if let error {
            let code = (error as NSError).code
            let reason = switch code {
            case NSURLErrorCancelled: "cancelled"
            case NSURLErrorTimedOut: "timed out"
            case NSURLErrorCannotConnectToHost: "cannot connect to the server"
            case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: "cannot find the server \(url.host ?? "")"
            case NSURLErrorNetworkConnectionLost: "the connection was lost after \(s.received) bytes"
            case NSURLErrorNotConnectedToInternet: "no network connection"
            default: (error as NSError).localizedDescription
            }
            throw PracticeError(.unavailable, "\(name): \(reason)")
        }
        guard let response = s.response else { throw PracticeError(.unavailable, "\(name): the server sent no response") }
        let expected = response.expectedContentLength
        if expected >= 0, s.received != expected {
            throw PracticeError(.unavailable, "\(name): the transfer broke off after \(s.received) of \(expected) bytes")
        }
        return Fetcher.Fetched(location: .remote(response.url ?? url), bytes: s.received)
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
