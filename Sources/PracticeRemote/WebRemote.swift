// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Glibc
import Synchronization
internal import NIOCore
internal import NIOHTTP1
internal import NIOWebSocket
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// The studio remote: a page on the local network that drives the player from a phone, live
/// both ways over a WebSocket, on the control protocol every controller speaks (`PlayerCommand`
/// in, the state's `full` message out).
///
/// Safe by design: it serves nothing to a browser that has not paired. Pairing is a one-time
/// token in the address the screen shows as a QR code (`PairingGate`), exchanged for a cookie
/// of the phone's own (`RemoteDevices`, HttpOnly, SameSite=Strict). Without that cookie every
/// request gets 401 and an empty body: no title, no file name, no state. The WebSocket also
/// wants the page's own Origin; at most `maxConnections` at once; a message over 4 kB, or one
/// that is not a command, closes its connection with the reason. Only its own assets are
/// served, by exact path. It listens on one LAN address (or `--remote-bind`), plain HTTP.
public final class WebRemote: SessionService, Sendable {
    public struct Settings: Sendable {
        /// `ADDR` or `ADDR:PORT` to listen on; nil: this machine's first LAN address, port 4797
        /// (or any free port when that one is taken).
        public var bind: String?
        /// The paired devices' file.
        public var devicesPath = RemoteDevices.standardPath
        public var maxConnections = 16
        /// The largest message a page may send, in bytes.
        public var maxMessage = 4_096
        /// How often an open page is pinged; one that has not answered by the next ping is closed.
        public var pingEvery: Duration = .seconds(10)
        /// How long a connection may say nothing before it is closed.
        public var idleTimeout: Duration = .seconds(60)
        public init() {}
    }

    public static let defaultPort = 4797

    let state: RemoteState
    private let server: RemoteServer

    /// `http://192.168.1.20:4797`: the page's origin.
    public var origin: String { state.origin }

    /// The address a phone opens to pair (the QR code's): in capitals, so that a QR code holds it
    /// in its compact alphanumeric mode. A new token once this one is used or 10 minutes old.
    public var pairingAddress: String { state.pairingAddress }

    /// Starts listening; returns once the address is bound, or throws why it could not be (exit
    /// 69, with the address). `notice` hears what the screen should say: a phone paired, pairing
    /// refused.
    public init(player: Player, settings: Settings = Settings(), notice: @escaping @Sendable (String) -> Void = { _ in }) throws(PracticeError) {
        let (host, port) = try Self.bindAddress(settings.bind)
        let state = RemoteState(player: player, settings: settings, devices: try RemoteDevices(path: settings.devicesPath), notice: notice)
        do throws(PracticeError) {
            do throws(PracticeError) {
                server = try RemoteServer.start(state, host: host, port: port)
            } catch where port == Self.defaultPort {
                server = try RemoteServer.start(state, host: host, port: 0)   // 4797 taken (another player's remote): any free port
            }
        } catch {
            state.feed.stop()
            throw error
        }
        state.setOrigin("http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)")
        self.state = state
    }

    /// Says to each page that the player has quit (waiting up to half a second for the words to
    /// go out), then stops serving.
    public func stop() {
        state.closeAll(within: 0.5, on: server.executor)
        state.feed.stop()
        server.stop()
    }

    public var replacement: String? { nil }
    public var quitBy: String? { nil }

