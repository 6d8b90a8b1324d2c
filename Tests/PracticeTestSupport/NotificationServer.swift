// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import PracticeAudio
import PracticeSystem
import PracticeDesktop

/// A small desktop notification server (org.freedesktop.Notifications) on a bus the test runs:
/// it takes the name, answers Notify with an id, and keeps each notification's summary and body.
public final class NotificationServer: @unchecked Sendable {  // `connection` is used on `thread` only
    public struct Shown: Sendable, Equatable {
        public var app: String
        public var summary: String
        public var body: String
        public init(app: String, summary: String, body: String) { self.app = app; self.summary = summary; self.body = body }
    }

    private let connection: BusConnection
    private final class Record: Sendable {
        let shown = Locked<[Shown]>([])
        let next = Atomic<UInt32>(1)
    }
    private let record = Record()
    private let stopping = Atomic<Bool>(false)
    private var thread: Thread?

    public init(address: String) throws {
        connection = try BusConnection.connect(address: address)
        let record = self.record
        try connection.add(object: "/org/freedesktop/Notifications", [BusInterface("org.freedesktop.Notifications", methods: [
            .init("Notify", arguments: "susssasa{sv}i", reply: "u") { args throws(BusFailure) in
                record.shown.withLock { $0.append(Shown(app: args[0].string ?? "", summary: args[3].string ?? "", body: args[4].string ?? "")) }
                return [.uint32(record.next.add(1, ordering: .relaxed).oldValue)]
            },
            .init("GetCapabilities", reply: "as") { _ throws(BusFailure) in [.strings(["body", "body-markup"])] },
            .init("GetServerInformation", reply: "ssss") { _ throws(BusFailure) in [.string("practice-tests"), .string("practice"), .string("1"), .string("1.2")] },
            .init("CloseNotification", arguments: "u") { _ throws(BusFailure) in [] },
        ])])
        guard try connection.requestName("org.freedesktop.Notifications") else { throw BusError("sd_bus_request_name", message: "the name is taken") }
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                let (fd, events, _) = connection.pollDescriptor
                var p = pollfd(fd: fd, events: events, revents: 0)
                _ = poll(&p, 1, 50)
                try? connection.process()
            }
        }
        thread.start()
        self.thread = thread
    }

    /// The notifications shown so far.
    public var notifications: [Shown] { record.shown.withLock { $0 } }

    /// Waits up to `seconds` for `count` notifications.
    public func wait(for count: Int, seconds: Double = 5) -> [Shown] {
        let deadline = Date().addingTimeInterval(seconds)
        while notifications.count < count && Date() < deadline { usleep(20_000) }
        return notifications
    }

    public func stop() { stopping.store(true, ordering: .releasing) }

    deinit { stop() }
}
