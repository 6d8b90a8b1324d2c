// SPDX-License-Identifier: GPL-3.0-or-later
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
        /// How many connections one address may hold at once, requests and pages together (a
        /// phone's browser keeps about six, and one per open page); more are closed as they
        /// come, unanswered, so that one device cannot take every slot.
        public var connectionsPerAddress = 32
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
        server.closeAll(within: 0.5)
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
        (ContinuousClock.now - clockStart).seconds
    }

    var pairingAddress: String {
        let token = gate.withLock { $0.current(now: now) }
        return origin.uppercased() + "/P/" + token
    }

    // MARK: Devices

    /// The paired device a request's cookie names, if any.
    func device(cookie header: String?) -> RemoteDevices.Device? {
        guard let cookie = header.flatMap(Self.cookie) else { return nil }
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

    /// The remote's cookie in a request's Cookie header.
    static func cookie(_ header: String) -> String? {
        for part in header.split(separator: ";") {
            let kv = part.trimmingWhitespace().split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0] == cookieName { return String(kv[1]) }
        }
        return nil
    }

    // MARK: HTTP

    /// An answer: its status, headers (Content-Length is added as it is written) and body.
    struct Answer {
        var status: Int
        var headers: [(String, String)]
        var body: String
    }

    /// Security headers on every answer: nothing cached, nothing framed, nothing sniffed, no
    /// script or connection but the page's own.
    private func answer(_ status: Int, _ body: String = "", type: String? = nil, extra: [(String, String)] = []) -> Answer {
        var headers = [
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"),
        ]
        if let type { headers.append(("Content-Type", type)) }
        headers += extra
        return Answer(status: status, headers: headers, body: body)
    }

    /// A request's path: its target without the query.
    static func path(_ uri: String) -> Substring {
        uri[..<(uri.firstIndex { $0 == "?" || $0 == "#" } ?? uri.endIndex)]
    }

    /// The answer to `request`, with `openPages` pages connected (for `/ws`'s refusal).
    func respond(_ request: RemoteRequest, openPages: Int) -> Answer {
        let path = Self.path(request.uri)
        if path.hasPrefix("/P/") || path.hasPrefix("/p/") {
            return pair(token: String(path.dropFirst(3)).uppercased(), request: request)
        }
        guard device(cookie: request.cookie) != nil else { return answer(401) }
        guard request.method == "GET" || request.method == "HEAD" else { return answer(405) }
        // `/ws` without an upgrade: why it would be refused, to the paired phone only.
        if path == "/ws" { return answer(refusal(request, openPages: openPages) ?? 400) }
        guard let asset = RemotePage.assets[String(path)] else { return answer(404) }
        return answer(200, asset.body, type: asset.type)
    }

    /// The answer to a WebSocket upgrade the server does not take: 400 and nothing else, whoever asks.
    func refusedUpgrade() -> Answer { answer(400) }

    private func pair(token: String, request: RemoteRequest) -> Answer {
        let outcome = gate.withLock { $0.attempt(token, now: now) }
        switch outcome {
        case .tooMany:
            notice("remote: pairing refused (more than \(gate.withLock { $0.attemptsPerMinute }) attempts in a minute)")
            return answer(429)
        case .wrongToken, .expired:
            notice("remote: a pairing with a wrong or old code was refused")
            return answer(401)
        case .paired:
            let kind = RemoteDevices.kind(userAgent: request.userAgent ?? "")
            var list = currentDevices()
            let paired: (cookie: String, name: String)
            do { paired = try list.pair(kind: kind) } catch {
                notice("remote: cannot pair: \(error.message)")
                return answer(500)
            }
            devices.withLock { $0 = (list, FileStamp.of(settings.devicesPath)) }
            notice("remote: paired \(paired.name)")
            let cookie = "\(Self.cookieName)=\(paired.cookie); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000"
            // A page of its own that goes on to the remote: the cookie, SameSite=Strict, is not
            // sent on a redirect that began in the camera's app, but is on this page's own navigation.
            return answer(200, RemotePage.paired, type: "text/html; charset=utf-8", extra: [("Set-Cookie", cookie)])
        }
    }

    // MARK: WebSocket

    /// Whether a request may become a WebSocket: the paired device, from the page's own origin,
    /// with room for it.
    func canUpgrade(_ request: RemoteRequest, openPages: Int) -> Bool {
        Self.path(request.uri) == "/ws" && refusal(request, openPages: openPages) == nil
    }

    /// Why a WebSocket asked for by `request` is refused (no paired phone's cookie, another
    /// origin, no room), or nil.
    private func refusal(_ request: RemoteRequest, openPages: Int) -> Int? {
        if device(cookie: request.cookie) == nil { return 401 }
        if request.origin != origin { return 403 }
        if openPages >= settings.maxConnections { return 503 }
        return nil
    }

    func isPaired(_ device: RemoteDevices.Device?) -> Bool {
        guard let device else { return false }
        return currentDevices().devices.contains { $0.key == device.key }
    }

    /// What becomes of a page's command: its answer (if any) to send back, or the page closed with why.
    enum Outcome {
        case reply(String?)
        case close(UInt16, String)
    }

    /// One command from a page, carried out as the command line would; refused as it would be.
    func perform(_ text: String, from device: RemoteDevices.Device) -> Outcome {
        // A phone revoked a moment ago: none of its commands is carried out.
        guard isPaired(device) else { return .close(1008, "this phone was unpaired") }
        let command: PlayerCommand
        do throws(PracticeError) { command = try PlayerCommand.parse(text) } catch {
            return .close(1003, error.message)
        }
        switch command {
        case .quit, .attach, .status, .remote:
            return .reply(StateMessage.errorLine(PracticeError(.usage, "the remote does not \(command == .quit ? "quit the player" : "take that command")")))
        default:
            do throws(PracticeError) { return .reply(try player.perform(command)) } catch { return .reply(StateMessage.errorLine(error)) }
        }
    }

    /// A close frame's reason: at most 123 bytes.
    static func reason(_ message: String) -> String {
        var out = ""
        for c in message where out.utf8.count + String(c).utf8.count <= 120 { out.append(c) }
        return out
    }
}

/// What the server read of a request: its method, target and the headers the remote looks at.
struct RemoteRequest {
    var method: String
    var uri: String
    var cookie: String?
    var origin: String?
    var userAgent: String?
    /// Asked for its connection to be closed after the answer (`Connection: close`).
    var closes: Bool
}