    /// The address and port `--remote-bind` names (`ADDR`, `ADDR:PORT`, `[V6]:PORT`), or this
    /// machine's first LAN address; port 4797 when none is given.
    public static func bindAddress(_ bind: String?, named name: String = "'--remote-bind'") throws(PracticeError) -> (String, Int) {
        guard let bind else {
            guard let lan = LANAddress.first() else {
                throw PracticeError(.unavailable, "the remote: this machine has no LAN address (give '--remote-bind ADDR')")
            }
            return (lan, defaultPort)
        }
        var host = bind, portText: Substring?
        if bind.hasPrefix("["), let close = bind.firstIndex(of: "]") {
            host = String(bind[bind.index(after: bind.startIndex)..<close])
            let rest = bind[bind.index(after: close)...]
            if !rest.isEmpty { portText = rest.hasPrefix(":") ? rest.dropFirst() : rest }
        } else if bind.filter({ $0 == ":" }).count == 1, let colon = bind.firstIndex(of: ":") {
            host = String(bind[..<colon])
            portText = bind[bind.index(after: colon)...]
        }
        var port = defaultPort
        if let portText {
            guard let p = Int(portText), (0...65_535).contains(p) else {
                throw PracticeError(.usage, "\(name) takes ADDR or ADDR:PORT, a port from 0 to 65535 (got '\(bind.terminalSafe)')")
            }
            port = p
        }
        guard LANAddress.isNumeric(host) else {
            throw PracticeError(.usage, "\(name) takes a numeric address such as 192.168.1.20 (got '\(bind.terminalSafe)')")
        }
        return (host, port)
    }
}

/// The remote's state behind the server: the pairing gate, the paired devices, the open
/// connections; and how it answers each request.
final class RemoteState: Sendable {
    let player: Player
    /// What the pages are sent, worked out once for all of them.
    let feed: RemoteFeed
    let settings: WebRemote.Settings
    private let gate = Locked(PairingGate(now: 0))
    private let devices: Locked<(list: RemoteDevices, stamp: String)>
    private let connections = Locked<[Int: PageSocket]>([:])
    private let nextConnection = Atomic<Int>(0)
    /// Pages still connected, closed or not: their close handshake is over once this drops.
    private let serving = Atomic<Int>(0)
    private let originValue = Locked("")
    private let notice: @Sendable (String) -> Void
    private let clockStart = ContinuousClock.now
    static let cookieName = "practice_remote"

    init(player: Player, settings: WebRemote.Settings, devices: RemoteDevices, notice: @escaping @Sendable (String) -> Void) {
        self.player = player
        feed = RemoteFeed(player: player, devicesPath: settings.devicesPath)
        self.settings = settings
        self.devices = Locked((devices, FileStamp.of(settings.devicesPath)))
        self.notice = notice
    }

    var origin: String { originValue.withLock { $0 } }
    func setOrigin(_ o: String) { originValue.withLock { $0 = o } }

