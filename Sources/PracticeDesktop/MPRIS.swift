// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import Synchronization
import PracticeDocuments
import PracticeEngine
import PracticeSystem
import PracticeControl

/// MPRIS2 on the session bus: desktop media controls, media keys, `playerctl` and phones (KDE
/// Connect) drive the player, and see what it plays. A controller and a view like the others: it
/// turns D-Bus calls into the player's commands and the player's events into PropertiesChanged and
/// Seeked, and keeps no copy of the player's state (Position and the rest are read when asked).
///
/// `org.mpris.MediaPlayer2.practice` (`…practice.instance<pid>` when another player has that name)
/// serves `/org/mpris/MediaPlayer2` with the two MPRIS interfaces and `practice.Markers`, our own:
/// - Next and Previous go to the next and previous marker (the section; paused, it stays paused), CanGoNext and
///   CanGoPrevious say whether there is one; Rate is the speed (0.25 to 3.0); LoopStatus `None` is
///   the loop off, `Track` (or `Playlist`) the loop on (with no loop set, the section being heard);
/// - Metadata has the tags, the length, the file's URL, the cover (`mpris:artUrl`), and
///   `practice:section` and `practice:loop`;
/// - `practice.Markers` has Markers and Loops (name → seconds, in time order), Jump(name),
///   AddMarker(name) at the heard position, and PlayLoop(name) ("" stops looping).
///
/// The bus is served on a thread of its own that sleeps in poll() until a call or a change comes.
public final class MPRIS: @unchecked Sendable {  // `bus` is only used on the server thread after init
    public static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let markersInterface = "practice.Markers"

    /// What the host does for calls that go beyond the player.
    public struct Host: Sendable {
        /// `Quit`.
        public var quit: @Sendable () -> Void
        /// `OpenUri`: play another file or song in this player's place; a failure is the caller's error.
        public var open: (@Sendable (String) throws(BusFailure) -> Void)?
        /// The cover image's path, for Metadata's `mpris:artUrl` and the notification's picture:
        /// looked for when first asked, so that a player with no session bus never looks (the
        /// pictures in the tags are read with TagLib, which is 0.7 MB more to load).
        public var cover: String? { coverOnce.value }
        private let coverOnce: Once<String?>
        /// Told the well-known name when it changes (from `….instance<pid>` to the plain one).
        public var named: (@Sendable (String) -> Void)?
        public init(quit: @escaping @Sendable () -> Void, open: (@Sendable (String) throws(BusFailure) -> Void)? = nil,
                    cover: @escaping @Sendable () -> String? = { nil }, named: (@Sendable (String) -> Void)? = nil) {
            self.quit = quit; self.open = open; self.coverOnce = Once(cover); self.named = named
        }
    }

    /// The well-known name taken (`org.mpris.MediaPlayer2.practice` or `….instance<pid>`).
    public var busName: String { name.withLock { $0 } }
    private let name: Mutex<String>
    static let plainName = "org.mpris.MediaPlayer2.practice"
    private let player: Player
    private let host: Host
    private let bus: BusConnection
    private let markers: MarkerWatch
    /// Set by Stop (PlaybackStatus `Stopped`) until the next Play.
    private let stopped = Atomic<Bool>(false)
    /// Events waiting for the server thread, and the pipe that wakes it (for them and for `stop()`).
    private let outbox = Mutex<[PlayerEvent.Kind]>([])
    private let wake = WakePipe()
    private let stopping = Atomic<Bool>(false)
    private var thread: ControlThread?
    private var subscription: Task<Void, Never>?
    private let trackID: String

    /// Connects to the session bus, takes a name and serves the player; an error (for `--verbose`)
    /// says why there is no MPRIS: no session bus (SSH, CI), no libsystemd, a bus that refused.
    public init(player: Player, host: Host) throws(BusError) {
        self.player = player
        self.host = host
        bus = try BusConnection.session()
        var name = Self.plainName
        if try !bus.requestName(name) {
            // Another player has the plain name (or is handing over to this one: `d`): an
            // instance name until it lets the plain one go (tried again once a second).
            name += ".instance\(getpid())"
            guard try bus.requestName(name) else { throw BusError("sd_bus_request_name", message: "\(name) is taken") }
        }
        self.name = Mutex(name)
        markers = MarkerWatch(track: player.track, explicit: player.sidecar)
        trackID = "/org/practice/track/\(getpid())"
        try bus.add(object: Self.objectPath, [rootInterface(), playerInterface(), markersInterface()])
        bus.flush()

        // No ticks: the position is read when asked, and the section is looked at when the heard
        // position is due to reach the next marker (`nextLook`).
        let stream = player.events(keepingNewest: 64, ticks: { false })
        subscription = Task.detached { [weak self] in
            for await event in stream where event.kind != .snapshot {
                guard let self else { return }
                self.outbox.withLock { $0.append(event.kind) }
                self.wake.ring()
            }
        }
        thread = ControlThread(name: "practice-mpris") { [self] in serve() }
    }

