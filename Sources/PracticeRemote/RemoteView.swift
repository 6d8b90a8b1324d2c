// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeEngine

/// What the page shows besides the player's state: the markers, the section, the eight-count
/// and the lyric line, as `TrackView` works them out.
struct RemoteView {
    var player: Player { track.player }
    private var track: TrackView

    init(player: Player) {
        track = TrackView(player: player)
    }

    /// `{"event":"markers","markers":[{"name":…,"time":…}…]}` when the sidecar has changed since
    /// the last one (or `force`); nil when it has not.
    mutating func markersMessage(force: Bool) -> String? {
        guard track.refresh(force: force) else { return nil }
        return Self.markersLine(track.markers, tempo: track.beats?.tempo)
    }

    /// With the beat grid's tempo, which a count-in set from the page takes.
    static func markersLine(_ markers: [Marker], tempo: Double? = nil) -> String {
        var o: [String: JSONValue] = ["event": .string("markers"), "markers": .array(markers.map { .object(["name": .string($0.name), "time": .seconds($0.time)]) })]
        if let tempo { o["tempo"] = .double(tempo) }
        return JSONValue.object(o).compact()
    }

    /// What is at `position`, and when that next changes (see `TrackView`).
    func here(at position: Double) -> TrackView.Here { track.here(at: position) }
    func nextChange(after position: Double) -> Double? { track.nextChange(after: position) }
    var markers: [Marker] { track.markers }
    var tempo: Double? { track.beats?.tempo }

    /// The `full` state message with a `view`: `section` (the marker it opens at, or none),
    /// `eight` (`{"name":"Eight","group":3,"beat":5}` from the beat grid), `lyric` (the line
    /// heard) and `moving` (the page moves the position on by itself at `rate`; see `RemoteFeed`).
    func stateMessage(_ state: PlayerState, kind: PlayerEvent.Kind, moving: Bool) -> String {
        var o = player.fullMessage(state, kind: kind).object
        // The phone is told no path on this machine.
        o["path"] = nil
        var view: [String: JSONValue] = [:]
        let here = track.here(at: state.position)
        if let section = here.section { view["section"] = .string(section) }
        if let next = here.next { view["next"] = .string(next) }
        if let e = here.eight { view["eight"] = .object(["name": .string(e.name), "group": .integer(e.group), "beat": .integer(e.beat), "of": .integer(e.of)]) }
        if let lyric = here.lyric { view["lyric"] = .string(lyric) }
        view["moving"] = .bool(moving)
        o["view"] = .object(view)
        return JSONValue.object(o).compact()
    }
}
