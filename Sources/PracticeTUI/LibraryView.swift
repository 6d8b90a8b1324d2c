// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments
import PracticeLibrary

/// The library screen's state and drawing, without a terminal: keys in, actions out, lines to
/// show. The index's contents come in from outside (`LibraryScreen` reads them), so this is a
/// view of them, never a second copy that could drift: a rescan replaces them.
public struct LibraryView: Sendable {
    public enum Mode: Sendable, Equatable {
        /// The albums, as covers.
        case grid
        /// One album's tracks (an index into the albums shown).
        case album(Int)
        /// Every track, by artist or by title.
        case list
        /// What the search box finds.
        case search
    }

    public enum Sort: Sendable, Equatable { case artist, title }

    /// What the screen asks its host to do.
    public enum Action: Sendable, Equatable {
        case none
        case quit
        /// Open the practice screen on the track, from a time (a marker or lyric hit) or on a loop.
        case open(path: String, from: Double?, loop: String?)
        /// Run the search for this text and hand the hits to `found(_:)`.
        case search(String)
        /// Play (or stop) a preview of the track: 15 s from its heart.
        case preview(path: String)
    }

    public struct Filter: Sendable, Equatable {
        public var markers = false
        public var lyrics = false
        public var thisWeek = false
        public init() {}
        var isEmpty: Bool { !markers && !lyrics && !thisWeek }
    }

    public private(set) var tracks: [LibraryTrack] = []
    public var pick: TodaysPick?
    /// The tracks practised in the last seven days (by path).
    public var practisedThisWeek: Set<String> = [] { didSet { if filter.thisWeek { arrange() } } }
    public var filter = Filter() { didSet { arrange() } }
    public var mode = Mode.grid
    public var sort = Sort.artist { didSet { arrange() } }
    /// The albums with at least one track the filters let through, and those tracks in the
    /// list's order: worked out when the tracks, the filters or the order change, not at each key.
    public private(set) var albums: [LibraryAlbum] = []
    private(set) var listed: [LibraryTrack] = []
    /// What tells apart the tracks that would show alike (`LibraryTrack.distinctions`), worked out once per change.
    private(set) var apart: [String: String] = [:]
    private(set) var shownCount = 0
    /// The search box's text, and whether keys go into it.
    public var query = ""
    public var typing = false
    public private(set) var hits: [LibraryHit] = []
    /// The hits the filters let through (worked out with `albums`).
    private(set) var shownHits: [LibraryHit] = []
    /// One line of feedback.
    public var message: String?
    /// A scan running beside the screen ("scanning 45 %"), shown in the heading.
    public var scanning: String?
    /// The picked row in each mode (the grid's is an album).
    var selected: [String: Int] = [:]
    /// How the grid was laid out last: tiles a row (for ↑ ↓).
    var columnsLastDrawn = 4
    /// Kitty or sixel pictures to draw over the last frame rendered.
    public internal(set) var overlays: [Overlay] = []

    public init() {}

    /// The index's tracks (after a scan, or once at the start).
    public mutating func show(_ tracks: [LibraryTrack]) {
        self.tracks = tracks
        arrange()
    }

    mutating func arrange() {
        // The selection is kept on the same album, track or hit, wherever it moves to.
        let openAlbum: String? = if case .album(let k) = mode, k < albums.count { albums[k].key } else { nil }
        let kept = [Mode.grid, .list, .search, mode].compactMap { m in selectedIdentity(m).map { (m, $0) } }
        let shown = filter.isEmpty ? tracks : tracks.filter(passes)
        shownCount = shown.count
        albums = LibraryIndex.albums(of: shown)
        switch sort {
        case .artist: listed = shown
        case .title: listed = shown.sorted { ($0.displayTitle.lowercased(), $0.path) < ($1.displayTitle.lowercased(), $1.path) }
        }
        apart = LibraryTrack.distinctions(among: shown)
        shownHits = filter.isEmpty ? hits : hits.filter { passes($0.track) }
        if let openAlbum {
            if let k = albums.firstIndex(where: { $0.key == openAlbum }) { mode = .album(k) } else { mode = .grid }
        }
        for (m, id) in kept {
            let m = if case .album = m { mode } else { m }
            if let i = identities(m).firstIndex(of: id) { selected[key(m)] = i }
        }
        clampSelection()
    }

    /// New hits for the search box. `keepingSelection`: the same search read again (after a
    /// rescan), so the selected hit stays selected; otherwise the best hit is.
    public mutating func found(_ hits: [LibraryHit], keepingSelection: Bool = false) {
        let kept = keepingSelection ? selectedIdentity(.search) : nil
        self.hits = hits
        shownHits = filter.isEmpty ? hits : hits.filter { passes($0.track) }
        selected[key(.search)] = kept.flatMap { identities(.search).firstIndex(of: $0) } ?? 0
    }

    /// What each row of a mode is, so a selection can be found again after the rows change: an
    /// album's key, a track's path, a hit's track, kind, name, time and text.
    func identities(_ mode: Mode) -> [String] {
        switch mode {
        case .grid: return albums.map(\.key)
        case .album(let k): return k < albums.count ? albums[k].tracks.map(\.path) : []
        case .list: return listed.map(\.path)
        case .search: return shownHits.map { "\($0.track.path)\u{0}\($0.kind)\u{0}\($0.name ?? "")\u{0}\($0.time ?? -1)\u{0}\($0.text)" }
        }
    }