    /// Leaves the bus (the name goes with the connection).
    public func stop() {
        subscription?.cancel()
        stopping.store(true, ordering: .releasing)
        wake.ring()
        thread?.join()
    }

    /// A desktop notification (org.freedesktop.Notifications) that `summary` is playing, with the
    /// cover as its image; sent without waiting for an answer (no notification daemon: nothing).
    public func notify(summary: String, body: String) {
        var hints: [(String, BusValue)] = [("desktop-entry", .string("practice")), ("category", .string("x-gnome.music"))]
        if let cover = host.cover { hints.append(("image-path", .string(CoverArt.fileURL(cover)))) }
        // The daemon takes the body as markup: text from tags must not become tags.
        let arguments: [BusValue] = [.string("practice"), .uint32(0), .string(host.cover ?? "multimedia-audio-player"), .string(summary),
                                     .string(body.markupEscaped), .strings([]), .dictionary(hints), .int32(-1)]
        post { bus in
            try? bus.send(to: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                          interface: "org.freedesktop.Notifications", member: "Notify", arguments)
        }
    }

    /// Work for the server thread (the bus is used on that thread only).
    private let posted = Mutex<[@Sendable (BusConnection) -> Void]>([])
    private func post(_ work: @escaping @Sendable (BusConnection) -> Void) {
        posted.withLock { $0.append(work) }
        wake.ring()
    }

    // MARK: The server thread

    private func serve() {
        var published = emitted()
        var look = ContinuousClock.now + nextLook()
        var plainTry = ContinuousClock.now + .seconds(1)
        while !stopping.load(ordering: .acquiring) {
            let (fd, events, timeout) = bus.pollDescriptor
            var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            let untilLook = (look - ContinuousClock.now).components
            let lookMs = Int32(max(0, min(untilLook.seconds * 1000 + untilLook.attoseconds / 1_000_000_000_000_000 + 1, 60_000)))
            _ = poll(&fds, 2, timeout < 0 ? lookMs : min(timeout, lookMs))
            if fds[1].revents != 0 { wake.drain() }
            if stopping.load(ordering: .acquiring) { break }
            for work in posted.withLock({ w in defer { w.removeAll() }; return w }) { work(bus) }
            do { try bus.process() } catch { break }   // the bus went away: no more MPRIS
            if ContinuousClock.now >= plainTry { takePlainName(); plainTry = ContinuousClock.now + .seconds(1) }
            let kinds = outbox.withLock { o in defer { o.removeAll() }; return o }
            // A change of the player's, a method call (one may have edited the markers), or the
            // time to look again: the properties as they are now, and what changed.
            if !kinds.isEmpty || fds[0].revents != 0 || ContinuousClock.now >= look {
                if kinds.contains(.played) { stopped.store(false, ordering: .releasing) }
                let now = emitted()
                for (interface, values) in now {
                    let changed = values.filter { published[interface]?[$0.key] != $0.value }.map(\.key).sorted()
                    try? bus.emitPropertiesChanged(path: Self.objectPath, interface: interface, changed)
                }
                published = now
                look = ContinuousClock.now + nextLook()
                // Every jump: a seek, a jump to a marker, a loop's next pass (back to its start).
                if kinds.contains(where: { $0 == .seeked || $0 == .passStarted }) {
                    try? bus.emitSignal(path: Self.objectPath, interface: Self.playerInterface, member: "Seeked", [.int64(microseconds(player.state.position))])
                }
            }
            bus.flush()
        }
        bus.flush()
    }

    /// On an instance name, takes the plain one if it is free now (the player that had it has
    /// quit, or handed over to this one), and gives the instance name back: one player, one name.
    private func takePlainName() {
        let current = busName
        guard current != Self.plainName, (try? bus.requestName(Self.plainName)) == true else { return }
        try? bus.releaseName(current)
        name.withLock { $0 = Self.plainName }
        host.named?(Self.plainName)
    }

