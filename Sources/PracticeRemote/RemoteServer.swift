// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization
internal import CWebSockets
import PracticeDocuments
import PracticeSystem

/// The remote's HTTP/1.1 and WebSocket server, on libwebsockets (opened when the remote starts)
/// with one service thread (`practice-web`): every connection's requests, frames, pings and
/// closes are handled there, one callback at a time. What each request gets is decided by
/// `RemoteState`.
///
/// Limits: 8 kB of request headers in all (a request over it is closed unanswered, as
/// libwebsockets does), sent within 10 s of connecting; a WebSocket message of at most `Settings.maxMessage` (longer: 1009); text
/// that is not UTF-8 closes with 1007, a binary message with 1003, a message begun inside another
/// or a continuation of none with 1002 (libwebsockets' own check); a paired phone's connection
/// silent for `Settings.idleTimeout` (60 s) between its requests is closed, a stranger's after
/// each answer; at most 127 connections at once (the next waits), and at most
/// `Settings.connectionsPerAddress` (32) from one address (more are closed as they come); an open page is pinged
/// every `Settings.pingEvery` (10 s) and closed with 1001 when it has not answered the last ping.
final class RemoteServer: @unchecked Sendable {  // `pages`, `nextPage` and `peers` only on the service thread; `thread` written once in `start`
    /// The port bound (the one asked for, or the one the system chose for 0).
    let port: Int
    private let state: RemoteState
    private let api: UnsafeMutablePointer<practice_lws_api>
    /// The context while it is served (nil once the service thread has destroyed it): other
    /// threads wake the service thread under its lock.
    private let context = Locked<OpaquePointer?>(nil)
    private var thread: ControlThread?
    /// The one protocol (and the list's empty end), and the address: libwebsockets keeps pointers to both.
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let iface: UnsafeMutablePointer<CChar>
    private let stopping = Atomic<Bool>(false)
    /// Set by `closeAll`: the service thread closes every page when it next wakes.
    private let closingAll = Atomic<Bool>(false)
    /// Pages still connected, closed or not: their close handshake is over once this drops.
    private let serving = Atomic<Int>(0)
    private var pages: [Int: PageSocket] = [:]
    private var nextPage = 0
    /// The address each connection came from (`peer(of:)`), while it lasts: taken when
    /// libwebsockets offers the connection (`LWS_CALLBACK_FILTER_NETWORK_CONNECTION`), kept with
    /// the connection's wsi from its creation, which comes next (`LWS_CALLBACK_WSI_CREATE`), until
    /// its end (`LWS_CALLBACK_WSI_DESTROY`).
    private var peers: [OpaquePointer: [UInt8]] = [:]
    private var accepted: [UInt8]?

    private init(host: String, port: Int, state: RemoteState, api: UnsafeMutablePointer<practice_lws_api>) {
        iface = strdup(host)
        self.port = port
        self.state = state
        self.api = api
        protocols = .allocate(capacity: 2)
        protocols.initialize(to: lws_protocols(name: strdup("practice"), callback: remoteCallback, per_session_data_size: MemoryLayout<Int>.size,
                                               rx_buffer_size: 0, id: 0, user: nil, tx_packet_size: 0))
        (protocols + 1).initialize(to: lws_protocols())
    }

    deinit {
        free(iface)
        free(UnsafeMutablePointer(mutating: protocols.pointee.name))
        protocols.deinitialize(count: 2)
        protocols.deallocate()
    }

    /// libwebsockets' functions, opened once.
    nonisolated(unsafe) static let library: Result<UnsafeMutablePointer<practice_lws_api>, PracticeError> = {
        switch DynamicLibrary.load(practice_lws_api(), { practice_lws_load($0) }) {
        case .success(let api):
            api.pointee.set_log_level(0, nil)   // nothing on the terminal: what goes wrong is answered or closed
            return .success(api)
        case .failure(let problem):
            return .failure(PracticeError(.unavailable, "the remote: cannot open libwebsockets (\(problem.message)); install Debian's libwebsockets17"))
        }
    }()