    func selectedIdentity(_ mode: Mode) -> String? {
        let ids = identities(mode), i = selected[key(mode)] ?? 0
        return i < ids.count ? ids[i] : nil
    }

    // MARK: What is shown

    func passes(_ t: LibraryTrack) -> Bool {
        (!filter.markers || t.markerCount + t.loopCount > 0) && (!filter.lyrics || t.hasLyrics)
            && (!filter.thisWeek || practisedThisWeek.contains(t.path))
    }


    func key(_ mode: Mode) -> String {
        switch mode {
        case .grid: return "grid"
        case .album(let k): return "album\(k)"
        case .list: return "list"
        case .search: return "search"
        }
    }

    func count(_ mode: Mode) -> Int {
        switch mode {
        case .grid: return albums.count
        case .album(let k): let a = albums; return k < a.count ? a[k].tracks.count : 0
        case .list: return listed.count
        case .search: return shownHits.count
        }
    }

    var current: Int { selected[key(mode)] ?? 0 }

    mutating func clampSelection() {
        for m in [Mode.grid, .list, .search, mode] {
            let n = count(m)
            selected[key(m)] = min(max(selected[key(m)] ?? 0, 0), max(n - 1, 0))
        }
        if case .album(let k) = mode, k >= albums.count { mode = .grid }
    }

    // MARK: Keys

    public mutating func handle(_ key: Key) -> Action {
        message = nil
        if typing { return type(key) }
        switch key {
        case .character("q"), .ctrlC: return .quit
        case .escape, .backspace:
            switch mode {
            case .album: mode = .grid
            case .search: mode = .grid; query = ""; found([])
            default: break
            }
        case .character("/"):
            typing = true
            mode = .search
            return query.isEmpty ? .none : .search(query)
        case .tab, .character("l"):
            mode = mode == .list ? .grid : .list
        case .character("g"): mode = .grid
        case .character("s"):
            sort = sort == .artist ? .title : .artist
            if mode != .list { mode = .list }
            message = "sorted by \(sort == .artist ? "artist" : "title")"
        case .character("m"):
            filter.markers.toggle()
            message = filter.markers ? "only tracks with markers or loops" : "every track"
        case .character("y"):
            filter.lyrics.toggle()
            message = filter.lyrics ? "only tracks with lyrics" : "every track"
        case .character("w"):
            filter.thisWeek.toggle()
            message = filter.thisWeek ? "only tracks practised this week" : "every track"
        case .character("p"):
            guard let pick else { message = "no pick today: the library is empty"; return .none }
            return .open(path: pick.track.path, from: nil, loop: pick.loop)
        case .left: move(-1)
        case .right: move(1)
        case .up: move(mode == .grid ? -columnsLastDrawn : -1)
        case .down: move(mode == .grid ? columnsLastDrawn : 1)
        case .pageUp: move(-10)
        case .pageDown: move(10)
        case .home: selected[self.key(mode)] = 0
        case .end: selected[self.key(mode)] = max(count(mode) - 1, 0)
        case .enter: return enter()
        case .character(" "):
            guard let path = selectedTrackPath else { return .none }
            return .preview(path: path)
        default: break
        }
        return .none
    }

    /// The track a preview is of: the one selected, or in the grid the album's first.
    var selectedTrackPath: String? {
        switch mode {
        case .grid: return current < albums.count ? albums[current].tracks.first?.path : nil
        case .album(let k): return k < albums.count && current < albums[k].tracks.count ? albums[k].tracks[current].path : nil
        case .list: return current < listed.count ? listed[current].path : nil
        case .search: return current < shownHits.count ? shownHits[current].track.path : nil
        }
    }

    mutating func move(_ by: Int) {
        let n = count(mode)
        guard n > 0 else { return }
        selected[key(mode)] = min(max(current + by, 0), n - 1)
    }

    mutating func enter() -> Action {
        switch mode {
        case .grid:
            guard current < albums.count else { return .none }
            mode = .album(current)
            selected[key(mode)] = 0
        case .album(let k):
            let a = albums
            guard k < a.count, current < a[k].tracks.count else { return .none }
            return .open(path: a[k].tracks[current].path, from: nil, loop: nil)
        case .list:
            let l = listed
            guard current < l.count else { return .none }
            return .open(path: l[current].path, from: nil, loop: nil)
        case .search:
            let h = shownHits
            guard current < h.count else { return .none }
            return .open(path: h[current].track.path, from: h[current].time, loop: h[current].kind == .loop ? h[current].name : nil)
        }
        return .none
    }

    /// Keys while the search box has them: text, Backspace, Enter (keep the hits, move among
    /// them), Esc (close the search).
    mutating func type(_ key: Key) -> Action {
        switch key {
        case .character(let c) where !c.isNewline:
            query.append(c)
        case .backspace:
            guard !query.isEmpty else { return .none }
            query.removeLast()
        case .ctrlU, .ctrlW:
            query = ""
        case .enter, .down:
            typing = false
            return .none
        case .escape, .ctrlC:
            typing = false
            query = ""
            found([])
            mode = .grid
            return .none
        default:
            return .none
        }
        if query.allSatisfy(\.isWhitespace) { found([]); return .none }
        return .search(query)
    }
}