    /// How long until the properties may have changed with no event to say so: when the heard
    /// position reaches the next marker (a new section; at least 20 ms, as during a loop's gap
    /// the position stands still), and at most a second, for a sidecar another program edited.
    private func nextLook() -> Duration {
        let s = player.state
        var seconds = 1.0
        if s.isPlaying, s.rate > 0 {
            let ahead = (navigation(s, markers.current()).sectionRange.1 - s.position) / s.rate
            if ahead >= 0 { seconds = min(seconds, max(ahead + 0.005, 0.02)) }
        }
        return .milliseconds(Int(seconds * 1000))
    }

    /// The values of the properties that PropertiesChanged carries, by interface.
    private func emitted() -> [String: [String: BusValue]] {
        let s = player.state
        let sidecar = markers.current()
        let nav = navigation(s, sidecar)
        return [
            Self.playerInterface: [
                "PlaybackStatus": .string(playbackStatus(s)), "LoopStatus": .string(s.loop?.isOn == true ? "Track" : "None"),
                "Rate": .double(s.rate), "Metadata": metadata(s, nav), "CanGoNext": .boolean(nav.next != nil),
                "CanGoPrevious": .boolean(nav.previous != nil),
            ],
            Self.markersInterface: ["Section": .string(nav.section ?? ""), "Markers": markerTimes(sidecar), "Loops": loopTimes(sidecar),
                                    "Mirror": .boolean(s.isMirrored)],
            Self.rootInterface: ["Fullscreen": .boolean(s.video?.isFullScreen ?? false), "CanSetFullscreen": .boolean(s.video != nil)],
        ]
    }

    private func playbackStatus(_ s: PlayerState) -> String {
        if s.isFinished || stopped.load(ordering: .acquiring) { return "Stopped" }
        return s.isPlaying ? "Playing" : "Paused"
    }