    /// Listens on `host`:`port` (0: any free port) and serves `state` until `stop`; returns once
    /// the address is bound, or throws why it could not be.
    static func start(_ state: RemoteState, host: String, port: Int) throws(PracticeError) -> RemoteServer {
        let api = try library.get()
        // The address is bound here first, for the system's word on why it cannot be (and the
        // port it chose for 0): libwebsockets would wait for an address this machine does not
        // have, and says nothing of why a bind failed.
        let bound = try Self.probe(host: host, port: port)
        let server = RemoteServer(host: host, port: bound, state: state, api: api)
        let idle = max(1, Int(state.settings.idleTimeout.components.seconds))
        guard let context = practice_lws_server(api, server.iface, Int32(bound), host.contains(":") ? 1 : 0, server.protocols,
                                                Unmanaged.passUnretained(server).toOpaque(), Int32(idle), 8_192) else {
            throw PracticeError(.unavailable, "\(host):\(port): cannot listen for the remote (libwebsockets did not start)")
        }
        server.context.withLock { $0 = context }
        server.thread = ControlThread(name: "practice-web") { [server] in server.run() }
        return server
    }

    /// Binds `host`:`port` and lets it go: the port bound, or why it cannot be.
    private static func probe(host: String, port: Int) throws(PracticeError) -> Int {
        func failed(_ why: String) -> PracticeError {
            PracticeError(.unavailable, "\(host):\(port): cannot listen for the remote (\(why))")
        }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &found)
        guard rc == 0, let address = found else { throw failed(String(cString: gai_strerror(rc)).lowercased()) }
        defer { freeaddrinfo(found) }
        let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failed(systemMessage().lowercased()) }
        defer { Glibc.close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else { throw failed(systemMessage().lowercased()) }
        guard let bound = Self.address(of: fd, getsockname) else { throw failed(systemMessage().lowercased()) }
        return withUnsafeBytes(of: bound) { raw in
            Int(UInt16(bigEndian: Int32(bound.ss_family) == AF_INET6 ? raw.load(as: sockaddr_in6.self).sin6_port : raw.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// A socket's own address (`getsockname`) or its peer's (`getpeername`).
    private static func address(of fd: Int32, _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> sockaddr_storage? {
        var address = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &size) } }
        return got == 0 ? address : nil
    }

    /// The service thread: every callback runs here, until `stop`.
    private func run() {
        guard let served = context.withLock({ $0 }) else { return }
        while !stopping.load(ordering: .acquiring) { _ = api.pointee.service(served, 0) }
        context.withLock { $0 = nil }
        api.pointee.context_destroy(served)
    }

    /// Stops serving: every connection still open is dropped, and the service thread ends.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake()
        thread?.join()
    }

    /// Wakes the service thread (from any thread): pages with something to send ask to write.
    func wake() {
        context.withLock { if let c = $0 { api.pointee.cancel_service(c) } }
    }

    /// Closes every page's connection ("the player has quit") and waits, up to `seconds`, until
    /// each page has answered the close: a browser whose connection ends before it has answered
    /// reports an abnormal closure (1006) instead, and the page would wait for the network.
    func closeAll(within seconds: Double) {
        closingAll.store(true, ordering: .releasing)
        wake()
        let deadline = monotonicSeconds() + seconds
        while serving.load(ordering: .acquiring) > 0 && monotonicSeconds() < deadline { usleep(5_000) }
    }

    // MARK: The service thread's callbacks

    fileprivate func callback(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                              _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            // A connection just accepted (`input`: its socket), before anything is read from it.
            return admit(Int32(truncatingIfNeeded: Int(bitPattern: input))) ? 0 : -1
        case LWS_CALLBACK_WSI_CREATE:
            if let address = accepted { peers[wsi] = address }
            accepted = nil
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            peers[wsi] = nil
            return 0
        case LWS_CALLBACK_HTTP:
            return answer(wsi, request(wsi))
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            // Any other upgrade than these two has had libwebsockets' own 403 already (and `input`
            // may point into its freed header table): the connection is only closed.
            guard let upgrade = header(wsi, WSI_TOKEN_UPGRADE)?.lowercased(), upgrade == "websocket" || upgrade == "h2c" else { return -1 }
            if upgrade == "websocket", state.canUpgrade(request(wsi), openPages: openPages) { return 0 }
            // Refused (HTTP/2, a stranger, another origin, no room): 400, empty, closed.
            var refused = state.refusedUpgrade()
            refused.headers.append(("Connection", "close"))
            _ = write(refused, to: wsi, body: false)
            return -1
        case LWS_CALLBACK_ESTABLISHED:
            return open(wsi, user)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let page = page(user), !page.closed else { return 0 }
            return write(page)
        case LWS_CALLBACK_RECEIVE:
            guard let page = page(user) else { return 0 }
            return receive(page, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
        case LWS_CALLBACK_RECEIVE_PONG:
            page(user)?.unanswered = false
            return 0
        case LWS_CALLBACK_TIMER:
            guard let page = page(user), !page.closed, page.close == nil else { return 0 }
            // Pinged a period ago and not answered: closed.
            if page.unanswered { return close(page, 1001, "no answer to a ping") }
            page.unanswered = true
            page.pingDue = true
            _ = api.pointee.callback_on_writable(wsi)
            api.pointee.set_timer_usecs(wsi, lws_usec_t(state.settings.pingEvery.seconds * 1e6))
            return 0
        case LWS_CALLBACK_CLOSED:
            guard let user, let page = pages.removeValue(forKey: user.load(as: Int.self)) else { return 0 }
            if page.admitted, !page.closed { state.feed.leave(page.feedID) }
            serving.subtract(1, ordering: .releasing)
            return 0
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            let all = closingAll.load(ordering: .acquiring)
            for page in pages.values where !page.closed {
                if all, page.close == nil { page.close = (1001, "the player has quit") }
                if page.close != nil || page.hasOutgoing { _ = api.pointee.callback_on_writable(page.wsi) }
            }
            return 0
        case LWS_CALLBACK_RAW_ADOPT, LWS_CALLBACK_RAW_RX, LWS_CALLBACK_RAW_WRITEABLE:
            return -1   // CONNECT and the like: not a request this server takes
        default:
            return api.pointee.callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// Whether the connection on `fd` is taken: not when its address already holds
    /// `connectionsPerAddress` (libwebsockets then closes it, nothing said).
    private func admit(_ fd: Int32) -> Bool {
        accepted = nil
        guard let address = Self.peer(of: fd),
              peers.values.count(where: { $0 == address }) < state.settings.connectionsPerAddress else { return false }
        accepted = address
        return true
    }

    /// The address (family and bytes, not the port) a socket is connected to; nil for one that is not.
    private static func peer(of fd: Int32) -> [UInt8]? {
        guard let address = Self.address(of: fd, getpeername) else { return nil }
        return withUnsafeBytes(of: address) { raw -> [UInt8]? in
            switch Int32(address.ss_family) {
            case AF_INET: return [4] + withUnsafeBytes(of: raw.load(as: sockaddr_in.self).sin_addr) { Array($0) }
            case AF_INET6: return [6] + withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
            default: return nil
            }
        }
    }

    /// A request as `RemoteState` reads it, from the parsed headers.
    private func request(_ wsi: OpaquePointer) -> RemoteRequest {
        var uri: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        _ = api.pointee.http_get_uri_and_method(wsi, &uri, &uriLength)
        // Only GET and HEAD are answered as such; libwebsockets' index of the others depends on its build.
        let method = api.pointee.hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0 ? "GET"
            : api.pointee.hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0 ? "HEAD" : "other"
        return RemoteRequest(
            method: method,
            uri: uri.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(max(0, uriLength))), as: UTF8.self) } ?? "",
            cookie: header(wsi, WSI_TOKEN_HTTP_COOKIE),
            origin: header(wsi, WSI_TOKEN_ORIGIN),
            userAgent: header(wsi, WSI_TOKEN_HTTP_USER_AGENT),
            closes: header(wsi, WSI_TOKEN_CONNECTION)?.split(separator: ",").contains { $0.trimmingWhitespace().lowercased() == "close" } ?? false)
    }

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(api.pointee.hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var bytes = [CChar](repeating: 0, count: length + 1)
        let copied = Int(api.pointee.hdr_copy(wsi, &bytes, Int32(bytes.count), token))
        guard copied >= 0 else { return nil }
        return bytes.withUnsafeBytes { String(decoding: $0.prefix(copied), as: UTF8.self) }
    }

    /// Answers one HTTP request. A paired phone's connection stays for its next request unless
    /// it asked to be closed; a stranger's is closed after each answer, so that no slot is held
    /// for nothing (what is written goes out before the connection ends).
    private func answer(_ wsi: OpaquePointer, _ request: RemoteRequest) -> Int32 {
        var answer = state.respond(request, openPages: openPages)
        let closing = request.closes || state.device(cookie: request.cookie) == nil
        if closing { answer.headers.append(("Connection", "close")) }
        guard write(answer, to: wsi, body: request.method != "HEAD") else { return -1 }
        if closing { return -1 }
        return api.pointee.http_transaction_completed(wsi) == 0 ? 0 : -1
    }

    /// An answer's head and body, in one write (what the socket does not take now goes after).
    private func write(_ answer: RemoteState.Answer, to wsi: OpaquePointer, body: Bool) -> Bool {
        let pre = practice_lws_pre()
        let content = body ? Array(answer.body.utf8) : []
        let headSpace = 256 + answer.headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }
        var buffer = [UInt8](repeating: 0, count: pre + headSpace + content.count)
        return buffer.withUnsafeMutableBufferPointer { b -> Bool in
            let start = b.baseAddress! + pre
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = start + headSpace
            guard api.pointee.add_http_header_status(wsi, UInt32(answer.status) | UInt32(LWSAHH_FLAG_NO_SERVER_NAME), &p, end) == 0 else { return false }
            for (name, value) in answer.headers + [("Content-Length", String(answer.body.utf8.count))] {
                let added = (name + ":").withCString { n in
                    value.withCString { v in
                        api.pointee.add_http_header_by_name(wsi, UnsafeRawPointer(n).assumingMemoryBound(to: UInt8.self),
                                                            UnsafeRawPointer(v).assumingMemoryBound(to: UInt8.self), Int32(value.utf8.count), &p, end)
                    }
                }
                guard added == 0 else { return false }
            }
            guard api.pointee.finalize_http_header(wsi, &p, end) == 0, let at = p else { return false }
            at.update(from: content, count: content.count)
            let count = at + content.count - start
            return api.pointee.write(wsi, start, count, LWS_WRITE_HTTP_HEADERS) == count
        }
    }

    /// A WebSocket taken: the page joins the feed if its phone is still paired and there is room,
    /// else it is closed with why.
    private func open(_ wsi: OpaquePointer, _ user: UnsafeMutableRawPointer?) -> Int32 {
        guard let user else { return -1 }
        let device = state.device(cookie: header(wsi, WSI_TOKEN_HTTP_COOKIE))
        nextPage += 1
        let page = PageSocket(wsi: wsi, device: device)
        user.storeBytes(of: nextPage, as: Int.self)
        pages[nextPage] = page
        serving.add(1, ordering: .relaxed)
        if device == nil {
            page.close = (1008, "this phone was unpaired")
        } else if openPages >= state.settings.maxConnections {
            page.close = (1013, "too many connections")
        } else {
            page.admitted = true
            page.feedID = state.feed.join { [weak self, page] message in
                page.queue(message.map { .feed($0) } ?? .end)
                self?.wake()
            }
            api.pointee.set_timer_usecs(wsi, lws_usec_t(state.settings.pingEvery.seconds * 1e6))
        }
        if page.close != nil { _ = api.pointee.callback_on_writable(wsi) }
        return 0
    }

    /// One write a page may have waiting: its close, a ping, the next message.
    private func write(_ page: PageSocket) -> Int32 {
        let wsi = page.wsi
        if let (code, reason) = page.close { return close(page, code, reason) }
        if page.pingDue {
            page.pingDue = false
            if !send("practice", on: wsi, as: LWS_WRITE_PING) { return -1 }
        } else if let next = page.next() {
            switch next {
            case .end:
                return close(page, 1001, "the player has quit")
            case .feed(let message):
                // A revoked phone is refused at once, mid-connection too; while nothing is sent,
                // within a second (the feed's empty message: the devices' file changed).
                guard state.isPaired(page.device) else { return close(page, 1008, "this phone was unpaired") }
                if !message.isEmpty, !send(message, on: wsi, as: LWS_WRITE_TEXT) { return -1 }
            case .reply(let message):
                if !send(message, on: wsi, as: LWS_WRITE_TEXT) { return -1 }
            }
        }
        if page.pingDue || page.hasOutgoing { _ = api.pointee.callback_on_writable(wsi) }
        return 0
    }

    private func send(_ text: String, on wsi: OpaquePointer, as kind: lws_write_protocol) -> Bool {
        let pre = practice_lws_pre()
        var bytes = [UInt8](repeating: 0, count: pre) + Array(text.utf8)
        let count = bytes.count - pre
        return bytes.withUnsafeMutableBufferPointer { api.pointee.write(wsi, $0.baseAddress! + pre, count, kind) >= count }
    }

    /// Part of a page's message: its commands, each whole (at most `maxMessage` bytes, UTF-8
    /// text), carried out as the command line would.
    private func receive(_ page: PageSocket, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard !page.closed, page.close == nil else { return 0 }
        let wsi = page.wsi
        guard api.pointee.frame_is_binary(wsi) == 0 else { return close(page, 1003, "commands are JSON text") }
        page.message += bytes
        let limit = state.settings.maxMessage
        guard page.message.count <= limit else { return close(page, 1009, "a message is at most \(limit) bytes") }
        guard api.pointee.is_final_fragment(wsi) != 0 else { return 0 }
        defer { page.message = [] }
        guard let text = String(validating: page.message, as: UTF8.self) else { return close(page, 1007, "commands are UTF-8 text") }
        guard let device = page.device else { return close(page, 1008, "this phone was unpaired") }
        switch state.perform(text, from: device) {
        case .reply(let reply):
            if let reply {
                page.queue(.reply(reply))
                _ = api.pointee.callback_on_writable(wsi)
            }
            return 0
        case .close(let code, let reason):
            return close(page, code, reason)
        }
    }

    /// Closes a page's connection with `code` and `reason`: the close is sent now, and the
    /// connection ends when the page answers it (or after libwebsockets' wait for the answer).
    /// Nothing is sent to the page after it, nor asked of it: libwebsockets would write frames
    /// after the close, and a second close would end the connection before the page answers.
    private func close(_ page: PageSocket, _ code: UInt16, _ reason: String) -> Int32 {
        page.closed = true
        page.close = nil
        if page.admitted { state.feed.leave(page.feedID) }
        var bytes = Array(RemoteState.reason(reason).utf8)
        api.pointee.close_reason(page.wsi, lws_close_status(UInt32(code)), &bytes, bytes.count)
        return -1
    }

    /// The pages taken (the phone paired, room for it), open or closing: at most `maxConnections`.
    private var openPages: Int { pages.values.count { $0.admitted } }

    private func page(_ user: UnsafeMutableRawPointer?) -> PageSocket? {
        guard let user else { return nil }
        return pages[user.load(as: Int.self)]
    }
}

