// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import NIOWebSocket
import PracticeDocuments
import PracticeSystem

/// The remote's HTTP/1.1 and WebSocket server, on SwiftNIO's own HTTP and WebSocket handlers
/// with one event-loop thread: what each connection is (a request for the page, or a paired
/// page's WebSocket) is decided by `RemoteState`, which answers it.
///
/// Limits: a header field of at most 4 kB, 16 kB of them in all, 64 of them; a WebSocket frame
/// or message of at most `Settings.maxMessage` (a longer frame closes with 1009, as NIO's frame
/// decoder does); text that is not UTF-8 closes with 1007; a connection silent for
/// `Settings.idleTimeout` (60 s) is closed; an open page is pinged every `Settings.pingEvery`
/// (10 s) and closed with 1001 when it has not answered the last ping.
final class RemoteServer: Sendable {
    /// The port bound (the one asked for, or the one the system chose for 0).
    let port: Int
    /// Kept for its thread's sake only (see `stop`).
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    /// Where the server's tasks run: its event loop's thread.
    let executor: LoopExecutor

    /// What a connection turned out to be once its first request was read.
    enum Connection: Sendable {
        case page(NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>)
        case socket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, HTTPRequestHead)
    }

    private init(port: Int, group: MultiThreadedEventLoopGroup, listener: any Channel, executor: LoopExecutor) {
        self.port = port
        self.group = group
        self.listener = listener
        self.executor = executor
    }

    /// Listens on `host`:`port` (0: any free port) and serves `state` until `stop`; returns
    /// once the address is bound, or throws why it could not be. Each connection is served by a
    /// task of its own, on the event loop's thread (`LoopExecutor`): nothing of the server waits
    /// for Swift's shared task pool, which other parts of a process may hold.
    static func start(_ state: RemoteState, host: String, port: Int) throws(PracticeError) -> RemoteServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let executor = LoopExecutor(group.next())
        let listener: any Channel
        do {
            listener = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try Self.configure(channel, state: state).whenSuccess { connection in
                            Task(executorPreference: executor) {
                                switch connection {
                                case .page(let channel): await state.serve(channel)
                                case .socket(let channel, let head): await state.serve(channel, head: head)
                                }
                            }
                        }
                    }
                }
                .bind(host: host, port: port).wait()
        } catch {
            group.shutdownGracefully { _ in }
            throw PracticeError(.unavailable, "\(host):\(port): cannot listen for the remote (\(Self.describe(error)))")
        }
        return RemoteServer(port: listener.localAddress?.port ?? port, group: group, listener: listener, executor: executor)
    }

    /// One connection's handlers: silence closes it; HTTP/1.1 with header limits; a
    /// WebSocket upgrade only when `state` allows it (a paired phone, the page's Origin, room).
    private static func configure(_ channel: any Channel, state: RemoteState) throws -> EventLoopFuture<Connection> {
        let idle = state.settings.idleTimeout.components
        try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)))
        try channel.pipeline.syncOperations.addHandler(CloseWhenIdle())
        let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
            maxFrameSize: state.settings.maxMessage,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(state.canUpgrade(head) ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    .socket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel), head)
                }
            })
        var configuration = NIOUpgradableHTTPServerPipelineConfiguration<Connection>(
            upgradeConfiguration: .init(upgraders: [upgrader]) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ResponseParts())
                    return .page(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                }
            })
        configuration.decoderConfiguration.maxHeaderFieldSize = 4_096
        configuration.decoderConfiguration.maxHeaderListSize = 16_384
        configuration.decoderConfiguration.maxHeaderFieldCount = 64
        let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
        let upgrades = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPServerUpgradeHandler<Connection>.self)
        try channel.pipeline.syncOperations.addHandler(UpgradeGate(state), position: .before(upgrades))
        return negotiated
    }

    /// Stops listening. The event loop's thread is left to end with the process (the session
    /// that stops the remote is ending): a task of a page still closing would wake on a loop shut
    /// down, which NIO reports on stderr.
    func stop() {
        listener.close(promise: nil)
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? IOError { return String(cString: strerror(e.errnoCode)).lowercased() }
        return "\(error)"
    }
}

/// Runs tasks on an event loop's thread instead of Swift's shared task pool (a task executor
/// preference: the tasks they start run there too).
final class LoopExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Closes a connection that has sent nothing for the idle handler's time.
private final class CloseWhenIdle: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }
}