    private var now: Double {
        let d = ContinuousClock.now - clockStart
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    var pairingAddress: String {
        let token = gate.withLock { $0.current(now: now) }
        return origin.uppercased() + "/P/" + token
    }

    // MARK: Devices

    /// The paired device a request's cookie names, if any.
    func device(_ fields: HTTPHeaders) -> RemoteDevices.Device? {
        guard let cookie = Self.cookie(fields) else { return nil }
        return currentDevices().device(cookie: cookie)
    }

    /// The paired devices, the file read again when it has changed (`practice remote revoke`).
    func currentDevices() -> RemoteDevices {
        devices.withLock { d in
            let stamp = FileStamp.of(settings.devicesPath)
            if stamp != d.stamp, let fresh = try? RemoteDevices(path: settings.devicesPath) { d = (fresh, stamp) }
            return d.list
        }
    }

    static func cookie(_ fields: HTTPHeaders) -> String? {
        for header in fields["cookie"] {
            for part in header.split(separator: ";") {
                let kv = part.trimmingWhitespace().split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == cookieName { return String(kv[1]) }
            }
        }
        return nil
    }

    // MARK: HTTP

    /// An answer: its status, headers and body.
    struct Answer {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: String
    }

    /// Security headers on every answer: nothing cached, nothing framed, nothing sniffed, no
    /// script or connection but the page's own.
    private func answer(_ status: HTTPResponseStatus, _ body: String = "", type: String? = nil, extra: [(String, String)] = []) -> Answer {
        var headers = HTTPHeaders([
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"),
        ])
        if let type { headers.add(name: "Content-Type", value: type) }
        headers.add(contentsOf: extra)
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        return Answer(status: status, headers: headers, body: body)
    }

    /// A request's path: its target without the query.
    static func path(_ uri: String) -> Substring {
        uri[..<(uri.firstIndex { $0 == "?" || $0 == "#" } ?? uri.endIndex)]
    }

    func respond(_ request: HTTPRequestHead) -> Answer {
        let path = Self.path(request.uri)
        if path.hasPrefix("/P/") || path.hasPrefix("/p/") {
            return pair(token: String(path.dropFirst(3)).uppercased(), request: request)
        }
        guard device(request.headers) != nil else { return answer(.unauthorized) }
        guard request.method == .GET || request.method == .HEAD else { return answer(.methodNotAllowed) }
        // `/ws` without an upgrade: why it would be refused, to the paired phone only.
        if path == "/ws" { return answer(refusal(request.headers) ?? .badRequest) }
        guard let asset = RemotePage.assets[String(path)] else { return answer(.notFound) }
        return answer(.ok, asset.body, type: asset.type)
    }

    /// The answer to a WebSocket upgrade the server does not take: 400 and nothing else, whoever asks.
    func refusedUpgrade() -> Answer { answer(.badRequest) }

    /// Answers one connection's requests, one after the other, until the browser closes it (or
    /// asks for it to be closed).
    func serve(_ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>) async {
        try? await channel.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let h): head = h
                case .body: continue
                case .end:
                    guard let request = head.take() else { return }
                    var answer = respond(request)
                    let keepAlive = request.isKeepAlive
                    if !keepAlive { answer.headers.replaceOrAdd(name: "Connection", value: "close") }
                    let answerHead = HTTPResponseHead(version: .http1_1, status: answer.status, headers: answer.headers)
                    let body = request.method == .HEAD ? [] : [HTTPPart<HTTPResponseHead, ByteBuffer>.body(ByteBuffer(string: answer.body))]
                    try await outbound.write(contentsOf: [.head(answerHead)] + body + [.end(nil)])
                    if !keepAlive { return }
                }
            }
        }
    }

    private func pair(token: String, request: HTTPRequestHead) -> Answer {
        let outcome = gate.withLock { $0.attempt(token, now: now) }
        switch outcome {
        case .tooMany:
            notice("remote: pairing refused (more than \(gate.withLock { $0.attemptsPerMinute }) attempts in a minute)")
            return answer(.tooManyRequests)
        case .wrongToken, .expired:
            notice("remote: a pairing with a wrong or old code was refused")
            return answer(.unauthorized)
        case .paired:
            let kind = RemoteDevices.kind(userAgent: request.headers.first(name: "user-agent") ?? "")
            var list = currentDevices()
            let paired: (cookie: String, name: String)
            do { paired = try list.pair(kind: kind) } catch {
                notice("remote: cannot pair: \(error.message)")
                return answer(.internalServerError)
            }
            devices.withLock { $0 = (list, FileStamp.of(settings.devicesPath)) }
            notice("remote: paired \(paired.name)")
            let cookie = "\(Self.cookieName)=\(paired.cookie); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000"
            // A page of its own that goes on to the remote: the cookie, SameSite=Strict, is not
            // sent on a redirect that began in the camera's app, but is on this page's own navigation.
            return answer(.ok, RemotePage.paired, type: "text/html; charset=utf-8", extra: [("Set-Cookie", cookie)])
        }
    }

    // MARK: WebSocket

    /// Whether a request may become a WebSocket: the paired device, from the page's own origin,
    /// with room for it.
    func canUpgrade(_ request: HTTPRequestHead) -> Bool {
        Self.path(request.uri) == "/ws" && refusal(request.headers) == nil
    }

    /// Why a WebSocket with these headers is refused (no paired phone's cookie, another origin,
    /// no room), or nil.
    private func refusal(_ fields: HTTPHeaders) -> HTTPResponseStatus? {
        if device(fields) == nil { return .unauthorized }
        if fields.first(name: "origin") != origin { return .forbidden }
        if connections.withLock({ $0.count }) >= settings.maxConnections { return .serviceUnavailable }
        return nil
    }

    /// One page's connection: the markers and the state now, then each change; each message a
    /// command, as `practice ctl` sends it.
    func serve(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, head: HTTPRequestHead) async {
        let connection = channel.channel
        try? await channel.executeThenClose { inbound, outbound in
            let page = PageSocket(outbound, channel: connection)
            let id = nextConnection.add(1, ordering: .relaxed).newValue
            let device = device(head.headers)
            let admitted = device != nil && connections.withLock { c in
                guard c.count < settings.maxConnections else { return false }
                c[id] = page
                serving.add(1, ordering: .relaxed)
                return true
            }
            guard let device, admitted else {
                await page.close(device == nil ? .policyViolation : .init(codeNumber: 1013), device == nil ? "this phone was unpaired" : "too many connections")
                return
            }
            defer {
                _ = connections.withLock { $0.removeValue(forKey: id) }
                serving.subtract(1, ordering: .releasing)
            }
            let messages = feed.join()
            await withTaskGroup(of: Void.self) { group in
                // The page's view: the markers and the state now, then each change (`RemoteFeed`).
                group.addTask { [self] in
                    for await message in messages {
                        // A revoked phone is refused at once, mid-connection too; while nothing is
                        // sent, within a second (the feed's empty message: the devices' file changed).
                        guard paired(device) else {
                            await page.close(.policyViolation, "this phone was unpaired")
                            return
                        }
                        if message.isEmpty { continue }
                        do { try await page.send(message) } catch { return }
                    }
                    // The feed is over: the player has stopped (the server may not be told before the process ends).
                    if !Task.isCancelled { await page.close(.goingAway, "the player has quit") }
                }
                group.addTask { [settings] in await page.keepAlive(every: settings.pingEvery) }
                // The page's commands, until the connection ends.
                await page.read(inbound, maxSize: settings.maxMessage) { text in await perform(text, from: device, on: page) }
                group.cancelAll()
            }
        }
    }

    private func paired(_ device: RemoteDevices.Device) -> Bool {
        currentDevices().devices.contains { $0.key == device.key }
    }

    /// One command from a page, carried out as the command line would; refused as it would be.
    private func perform(_ text: String, from device: RemoteDevices.Device, on page: PageSocket) async {
        // A phone revoked a moment ago: none of its commands is carried out.
        guard paired(device) else {
            await page.close(.policyViolation, "this phone was unpaired")
            return
        }
        let command: PlayerCommand
        do throws(PracticeError) { command = try PlayerCommand.parse(text) } catch {
            await page.close(.unacceptableData, Self.reason(error.message))
            return
        }
        let reply: String?
        switch command {
        case .quit, .attach, .status, .remote:
            reply = StateMessage.errorLine(PracticeError(.usage, "the remote does not \(command == .quit ? "quit the player" : "take that command")"))
        default:
            do throws(PracticeError) { reply = try player.perform(command) } catch { reply = StateMessage.errorLine(error) }
        }
        if let reply { try? await page.send(reply) }
    }

    /// A close frame's reason: at most 123 bytes.
    static func reason(_ message: String) -> String {
        var out = ""
        for c in message where out.utf8.count + String(c).utf8.count <= 120 { out.append(c) }
        return out
    }

    /// Closes every page's connection ("the player has quit") and waits, up to `seconds`, until
    /// each page has answered the close: a browser whose connection ends before it has answered
    /// reports an abnormal closure (1006) instead, and the page would wait for the network.
    func closeAll(within seconds: Double, on executor: LoopExecutor) {
        let open = connections.withLock { c in defer { c.removeAll() }; return Array(c.values) }
        let deadline = ContinuousClock.now + .seconds(seconds)
        if !open.isEmpty {
            let sent = DispatchSemaphore(value: 0)
            Task(executorPreference: executor) {
                await withTaskGroup(of: Void.self) { group in
                    for page in open { group.addTask { await page.close(.goingAway, "the player has quit") } }
                }
                sent.signal()
            }
            _ = sent.wait(timeout: .now() + seconds)
        }
        while serving.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline { usleep(5_000) }
    }
}
