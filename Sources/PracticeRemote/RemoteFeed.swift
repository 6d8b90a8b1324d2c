// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeControl
import PracticeEngine
import PracticeSystem

/// What the pages are sent, worked out once for all of them, on a thread of its own
/// (`practice-remote`).
///
/// A page moves the heard position on by itself while the state says it moves (`view.moving`:
/// `position + rate × the time since the message`, no further than the loop's end or the
/// track's), as the screen draws between the player's ticks. So the pages are not sent the
/// player's ticks, ten a second each. They are sent:
/// - each change the player publishes (a command, a pass, the end), as it comes;
/// - the markers, when the sidecar has changed;
/// - the state, when the page could not have foreseen it: the view changes (a section, a beat
///   of the eight-count, a lyric line: looked at the moment the next is due), the position is off
///   the page's reckoning by more than `tolerance` (a count-in, a gap between passes, a device
///   catching up: looked at every `quickLook` while that lasts), and at least every `resync`
///   while playing;
/// - an empty message when the paired devices' file has changed (looked at least once a second
///   while a page is open), so that a revoked phone's page is closed though nothing else is sent.
final class RemoteFeed: @unchecked Sendable {  // `pages`, `joining`, `changed`, `kind`, `stopped`, `nextID` only under `condition`; `view`, `sent`, `lastLook`, `devicesStamp` only on the feed's thread
    /// How far the page's position may be off the heard one before it is sent again.
    static let tolerance = 0.04
    /// The longest a playing page goes without the state.
    static let resync = 1.0
    /// How often the feed looks while the position does not move as the page reckons.
    static let quickLook = 0.1

    private let player: Player
    private let devicesPath: String
    private var devicesStamp: String
    private let condition = Condition()
    /// Each page's door: given its messages on the feed's thread, then nil when the feed is over.
    typealias Page = @Sendable (String?) -> Void
    private var pages: [Int: Page] = [:]
    private var joining: [Int: Page] = [:]
    private var changed = false
    private var kind = PlayerEvent.Kind.snapshot
    private var stopped = false
    private var nextID = 0

    private var view: RemoteView
    /// The last state sent, what the view said then, whether it moved, and when (monotonic seconds).
    private var sent: (state: PlayerState, here: TrackView.Here, moving: Bool, at: Double)?
    /// The previous look's heard position and its time: a position that stays put while playing
    /// (a count-in, a gap, the device starting) does not move.
    private var lastLook: (position: Double, playing: Bool, at: Double)?

    init(player: Player, devicesPath: String) {
        self.player = player
        self.devicesPath = devicesPath
        devicesStamp = FileStamp.of(devicesPath)
        view = RemoteView(player: player)
        _ = view.markersMessage(force: true)
        player.subscribe(ticks: { false }) { [weak self] event in self?.take(event) }
        _ = ControlThread(name: "practice-remote") { [self] in run() }
    }

    /// A page's messages from now on, given to `page`: the markers and the state first, then each
    /// change; nil once the feed is over. Returns the page's number, for `leave`.
    func join(_ page: @escaping Page) -> Int {
        condition.lock()
        defer { condition.unlock() }
        if stopped {
            page(nil)
            return 0
        }
        nextID += 1
        joining[nextID] = page
        condition.signal()
        return nextID
    }

    /// Ends every page's messages and the feed's thread.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// The page is gone: it is given nothing more.
    func leave(_ id: Int) {
        condition.lock()
        pages[id] = nil
        joining[id] = nil
        condition.unlock()
    }

    /// The player's events (handed over on the thread that made the change): looked at now.
    private func take(_ event: PlayerEvent) {
        condition.lock()
        if event.kind == .stopped { stopped = true } else if event.kind != .snapshot { changed = true; kind = event.kind }
        condition.signal()
        condition.unlock()
    }

    private func run() {
        var wait = 0.0
        while true {
            condition.lock()
            // With no page to send to, nothing is looked at until one joins.
            while !stopped, joining.isEmpty, pages.isEmpty { condition.wait() }
            if !stopped, !changed, joining.isEmpty { condition.wait(seconds: wait) }
            if stopped {
                let all = Array(pages.values) + Array(joining.values)
                (pages, joining) = ([:], [:])
                condition.unlock()
                for page in all { page(nil) }
                return
            }
            let change: PlayerEvent.Kind? = changed ? kind : nil
            changed = false
            let joined = joining, before = pages
            pages.merge(joining) { a, _ in a }
            joining = [:]
            condition.unlock()
            wait = look(change: change, joined: Array(joined.values), pages: Array(before.values))
        }
    }

    /// One look at the player: what to send to the pages, and the whole state to those that
    /// just `joined`; returns how long until the next look.
    private func look(change: PlayerEvent.Kind?, joined: [Page], pages: [Page]) -> Double {
        let s = player.state
        let now = monotonicSeconds()
        let markers = view.markersMessage(force: false)
        let here = view.here(at: s.position)
        // Held still while playing since the last look, nothing asked meanwhile: a count-in, a
        // gap, the device starting.
        let held = change == nil && (lastLook.map { $0.playing && now - $0.at >= 0.02 && s.position == $0.position } ?? false)
        lastLook = (s.position, s.isPlaying, now)
        let moving = s.isPlaying && s.rate > 0 && s.loop?.countIn == nil && !held
        let off = sent.map { abs(Self.reckoned($0.state, moving: $0.moving, after: now - $0.at) - s.position) > Self.tolerance } ?? true
        let unforeseen = sent.map { Self.withoutPosition(s) != Self.withoutPosition($0.state) || here != $0.here || moving != $0.moving } ?? true
        let due = s.isPlaying && (sent.map { now - $0.at >= Self.resync - 0.005 } ?? true)
        if let markers { for page in pages { page(markers) } }
        let stamp = FileStamp.of(devicesPath)
        if stamp != devicesStamp {
            devicesStamp = stamp
            for page in pages { page("") }
        }
        if change != nil || off || unforeseen || due {
            let message = view.stateMessage(s, kind: change ?? .tick, moving: moving)
            sent = (s, here, moving, now)
            for page in pages { page(message) }
        }
        if !joined.isEmpty {
            let markersLine = RemoteView.markersLine(view.markers, tempo: view.tempo)
            let message = view.stateMessage(s, kind: .snapshot, moving: moving)
            for page in joined {
                page(markersLine)
                page(message)
            }
        }
        // The next look: soon after a change (does the position move as the page reckons?) and
        // while the page cannot foresee it; else when the view next changes, the loop or the
        // track ends, or the page is due its state again.
        guard s.isPlaying, s.rate > 0 else { return 1 }
        guard moving, !off, change == nil else { return Self.quickLook }
        var until = Self.resync
        func consider(_ t: Double?) { if let t { until = min(until, (t - s.position) / s.rate + 0.002) } }
        consider(view.nextChange(after: s.position))
        consider(s.loop.flatMap { $0.isOn ? $0.end : nil })
        consider(s.duration)
        return max(until, 0.01)
    }

    /// Where a page that was sent `state` shows the position `elapsed` seconds later.
    static func reckoned(_ state: PlayerState, moving: Bool, after elapsed: Double) -> Double {
        guard moving else { return state.position }
        let end = state.loop.flatMap { $0.isOn ? $0.end : nil } ?? state.duration
        return min(state.position + state.rate * elapsed, max(end, state.position))
    }

    private static func withoutPosition(_ s: PlayerState) -> PlayerState {
        var s = s
        s.position = 0
        return s
    }
}