/// Answers a request for any other protocol than a WebSocket the server takes (no paired phone,
/// another origin, no room, another path, another protocol) with 400, empty, and closes the
/// connection: NIO's upgrade handler would drop such a request unanswered, and the connection
/// parses no request after it.
private final class UpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let state: RemoteState
    private var refusing = false

    init(_ state: RemoteState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head(let head) = part, head.headers.contains(name: "upgrade") {
            let webSocket = head.headers["upgrade"].contains { $0.lowercased() == "websocket" }
            refusing = !(webSocket && state.canUpgrade(head))
            if !refusing {
                // Taken: the connection's bytes are WebSocket frames from now on, not for this gate.
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(self, promise: nil)
                return
            }
        }
        guard refusing else { return context.fireChannelRead(data) }
        guard case .end = part else { return }
        var answer = state.refusedUpgrade()
        answer.headers.replaceOrAdd(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: answer.status, headers: answer.headers))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Answers' bodies as byte buffers (what the HTTP encoder takes as IO data).
private final class ResponseParts: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = HTTPPart<HTTPResponseHead, ByteBuffer>
    typealias OutboundOut = HTTPServerResponsePart
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head): context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body(let buffer): context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        case .end(let trailers): context.write(wrapOutboundOut(.end(trailers)), promise: promise)
        }
    }
}

/// One page's WebSocket as its readers and writers share it: text out, pongs, pings, and the
/// closing handshake (one close sent; the connection ends when the page answers it, or a second
/// later: a browser whose connection ends before it has answered reports an abnormal closure,
/// 1006, not the code and reason it was sent).
final class PageSocket: Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    private let channel: any Channel
    private let closing = Atomic<Bool>(false)
    private let unanswered = Atomic<Bool>(false)

    init(_ outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>, channel: any Channel) {
        self.outbound = outbound
        self.channel = channel
    }

    /// Whether a close has been sent: nothing else is, after it.
    var isClosing: Bool { closing.load(ordering: .acquiring) }

    func send(_ text: String) async throws {
        guard !isClosing else { return }
        try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)))
    }

    /// Sends the close frame (once), and ends the connection a second later if the page has not
    /// answered it by then.
    func close(_ code: WebSocketErrorCode, _ reason: String) async {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        data.writeString(reason)
        try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: data))
        let channel = channel
        channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }

    /// Answers the page's close (its code back, as the protocol asks), if this side has not sent one.
    func answerClose(_ frame: WebSocketFrame) async {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var data = frame.unmaskedData
        var answer = ByteBuffer()
        if let code = data.readWebSocketErrorCode() { answer.write(webSocketErrorCode: code) }
        try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: answer))
    }

    func pong(_ frame: WebSocketFrame) async {
        guard !isClosing else { return }
        try? await outbound.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
    }

    func answered() { unanswered.store(false, ordering: .releasing) }

    /// Pings every `period` until the connection ends; closes it when the last ping has had no answer.
    func keepAlive(every period: Duration) async {
        while !Task.isCancelled && !isClosing {
            do { try await Task.sleep(for: period) } catch { return }
            if unanswered.exchange(true, ordering: .acquiringAndReleasing) {
                await close(.goingAway, "no answer to a ping")
                return
            }
            guard !isClosing else { return }
            try? await outbound.write(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "practice")))
        }
    }

    /// The page's text messages, each whole (fragments joined, at most `maxSize` bytes, UTF-8
    /// checked), given to `take` until the connection ends: when the page closes it (or answers
    /// this side's close), or it is lost. A binary message, an overlong or malformed one closes
    /// it with the reason, as does a message begun inside another or a continuation of none (1002).
    func read(_ inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, maxSize: Int, take: (String) async -> Void) async {
        var pending: ByteBuffer?
        do {
            for try await frame in inbound {
                switch frame.opcode {
                case .connectionClose:
                    await answerClose(frame)
                    return
                case .ping: await pong(frame)
                case .pong: answered()
                case .text, .continuation:
                    guard !isClosing else { continue }
                    if frame.opcode == .text {
                        guard pending == nil else {
                            await close(.protocolError, "a message inside another")
                            continue
                        }
                        pending = frame.unmaskedData
                    } else if pending != nil {
                        pending!.writeImmutableBuffer(frame.unmaskedData)
                    } else {
                        await close(.protocolError, "a continuation without a message")
                        continue
                    }
                    guard pending!.readableBytes <= maxSize else {
                        pending = nil
                        await close(.messageTooLarge, "a message is at most \(maxSize) bytes")
                        continue
                    }
                    guard frame.fin, let bytes = pending.take() else { continue }
                    guard let text = String(validating: bytes.readableBytesView, as: UTF8.self) else {
                        await close(.dataInconsistentWithMessage, "commands are UTF-8 text")
                        continue
                    }
                    await take(text)
                case .binary:
                    await close(.unacceptableData, "commands are JSON text")
                default:
                    await close(.protocolError, "an unknown frame")
                }
            }
        } catch {}
    }
}
