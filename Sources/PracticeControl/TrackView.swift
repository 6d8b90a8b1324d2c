// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine

/// What the views beside the screen show with the player's state (the phone's page, the video's
/// overlay), worked out here as the screen works it out so that none keeps rules of its own: the
/// markers, the section the heard position is in, the eight-count and the lyric line. Read from
/// the track's sidecar and lyrics, again when the sidecar changes (a marker dropped on the
/// screen, or from a phone).
public struct TrackView: Sendable {
    public let player: Player
    private var stamp = ""
    /// The markers, by time.
    public private(set) var markers: [Marker] = []
    public private(set) var beats: BeatGrid?
    private let lyrics: Lyrics?

    /// Where the heard position is: the section (the marker it opens at) and the next marker, the
    /// eight-count (or bar) from the beat grid, the lyric line.
    public struct Here: Sendable, Equatable {
        public var section: String?
        public var next: String?
        /// "Eight" (or "Bar"), the count-group from the one, the beat in it, beats to a group.
        public var eight: (name: String, group: Int, beat: Int, of: Int)?
        public var lyric: String?

        public static func == (a: Here, b: Here) -> Bool {
            a.section == b.section && a.next == b.next && a.lyric == b.lyric
                && a.eight?.name == b.eight?.name && a.eight?.group == b.eight?.group && a.eight?.beat == b.eight?.beat && a.eight?.of == b.eight?.of
        }
    }

    public init(player: Player) {
        self.player = player
        lyrics = (try? LyricsFile.forTrack(player.track, sidecar: player.sidecar))??.lyrics
    }

    /// Reads the sidecar again when it has changed since the last look (or `force`); true when
    /// it was read. An unreadable sidecar is no markers and no beats.
    public mutating func refresh(force: Bool) -> Bool {
        guard let loaded = try? SidecarStore.load(for: player.track, explicit: player.sidecar) else {
            if force { (markers, beats, stamp) = ([], nil, "") }
            return force
        }
        let path = loaded.readPath ?? loaded.writePath
        var info = stat()
        let now = stat(path, &info) == 0 ? "\(path) \(info.st_size) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec)" : path
        guard force || now != stamp else { return false }
        stamp = now
        markers = loaded.sidecar.markers.sorted { $0.time < $1.time }
        beats = loaded.sidecar.beats
        return true
    }

    /// What is at `position`.
    public func here(at position: Double) -> Here {
        var here = Here()
        let section = Sections.section(markers.map(\.time), at: position)
        if let k = section.opening { here.section = markers[k].name }
        if let k = section.closing { here.next = markers[k].name }
        if let g = beats, let b = g.beat(at: position) { here.eight = (g.countName.capitalized, b.group, b.beat, g.meter) }
        if let l = lyrics, let k = l.lineIndex(at: position) { here.lyric = l.lines[k].text }
        return here
    }
}
