// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Dispatch
import Glibc
import Synchronization
internal import Hummingbird
internal import HummingbirdCore
internal import HummingbirdWebSocket
internal import Logging
internal import NIOCore
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
        public init() {}
    }

    public static let defaultPort = 4797

    let state: RemoteState
    private let task: Task<Void, Never>

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
        var started = Self.start(state, host: host, port: port)
        if case .failure = started, port == Self.defaultPort {
            started = Self.start(state, host: host, port: 0)   // 4797 taken (another player's remote): any free port
        }
        switch started {
        case .success(let (task, bound)):
            self.task = task
            state.setOrigin("http://\(host.contains(":") ? "[\(host)]" : host):\(bound)")
        case .failure(let error):
            state.feed.stop()
            throw error
        }
        self.state = state
    }

    /// Says to each page that the player has quit (waiting up to half a second for the words to
    /// go out), then stops serving.
    public func stop() {
        state.closeAll(within: 0.5)
        state.feed.stop()
        task.cancel()
    }

    public var replacement: String? { nil }
    public var quitBy: String? { nil }

    /// Runs the server on `host`:`port` (0: any free port) until its task is cancelled; the task
    /// and the port bound, once it listens.
    private static func start(_ state: RemoteState, host: String, port: Int) -> Result<(Task<Void, Never>, Int), PracticeError> {
        let outcome = Locked<Result<Int, PracticeError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let app = state.application(host: host, port: port) { bound in
            outcome.withLock { $0 = .success(bound) }
            ready.signal()
        }
        let task = Task.detached {
            do { try await app.run() } catch {
                outcome.withLock { if $0 == nil { $0 = .failure(PracticeError(.unavailable, "\(host):\(port): cannot listen for the remote (\(Self.describe(error)))")) } }
                ready.signal()
            }
        }
        ready.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let bound): return .success((task, bound))
        case .failure(let error): task.cancel(); return .failure(error)
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? IOError { return String(cString: strerror(e.errnoCode)).lowercased() }
        return "\(error)"
    }

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
    private let connections = Locked<[Int: WebSocketOutboundWriter]>([:])
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
    func device(_ fields: HTTPFields) -> RemoteDevices.Device? {
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

    static func cookie(_ fields: HTTPFields) -> String? {
        for header in fields[values: .cookie] {
            for part in header.split(separator: ";") {
                let kv = part.trimmingWhitespace().split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0] == cookieName { return String(kv[1]) }
            }
        }
        return nil
    }

    // MARK: HTTP

    func application(host: String, port: Int, running: @escaping @Sendable (Int) -> Void) -> Application<CallbackResponder<BasicRequestContext>> {
        var http1 = HTTP1Channel.Configuration(idleTimeout: .seconds(60))
        http1.httpDecoder = .init(maxHeaderFieldSize: 4_096, maxHeaderListSize: 16_384, maxHeaderFieldCount: 64)
        let ws = WebSocketServerConfiguration(maxFrameSize: settings.maxMessage, autoPing: .enabled(timePeriod: .seconds(10)), validateUTF8: true)
        let responder = CallbackResponder<BasicRequestContext> { [self] request, _ in respond(request) }
        return Application(
            responder: responder,
            server: .http1WebSocketUpgrade(configuration: .init(http1: http1, ws: ws)) { [self] request, _, _ in
                guard let device = canUpgrade(request) else { return .dontUpgrade }
                return .upgrade([:]) { [self] inbound, outbound, _ in await serve(inbound, outbound, device: device) }
            },
            configuration: .init(address: .hostname(host, port: port), serverName: nil, reuseAddress: true),
            onServerRunning: { channel in running(channel.localAddress?.port ?? port) },
            logger: Logger(label: "practice-remote") { _ in SwiftLogNoOpLogHandler() })
    }

    /// Security headers on every answer: nothing cached, nothing framed, nothing sniffed, no
    /// script or connection but the page's own.
    private func answer(_ status: HTTPResponse.Status, _ body: String = "", type: String? = nil, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [
            .cacheControl: "no-store",
            .init("X-Content-Type-Options")!: "nosniff",
            .init("X-Frame-Options")!: "DENY",
            .init("Referrer-Policy")!: "no-referrer",
            .contentSecurityPolicy: "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
        ]
        if let type { headers[.contentType] = type }
        headers.append(contentsOf: extra)
        headers[.contentLength] = String(body.utf8.count)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    func respond(_ request: Request) -> Response {
        let path = request.uri.path
        if path.hasPrefix("/P/") || path.hasPrefix("/p/") {
            return pair(token: String(path.dropFirst(3)).uppercased(), request: request)
        }
        guard device(request.headers) != nil else { return answer(.unauthorized) }
        guard request.method == .get || request.method == .head else { return answer(.methodNotAllowed) }
        // `/ws` without an upgrade: why it would be refused, to the paired phone only.
        if path == "/ws" { return answer(refusal(request.headers) ?? .badRequest) }
        guard let asset = RemotePage.assets[path] else { return answer(.notFound) }
        return answer(.ok, asset.body, type: asset.type)
    }

    private func pair(token: String, request: Request) -> Response {
        let outcome = gate.withLock { $0.attempt(token, now: now) }
        switch outcome {
        case .tooMany:
            notice("remote: pairing refused (more than \(gate.withLock { $0.attemptsPerMinute }) attempts in a minute)")
            return answer(.tooManyRequests)
        case .wrongToken, .expired:
            notice("remote: a pairing with a wrong or old code was refused")
            return answer(.unauthorized)
        case .paired:
            let kind = RemoteDevices.kind(userAgent: request.headers[.userAgent] ?? "")
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
            return answer(.ok, RemotePage.paired, type: "text/html; charset=utf-8", extra: [.setCookie: cookie])
        }
    }

    // MARK: WebSocket

    /// The paired device opening a WebSocket from the page's own origin, with room for it.
    func canUpgrade(_ request: HTTPRequest) -> RemoteDevices.Device? {
        guard request.path == "/ws", refusal(request.headerFields) == nil else { return nil }
        return device(request.headerFields)
    }

    /// Why a WebSocket with these headers is refused (no paired phone's cookie, another origin,
    /// no room), or nil.
    private func refusal(_ fields: HTTPFields) -> HTTPResponse.Status? {
        if device(fields) == nil { return .unauthorized }
        if fields[.origin] != origin { return .forbidden }
        if connections.withLock({ $0.count }) >= settings.maxConnections { return .serviceUnavailable }
        return nil
    }

    /// One page's connection: the markers and the state now, then each change; each message a
    /// command, as `practice ctl` sends it.
    func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, device: RemoteDevices.Device) async {
        let id = nextConnection.add(1, ordering: .relaxed).newValue
        let admitted = connections.withLock { c in
            guard c.count < settings.maxConnections else { return false }
            c[id] = outbound
            serving.add(1, ordering: .relaxed)
            return true
        }
        guard admitted else {
            try? await outbound.close(.init(codeNumber: 1013), reason: "too many connections")
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
                    guard currentDevices().devices.contains(where: { $0.key == device.key }) else {
                        await Self.close(outbound, .policyViolation, "this phone was unpaired")
                        return
                    }
                    if message.isEmpty { continue }
                    do { try await outbound.write(.text(message)) } catch { return }
                }
                // The feed is over: the player has stopped (the server may not be told before the process ends).
                if !Task.isCancelled { await Self.close(outbound, .goingAway, "the player has quit") }
            }
            // The page's commands.
            group.addTask { [self] in
                do {
                    for try await message in inbound.messages(maxSize: settings.maxMessage) {
                        // A phone revoked a moment ago: none of its commands is carried out.
                        guard currentDevices().devices.contains(where: { $0.key == device.key }) else {
                            try await outbound.close(.policyViolation, reason: "this phone was unpaired")
                            return
                        }
                        guard case .text(let text) = message else {
                            try await outbound.close(.unacceptableData, reason: "commands are JSON text")
                            return
                        }
                        let command: PlayerCommand
                        do throws(PracticeError) { command = try PlayerCommand.parse(text) } catch {
                            try await outbound.close(.unacceptableData, reason: Self.reason(error.message))
                            return
                        }
                        switch command {
                        case .quit, .attach, .status, .remote:
                            let refusal = PracticeError(.usage, "the remote does not \(command == .quit ? "quit the player" : "take that command")")
                            try await outbound.write(.text(StateMessage.errorLine(refusal)))
                            continue
                        default: break
                        }
                        let reply: String?
                        do throws(PracticeError) { reply = try player.perform(command) } catch {
                            try await outbound.write(.text(StateMessage.errorLine(error)))
                            continue
                        }
                        if let reply { try await outbound.write(.text(reply)) }
                    }
                } catch {}
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Closes a page's connection and gives the page up to a second to answer the close (its
    /// answer ends the reader, and with it this wait): a browser whose connection ends before it
    /// has answered reports an abnormal closure (1006), not the code and reason it was sent.
    static func close(_ outbound: WebSocketOutboundWriter, _ code: WebSocketErrorCode, _ reason: String) async {
        try? await outbound.close(code, reason: reason)
        try? await Task.sleep(for: .seconds(1))
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
    func closeAll(within seconds: Double) {
        let open = connections.withLock { c in defer { c.removeAll() }; return Array(c.values) }
        let deadline = ContinuousClock.now + .seconds(seconds)
        if !open.isEmpty {
            let sent = DispatchSemaphore(value: 0)
            Task {
                await withTaskGroup(of: Void.self) { group in
                    for outbound in open { group.addTask { try? await outbound.close(.goingAway, reason: "the player has quit") } }
                }
                sent.signal()
            }
            _ = sent.wait(timeout: .now() + seconds)
        }
        while serving.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline { usleep(5_000) }
    }
}