    private func microseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1_000_000).rounded()) }

    private struct Navigation { var next: Double?; var previous: Double?; var section: String?; var sectionRange: (Double, Double) }

    /// Where Next and Previous go from the heard position, and the section it is in.
    private func navigation(_ s: PlayerState, _ sidecar: Sidecar) -> Navigation {
        let live = sidecar.liveMarkers.sorted { $0.time < $1.time }
        let times = live.map(\.time)
        let (open, close) = Sections.section(times, at: s.position)
        return Navigation(next: Sections.next(times, after: s.position).map { times[$0] },
                          previous: times.contains { $0 < s.position } ? (Sections.previous(times, before: s.position).map { times[$0] } ?? 0) : nil,
                          section: open.map { live[$0].name },
                          sectionRange: (open.map { times[$0] } ?? 0, close.map { times[$0] } ?? s.duration))
    }

    private func metadata(_ s: PlayerState, _ nav: Navigation) -> BusValue {
        var entries: [(String, BusValue)] = [
            ("mpris:trackid", .objectPath(trackID)),
            ("mpris:length", .int64(microseconds(s.duration))),
            ("xesam:title", .string(player.tags["title"] ?? player.track.displayTitle)),
            ("xesam:url", .string(CoverArt.fileURL(player.track.path))),
        ]
        if let artist = player.tags["artist"] { entries.append(("xesam:artist", .strings([artist]))) }
        if let album = player.tags["album"] { entries.append(("xesam:album", .string(album))) }
        if let cover = host.cover { entries.append(("mpris:artUrl", .string(CoverArt.fileURL(cover)))) }
        if let section = nav.section { entries.append(("practice:section", .string(section))) }
        if let l = s.loop, l.isOn {
            entries.append(("practice:loop", .string(l.name ?? "\(Timecode.format(l.start, decimals: 3))–\(Timecode.format(l.end, decimals: 3))")))
        }
        return .dictionary(entries)
    }

    private func markerTimes(_ sidecar: Sidecar) -> BusValue {
        .dictionary(sidecar.liveMarkers.sorted { $0.time < $1.time }.map { ($0.name, .double($0.time)) })
    }

    private func loopTimes(_ sidecar: Sidecar) -> BusValue {
        let ends = sidecar.loopEnds
        return .dictionary(sidecar.liveLoops.compactMap { l in
            guard let a = ends.time(of: l.start), let b = ends.time(of: l.end) else { return nil }
            return (l.name, .array("d", [.double(a), .double(b)]))
        })
    }

    // MARK: The interfaces

    private func rootInterface() -> BusInterface {
        let player = self.player
        return BusInterface(Self.rootInterface, methods: [
            .init("Raise") { _ in [] },
            .init("Quit") { [host] _ in host.quit(); return [] },
        ], properties: [
            .init("CanQuit", "b", emitsChange: false) { .boolean(true) },
            .init("CanRaise", "b", emitsChange: false) { .boolean(false) },
            // A video's window (the specification's optional pair): full screen, and whether there is one.
            .init("Fullscreen", "b", get: { .boolean(player.state.video?.isFullScreen ?? false) }, set: { v throws(BusFailure) in
                guard player.setVideo(fullScreen: v.bool ?? false) else { throw BusFailure("this player shows no picture (the file has none, or there is no display)") }
            }),
            .init("CanSetFullscreen", "b") { .boolean(player.state.video != nil) },
            .init("HasTrackList", "b", emitsChange: false) { .boolean(false) },
            .init("Identity", "s", emitsChange: false) { .string("practice") },
            .init("DesktopEntry", "s", emitsChange: false) { .string("practice") },
            .init("SupportedUriSchemes", "as", emitsChange: false) { [host] in .strings(host.open == nil ? [] : ["file", "https", "http"]) },
            .init("SupportedMimeTypes", "as", emitsChange: false) {
                .strings(["audio/x-wav", "audio/wav", "audio/flac", "audio/ogg", "audio/x-vorbis+ogg", "audio/x-opus+ogg", "audio/mpeg", "audio/x-aiff"])
            },
        ])
    }

    private func playerInterface() -> BusInterface {
        let player = self.player
        return BusInterface(Self.playerInterface, methods: [
            .init("Next") { [self] _ in
                if let t = navigation(player.state, markers.current()).next { go(to: t) }
                return []
            },
            .init("Previous") { [self] _ in
                if let t = navigation(player.state, markers.current()).previous { go(to: t) }
                return []
            },
            .init("Pause") { _ in player.pause(); return [] },
            .init("PlayPause") { [self] _ in
                if stopped.load(ordering: .acquiring) || !player.state.isPlaying { play() } else { player.pause() }
                return []
            },
            .init("Stop") { [self] _ in
                stopped.store(true, ordering: .releasing)
                player.pause()
                player.seek(to: player.startPosition)
                return []
            },
            .init("Play") { [self] _ in play(); return [] },
            .init("Seek", arguments: "x") { args in
                let s = player.state
                let offset = Double(args[0].int64 ?? 0) / 1_000_000
                player.seek(to: min(max(s.position + offset, 0), s.duration))
                return []
            },
            .init("SetPosition", arguments: "ox") { [trackID] args in
                // Ignored unless it names this track and a position inside it, as the spec says.
                guard args[0].string == trackID, let us = args[1].int64, us >= 0 else { return [] }
                let t = Double(us) / 1_000_000
                if t <= player.track.duration { player.seek(to: t) }
                return []
            },
            BusInterface.Method("OpenUri", arguments: "s") { [host] (args: [BusValue]) throws(BusFailure) -> [BusValue] in
                guard let open = host.open else { throw BusFailure("this player cannot open another track", name: "org.freedesktop.DBus.Error.NotSupported") }
                try open(args[0].string ?? "")
                return []
            },
        ], properties: [
            .init("PlaybackStatus", "s") { [self] in .string(playbackStatus(player.state)) },
            .init("LoopStatus", "s", get: { .string(player.state.loop?.isOn == true ? "Track" : "None") }, set: { [self] v throws(BusFailure) in
                try setLoopStatus(v.string ?? "")
            }),
            .init("Rate", "d", get: { .double(player.state.rate) }, set: { [self] v throws(BusFailure) in
                guard let r = v.double, r.isFinite else { throw BusFailure("Rate must be a number") }
                // 0 means pause (the spec); otherwise the nearest speed we play.
                if r <= 0 { player.pause(); return }
                player.setRate(min(max((r * 100).rounded() / 100, PlaybackSettings.rateRange.lowerBound), PlaybackSettings.rateRange.upperBound))
                if stopped.load(ordering: .acquiring) { stopped.store(false, ordering: .releasing) }
            }),
            .init("Metadata", "a{sv}") { [self] in let s = player.state; return metadata(s, navigation(s, markers.current())) },
            .init("Volume", "d", emitsChange: false) { .double(1) },
            .init("Position", "x", emitsChange: false) { [self] in .int64(microseconds(player.state.position)) },
            .init("MinimumRate", "d", emitsChange: false) { .double(PlaybackSettings.rateRange.lowerBound) },
            .init("MaximumRate", "d", emitsChange: false) { .double(PlaybackSettings.rateRange.upperBound) },
            .init("CanGoNext", "b") { [self] in .boolean(navigation(player.state, markers.current()).next != nil) },
            .init("CanGoPrevious", "b") { [self] in .boolean(navigation(player.state, markers.current()).previous != nil) },
            .init("CanPlay", "b", emitsChange: false) { .boolean(true) },
            .init("CanPause", "b", emitsChange: false) { .boolean(true) },
            .init("CanSeek", "b", emitsChange: false) { .boolean(true) },
            .init("CanControl", "b", emitsChange: false) { .boolean(true) },
        ], signals: [.init("Seeked", "x")])
    }

    private func markersInterface() -> BusInterface {
        let player = self.player
        return BusInterface(Self.markersInterface, methods: [
            BusInterface.Method("Jump", arguments: "s") { (args: [BusValue]) throws(BusFailure) -> [BusValue] in
                do throws(PracticeError) { try player.perform(.jump(args[0].string ?? "")) } catch { throw BusFailure(error.message) }
                return []
            },
            BusInterface.Method("AddMarker", arguments: "s", reply: "d") { [self] (args: [BusValue]) throws(BusFailure) -> [BusValue] in
                do throws(PracticeError) {
                    _ = try player.perform(.mark(args[0].string ?? ""))
                } catch { throw BusFailure(error.message) }
                let sidecar = markers.current()
                return [.double(sidecar.liveMarkers.first { $0.name == args[0].string?.trimmingWhitespace() }?.time ?? player.state.position)]
            },
            BusInterface.Method("PlayLoop", arguments: "s") { (args: [BusValue]) throws(BusFailure) -> [BusValue] in
                let name = args[0].string ?? ""
                do throws(PracticeError) {
                    if name.isEmpty { try player.perform(.loop(nil)) } else {
                        try player.perform(.loopAt([name], times: nil))
                        if let l = player.state.loop { player.jump(to: l.start) }
                    }
                } catch { throw BusFailure(error.message) }
                return []
            },
        ], properties: [
            .init("Section", "s") { [self] in .string(navigation(player.state, markers.current()).section ?? "") },
            .init("Markers", "a{sv}") { [self] in markerTimes(markers.current()) },
            .init("Loops", "a{sv}") { [self] in loopTimes(markers.current()) },
            // A video's picture mirrored, as `x` and `practice ctl mirror` do it.
            .init("Mirror", "b", get: { .boolean(player.state.isMirrored) }, set: { v in player.setMirror(v.bool ?? false) }),
        ])
    }

    private func play() {
        if stopped.load(ordering: .acquiring) { stopped.store(false, ordering: .releasing) }
        player.play()
    }

    /// `None`: the loop off. `Track` or `Playlist`: the loop on; with none set, the section being heard.
    /// Next and Previous: to the marker, playing on if it was playing; paused or stopped, it
    /// stays so (as the MPRIS specification asks).
    private func go(to seconds: Double) {
        if player.state.isPlaying { player.jump(to: seconds) } else { player.seek(to: seconds) }
    }

    private func setLoopStatus(_ status: String) throws(BusFailure) {
        switch status {
        case "None": if player.state.loop != nil { player.setLooping(false) }
        case "Track", "Playlist":
            if player.state.loop != nil { player.setLooping(true); return }
            let s = player.state
            let (a, b) = navigation(s, markers.current()).sectionRange
            guard b - a >= LoopRange.minimumSeconds else { throw BusFailure("the section here is too short to loop") }
            do throws(PracticeError) { try player.setLoop(LoopRange(start: a, end: b)) } catch { throw BusFailure(error.message) }
        default: throw BusFailure("LoopStatus is None, Track or Playlist (got '\(status)')")
        }
    }
}

/// The track's sidecar, read again only when one of its files changed (size, time or inode), so
/// that the player's ticks can ask it for the section without reading JSON ten times a second.
final class MarkerWatch: Sendable {
    private let track: Track
    private let explicit: String?
    private struct Seen { var paths: [String]; var stamps: [String]; var sidecar: Sidecar }
    private let seen = Mutex<Seen?>(nil)

    init(track: Track, explicit: String?) { self.track = track; self.explicit = explicit }

    func current() -> Sidecar {
        seen.withLock { seen in
            // Stamped before reading: a write in between is seen at the next look.
            let before = seen.map { $0.paths.map(Self.stamp) }
            if let s = seen, before == s.stamps { return s.sidecar }
            guard let loaded = try? SidecarStore.load(for: track, explicit: explicit) else { return seen?.sidecar ?? Sidecar() }
            let paths = Array(Set([loaded.writePath] + (loaded.readPath.map { [$0] } ?? []))).sorted()
            let stamps = paths == seen?.paths ? before! : paths.map(Self.stamp)
            seen = Seen(paths: paths, stamps: stamps, sidecar: loaded.sidecar)
            return loaded.sidecar
        }
    }

    private static func stamp(_ path: String) -> String { FileStamp.of(path) }
}
