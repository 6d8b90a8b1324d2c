// SPDX-License-Identifier: GPL-3.0-or-later
internal import CCurl
import Glibc
import PracticeSystem

/// An error from libcurl, or from opening it: what went wrong, in libcurl's words or ours.
public struct CurlError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// libcurl.so.4 could not be opened (not installed).
        case unavailable
        /// The host name did not resolve.
        case cannotResolve
        /// No connection to the server.
        case cannotConnect
        /// No answer or data for longer than the idle timeout.
        case timedOut
        /// More redirects than allowed.
        case tooManyRedirects
        /// The connection broke off before the whole body came.
        case brokenOff
        /// The caller stopped the transfer (its body handler said no, or it was cancelled).
        case stopped
        case other
    }
    public let kind: Kind
    /// libcurl's CURLcode (-1 when libcurl could not be opened).
    public let code: Int32
    public let message: String
    /// Body bytes received before the failure, and how many the server announced.
    public let received: Int64
    public let expected: Int64?

    public var description: String { "\(message) (libcurl \(code))" }
}

/// One HTTP(S) GET through libcurl, run on the calling thread. It follows up to
/// `maximumRedirects` redirects (http and https only), and gives up when neither an answer nor
/// data came for `idleTimeout` seconds, however long the whole transfer takes. An HTTP error
/// status is an answer, not an error: the response says it, and no body is delivered.
///
/// libcurl is opened with dlopen on the first transfer, so a process that never fetches anything
/// never maps it (nor the TLS and authentication libraries it links).
public struct HTTPGet: Sendable {
    public var url: String
    public var userAgent = "practice"
    public var idleTimeout: Double = 30
    public var maximumRedirects = 10

    public init(url: String) { self.url = url }

    /// What the server answered, after redirects.
    public struct Response: Sendable {
        public var status: Int
        /// The URL that answered (the last redirect's target).
        public var url: String
        /// The body's length, when the server said it.
        public var expectedLength: Int64?
        public var received: Int64
    }

    /// Runs the transfer. `body` gets each piece of the body in order, with the response so far;
    /// returning false stops the transfer (a `.stopped` error). `isCancelled` is asked several
    /// times a second, from this thread; true stops the transfer the same way.
    public func run(isCancelled: () -> Bool = { false },
                    body: (UnsafeRawBufferPointer, Response) -> Bool) throws(CurlError) -> Response {
        let api = try Curl.api()
        guard let handle = api.pointee.easy_init() else {
            throw CurlError(kind: .other, code: -1, message: "libcurl could not start a transfer", received: 0, expected: nil)
        }
        defer { api.pointee.easy_cleanup(handle) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }

        return try withoutActuallyEscaping(body) { body throws(CurlError) -> Response in
            try withoutActuallyEscaping(isCancelled) { isCancelled throws(CurlError) -> Response in
                let transfer = Transfer(api: api, handle: handle, idleTimeout: idleTimeout, body: body, isCancelled: isCancelled)
                return try withExtendedLifetime(transfer) { () throws(CurlError) -> Response in
                    let context = Unmanaged.passUnretained(transfer).toOpaque()
                    practice_curl_set_string(api, handle, CURLOPT_URL, url)
                    practice_curl_set_string(api, handle, CURLOPT_USERAGENT, userAgent)
                    practice_curl_set_string(api, handle, CURLOPT_PROTOCOLS_STR, "http,https")
                    practice_curl_set_string(api, handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
                    practice_curl_set_long(api, handle, CURLOPT_NOSIGNAL, 1)
                    practice_curl_set_long(api, handle, CURLOPT_FOLLOWLOCATION, 1)
                    practice_curl_set_long(api, handle, CURLOPT_MAXREDIRS, maximumRedirects)
                    practice_curl_set_long(api, handle, CURLOPT_FAILONERROR, 1)
                    practice_curl_set_long(api, handle, CURLOPT_CONNECTTIMEOUT_MS, Int(idleTimeout * 1000))
                    practice_curl_set_pointer(api, handle, CURLOPT_ERRORBUFFER, errorBuffer)
                    practice_curl_set_write(api, handle, Transfer.write)
                    practice_curl_set_pointer(api, handle, CURLOPT_WRITEDATA, context)
                    practice_curl_set_long(api, handle, CURLOPT_NOPROGRESS, 0)
                    practice_curl_set_progress(api, handle, Transfer.progress)
                    practice_curl_set_pointer(api, handle, CURLOPT_XFERINFODATA, context)

                    let rc = api.pointee.easy_perform(handle)
                    let response = transfer.response()
                    if rc == CURLE_OK || rc == CURLE_HTTP_RETURNED_ERROR { return response }
                    let kind: CurlError.Kind = switch rc {
                    case _ where transfer.timedOut, CURLE_OPERATION_TIMEDOUT: .timedOut
                    case _ where transfer.stopped: .stopped
                    case CURLE_COULDNT_RESOLVE_HOST: .cannotResolve
                    case CURLE_COULDNT_CONNECT: .cannotConnect
                    case CURLE_TOO_MANY_REDIRECTS: .tooManyRedirects
                    case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING: .brokenOff
                    default: .other
                    }
                    let detail = String(cString: errorBuffer)
                    let message = detail.isEmpty ? Curl.message(api, rc) : detail
                    throw CurlError(kind: kind, code: Int32(rc.rawValue), message: message,
                                    received: response.received, expected: response.expectedLength)
                }
            }
        }
    }
}

/// libcurl's functions, opened once.
private enum Curl {
    /// The loaded library, or why it could not be loaded. Written once, then only read.
    nonisolated(unsafe) private static let loaded: Result<UnsafeMutablePointer<practice_curl_api>, CurlError> = {
        let api: UnsafeMutablePointer<practice_curl_api>
        switch DynamicLibrary.load(practice_curl_api(), { practice_curl_load($0) }) {
        case .success(let table): api = table
        case .failure(let problem):
            return .failure(CurlError(kind: .unavailable, code: -1, message: "cannot open libcurl (\(problem.message)); install Debian's libcurl4",
                                      received: 0, expected: nil))
        }
        let rc = api.pointee.global_init(Int(CURL_GLOBAL_DEFAULT))
        guard rc == CURLE_OK else {
            return .failure(CurlError(kind: .unavailable, code: Int32(rc.rawValue),
                                      message: "libcurl did not start: \(Curl.message(api, rc))",
                                      received: 0, expected: nil))
        }
        return .success(api)
    }()

