// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// What the views beside the screen show with the player's state (the phone's page, the video's
/// overlay), worked out here as the screen works it out so that none keeps rules of its own: the
/// markers, the section the heard position is in, the eight-count and the lyric line. Read from
/// the track's sidecar and lyrics, again when the sidecar changes (a marker dropped on the
/// screen, or from a phone).
public struct TrackView: Sendable {
    public let player: Player
    private var stamp = ""
    /// The file last read (or where it would be): looked at first, so an unchanged sidecar is not read again.
    private var lastPath: String?
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
    /// it was read. An unreadable sidecar is no markers and no beats. The file last read is looked
    /// at first: while it is unchanged (size, time, inode) nothing is read.
    public mutating func refresh(force: Bool) -> Bool {
        if !force, let lastPath, FileStamp.of(lastPath) == stamp { return false }
        guard let loaded = try? SidecarStore.load(for: player.track, explicit: player.sidecar) else {
            if force { (markers, beats, stamp, lastPath) = ([], nil, "", nil) }
            return force
        }
        let path = loaded.readPath ?? loaded.writePath
        let now = FileStamp.of(path)
        defer { (stamp, lastPath) = (now, path) }
        guard force || now != stamp || path != lastPath else { return false }
        markers = loaded.sidecar.markers.sorted { $0.time < $1.time }
        beats = loaded.sidecar.beats
        return true
    }

    /// The first moment after `position` at which `here(at:)` says something else (the next
    /// marker, beat or lyric line), on the track's timeline; nil when nothing changes after it.
    public func nextChange(after position: Double) -> Double? {
        var next: Double?
        func consider(_ t: Double) { if t > position, next.map({ t < $0 }) ?? true { next = t } }
        if let k = Sections.next(markers.map(\.time), after: position) { consider(markers[k].time - 0.0005) }
        if let g = beats, let t = g.times.first(where: { $0 > position + 0.0005 }) { consider(t - 0.0005) }
        if let l = lyrics, let line = l.lines.first(where: { $0.time > position }) { consider(line.time) }
        return next
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
