// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeEngine

/// What the page shows besides the player's state, worked out here as the screen works it out
/// (the page keeps no rules of its own): the markers, the section the heard position is in, the
/// eight-count and the lyric line. Read from the track's sidecar and lyrics, again when the
/// sidecar changes (a marker dropped on the screen, or from a phone).
struct RemoteView {
    let player: Player
    private var stamp = ""
    private var markers: [Marker] = []
    private var beats: BeatGrid?
    private var lyrics: Lyrics?

    init(player: Player) {
        self.player = player
        lyrics = (try? LyricsFile.forTrack(player.track, sidecar: player.sidecar))??.lyrics
    }

    /// `{"event":"markers","markers":[{"name":…,"time":…}…]}` when the sidecar has changed since
    /// the last one (or `force`); nil when it has not.
    mutating func markersMessage(force: Bool) -> String? {
        guard let loaded = try? SidecarStore.load(for: player.track, explicit: player.sidecar) else { return force ? Self.markersLine([]) : nil }
        let path = loaded.readPath ?? loaded.writePath
        var info = stat()
        let now = stat(path, &info) == 0 ? "\(path) \(info.st_size) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec)" : path
        guard force || now != stamp else { return nil }
        stamp = now
        markers = loaded.sidecar.markers.sorted { $0.time < $1.time }
        beats = loaded.sidecar.beats
        return Self.markersLine(markers, tempo: beats?.tempo)
    }

    /// With the beat grid's tempo, which a count-in set from the page takes.
    static func markersLine(_ markers: [Marker], tempo: Double? = nil) -> String {
        var o: [String: JSONValue] = ["event": .string("markers"), "markers": .array(markers.map { .object(["name": .string($0.name), "time": .seconds($0.time)]) })]
        if let tempo { o["tempo"] = .double(tempo) }
        return JSONValue.object(o).compact()
    }

    /// The `full` state message with a `view`: `section` (the marker it opens at, or none),
    /// `eight` (`{"name":"Eight","group":3,"beat":5}` from the beat grid) and `lyric` (the line heard).
    func stateMessage(_ state: PlayerState, kind: PlayerEvent.Kind) -> String {
        var o = player.fullMessage(state, kind: kind).object
        // The phone is told no path on this machine.
        o["path"] = nil
        var view: [String: JSONValue] = [:]
        let times = markers.map(\.time)
        let section = Sections.section(times, at: state.position)
        if let k = section.opening { view["section"] = .string(markers[k].name) }
        if let k = section.closing { view["next"] = .string(markers[k].name) }
        if let g = beats, let here = g.beat(at: state.position) {
            view["eight"] = .object(["name": .string(g.countName.capitalized), "group": .integer(here.group), "beat": .integer(here.beat), "of": .integer(g.meter)])
        }
        if let l = lyrics, let k = l.lineIndex(at: state.position) { view["lyric"] = .string(l.lines[k].text) }
        o["view"] = .object(view)
        return JSONValue.object(o).compact()
    }
}