    /// libcurl's words for a code.
    static func message(_ api: UnsafeMutablePointer<practice_curl_api>, _ rc: CURLcode) -> String {
        api.pointee.easy_strerror(rc).map { String(cString: $0) } ?? "libcurl error \(rc.rawValue)"
    }

    static func api() throws(CurlError) -> UnsafeMutablePointer<practice_curl_api> { try loaded.get() }
}

/// One transfer's state, reached from libcurl's callbacks through their user pointer.
private final class Transfer {
    let api: UnsafeMutablePointer<practice_curl_api>
    let handle: UnsafeMutableRawPointer
    let idleTimeout: Double
    let body: (UnsafeRawBufferPointer, HTTPGet.Response) -> Bool
    let isCancelled: () -> Bool
    var received: Int64 = 0
    var lastActivity = monotonicSeconds()
    var timedOut = false
    var stopped = false

    init(api: UnsafeMutablePointer<practice_curl_api>, handle: UnsafeMutableRawPointer, idleTimeout: Double,
         body: @escaping (UnsafeRawBufferPointer, HTTPGet.Response) -> Bool, isCancelled: @escaping () -> Bool) {
        self.api = api; self.handle = handle; self.idleTimeout = idleTimeout; self.body = body; self.isCancelled = isCancelled
    }


    func response() -> HTTPGet.Response {
        var status = 0
        practice_curl_get_long(api, handle, CURLINFO_RESPONSE_CODE, &status)
        var length: curl_off_t = -1
        practice_curl_get_offset(api, handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        var url: UnsafePointer<CChar>?
        practice_curl_get_string(api, handle, CURLINFO_EFFECTIVE_URL, &url)
        return HTTPGet.Response(status: status, url: url.map { String(cString: $0) } ?? "",
                                expectedLength: length >= 0 ? Int64(length) : nil, received: received)
    }

    static let write: curl_write_callback = { data, size, count, context in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        let bytes = size * count
        transfer.received += Int64(bytes)
        transfer.lastActivity = monotonicSeconds()
        guard transfer.body(UnsafeRawBufferPointer(start: data, count: bytes), transfer.response()) else {
            transfer.stopped = true
            return 0   // fewer bytes than given: libcurl stops with CURLE_WRITE_ERROR
        }
        return bytes
    }

    static let progress: curl_xferinfo_callback = { context, _, downloaded, _, _ in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        if transfer.isCancelled() {
            transfer.stopped = true
            return 1
        }
        if monotonicSeconds() - transfer.lastActivity > transfer.idleTimeout {
            transfer.timedOut = true
            return 1
        }
        return 0
    }
}