/// libwebsockets' one callback: handed to the server whose context it is.
private func remoteCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                            _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, case .success(let api) = RemoteServer.library, let context = api.pointee.get_context(wsi),
          let server = api.pointee.context_user(context) else { return 0 }
    return Unmanaged<RemoteServer>.fromOpaque(server).takeUnretainedValue().callback(wsi, reason, user, input, length)
}

/// One page's WebSocket: what waits to be sent to it (filled by the feed's thread and the service
/// thread), and the rest only on the service thread.
final class PageSocket: @unchecked Sendable {  // all but `outgoing` only on the service thread
    enum Outgoing {
        /// From the feed: sent once the phone is still paired (empty: only that looked at).
        case feed(String)
        /// An answer to one of its commands.
        case reply(String)
        /// The feed is over: the player has stopped.
        case end
    }

    let wsi: OpaquePointer
    let device: RemoteDevices.Device?
    var admitted = false
    var feedID = 0
    /// The message being received, its frames joined.
    var message: [UInt8] = []
    /// Pinged and not answered yet.
    var unanswered = false
    var pingDue = false
    /// The close to send (nothing else is sent after it is set).
    var close: (code: UInt16, reason: String)?
    /// The close has been sent: the connection waits for the page's answer, nothing more is sent.
    var closed = false
    private let outgoing = Locked<[Outgoing]>([])

    init(wsi: OpaquePointer, device: RemoteDevices.Device?) {
        self.wsi = wsi
        self.device = device
    }

    /// Queued to be sent. At most 64 of the feed's messages wait: the oldest gives way (a newer
    /// state says it again); answers to the page's commands and the end are always kept.
    func queue(_ item: Outgoing) {
        outgoing.withLock { q in
            if case .feed = item, q.count >= 64, let oldest = q.firstIndex(where: { if case .feed = $0 { true } else { false } }) {
                q.remove(at: oldest)
            }
            q.append(item)
        }
    }

    func next() -> Outgoing? { outgoing.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
    var hasOutgoing: Bool { outgoing.withLock { !$0.isEmpty } }
}
