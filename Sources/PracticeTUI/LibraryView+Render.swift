// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments
import PracticeLibrary

/// A cover as the terminal can show it: lines of coloured Unicode blocks, or one kitty or sixel
/// sequence drawn over blank cells from their top-left corner once the text is drawn.
public enum CoverDrawing: Sendable, Equatable {
    case cells([String])
    case overlay(String)
    /// Still being decoded: blank cells until it is ready.
    case pending
}

/// A picture to draw over the frame: at a row and column counted from 0.
public struct Overlay: Sendable, Equatable {
    public var row: Int
    public var column: Int
    public var sequence: String
}

extension LibraryView {
    /// A cover's size in the grid: 14 columns by 7 rows (a square picture in 1:2 cells).
    public static let coverColumns = 14
    public static let coverRows = 7
    static let tileWidth = coverColumns + 2
    static let tileHeight = coverRows + 3

    /// The screen as `height` lines of at most `width` columns. `cover` draws an image file in
    /// the given columns and rows (lines ending with the attributes reset), or gives nil (no
    /// picture: text mode, or an image that cannot be decoded), and the album's title is drawn
    /// in a frame instead. Text from tags and file names is made terminal-safe here.
    public mutating func render(width: Int, height: Int, cover: (String, Int, Int) -> CoverDrawing?) -> [String] {
        let w = max(width, 1)
        overlays = []
        var lines: [String] = []
        let albums = self.albums
        let shown = shownCount
        var filters: [String] = []
        if filter.markers { filters.append("markers") }
        if filter.lyrics { filters.append("lyrics") }
        if filter.thisWeek { filters.append("this week") }
        let counts = "\(shown) track\(shown == 1 ? "" : "s"), \(albums.count) album\(albums.count == 1 ? "" : "s")"
        let right = [scanning, filters.isEmpty ? nil : "only: " + filters.joined(separator: ", ")].compactMap { $0 }.joined(separator: " · ")
        lines.append(Screen.spread(Screen.bold("practice library") + " · " + counts, right, w))
        if let pick {
            lines.append("Today's pick: " + Screen.bold("\(pick.track.displayArtist.terminalSafe) — \(pick.track.displayTitle.terminalSafe)")
                         + " (\(pick.reason.terminalSafe))  " + Screen.dim("p plays it"))
        } else {
            lines.append(Screen.dim("Today's pick: none yet (no tracks)"))
        }
        if typing || mode == .search {
            let box = "/ " + query.terminalSafe + (typing ? "▏" : "")
            lines.append(Screen.spread(box, "\(shownHits.count) hit\(shownHits.count == 1 ? "" : "s")", w))
        } else {
            lines.append(String(repeating: "─", count: w))
        }
        let room = max(height - lines.count - 1, 1)
        switch mode {
        case .grid: lines += grid(albums, width: w, room: room, top: lines.count, cover: cover)
        case .album(let k): lines += albumLines(k < albums.count ? albums[k] : nil, width: w, room: room)
        case .list: lines += listLines(width: w, room: room)
        case .search: lines += searchLines(width: w, room: room)
        }
        lines = Screen.pad(lines.map { Screen.fit($0, w) }, w, height - 1)
        lines.append(Screen.fit(message.map { $0.terminalSafe } ?? hint, w))
        return lines
    }

    var hint: String {
        let keys: String
        switch mode {
        case .grid: keys = "←→↑↓ move · Enter album · Space preview · / search · Tab list · m markers · y lyrics · w this week · p pick · q quit"
        case .album: keys = "↑↓ move · Enter practise · Space preview · Esc albums · / search · q quit"
        case .list: keys = "↑↓ move · Enter practise · Space preview · s sort by \(sort == .artist ? "title" : "artist") · Tab albums · / search · q quit"
        case .search: keys = typing ? "type to search · Enter or ↓ picks from the hits · Esc closes" : "↑↓ move · Enter practise (at the hit's time) · Space preview · / edit · Esc back · q quit"
        }
        return Screen.dim(keys)
    }

    mutating func grid(_ albums: [LibraryAlbum], width: Int, room: Int, top: Int, cover: (String, Int, Int) -> CoverDrawing?) -> [String] {
        guard !albums.isEmpty else {
            if tracks.isEmpty, scanning != nil { return ["Looking through the music folders…"] }
            return [filter.isEmpty ? "No tracks: add a folder with 'practice library scan FOLDER'." : "No album has tracks that pass the filters."]
        }
        let perRow = max(width / Self.tileWidth, 1)
        columnsLastDrawn = perRow
        let visibleRows = max(room / Self.tileHeight, 1)
        let selectedRow = current / perRow
        let firstRow = max(0, selectedRow - visibleRows + 1)
        var out: [String] = []
        for row in firstRow..<(firstRow + visibleRows) {
            let start = row * perRow
            guard start < albums.count else { break }
            let tiles = (start..<min(start + perRow, albums.count)).map { k in
                let (lines, overlay) = tile(albums[k], selected: k == current, cover: cover)
                // A picture is drawn only where all of its cells are on the screen (the text is cut
                // at the screen's edge; a picture would not be).
                let column = (k - start) * Self.tileWidth + 1
                if let overlay, column + Self.coverColumns <= width, top + out.count + Self.coverRows <= top + room {
                    overlays.append(Overlay(row: top + out.count, column: column, sequence: overlay))
                }
                return lines
            }
            for line in 0..<Self.tileHeight {
                out.append(tiles.map { $0[line] }.joined())
            }
        }
        return out
    }

    /// One album: its cover (or a frame with its title), its title and its artist, `tileWidth`
    /// wide; and a picture to draw over the cover's cells, for kitty and sixel pictures.
    func tile(_ album: LibraryAlbum, selected: Bool, cover: (String, Int, Int) -> CoverDrawing?) -> ([String], String?) {
        let cw = Self.coverColumns, ch = Self.coverRows
        var overlay: String?
        var picture: [String] = []
        switch album.cover.flatMap({ cover($0, cw, ch) }) {
        case .cells(let lines)?: picture = lines
        case .overlay(let sequence)?:
            overlay = sequence
            picture = Array(repeating: String(repeating: " ", count: cw), count: ch)
        case .pending?:
            picture = Array(repeating: String(repeating: " ", count: cw), count: ch)
        case nil: break
        }
        if picture.isEmpty {
            picture = frame(album.title, columns: cw, rows: ch)
        } else {
            // Centred: chafa keeps the picture's shape, so it can be narrower or shorter than the cell.
            let pw = picture.map { Screen.columns(of: $0) }.max() ?? 0
            let left = max((cw - pw) / 2, 0)
            picture = picture.map { String(repeating: " ", count: left) + $0 + String(repeating: " ", count: max(cw - pw - left, 0)) }
            let top = max((ch - picture.count) / 2, 0)
            picture = Array(repeating: String(repeating: " ", count: cw), count: top) + picture
            while picture.count < ch { picture.append(String(repeating: " ", count: cw)) }
        }
        func cell(_ s: String) -> String {
            let fitted = Screen.fit(s, cw)
            return fitted + String(repeating: " ", count: max(cw - Screen.columns(of: fitted), 0))
        }
        let title = cell(album.title.terminalSafe)
        var lines = picture.prefix(ch).map { " " + $0 + " " }
        lines.append(" " + (selected ? Screen.reverse(title) : Screen.bold(title)) + " ")
        lines.append(" " + cell(album.artist.terminalSafe) + " ")
        lines.append(String(repeating: " ", count: Self.tileWidth))
        return (lines, overlay)
    }

    /// A frame with the title inside, for an album without a picture (or a terminal without colour).
    func frame(_ title: String, columns: Int, rows: Int) -> [String] {
        let inner = columns - 2
        var words = title.terminalSafe.split(separator: " ").map(String.init)
        var text: [String] = []
        while !words.isEmpty, text.count < rows - 2 {
            var line = words.removeFirst()
            while let next = words.first, Table.width(of: line) + 1 + Table.width(of: next) <= inner { line += " " + next; words.removeFirst() }
            text.append(Screen.fit(line, inner))
        }
        let top = max((rows - 2 - text.count) / 2, 0)
        var out = ["┌" + String(repeating: "─", count: inner) + "┐"]
        for k in 0..<(rows - 2) {
            let t = k >= top && k - top < text.count ? text[k - top] : ""
            let pad = inner - Table.width(of: t)
            out.append("│" + String(repeating: " ", count: pad / 2) + t + String(repeating: " ", count: pad - pad / 2) + "│")
        }
        out.append("└" + String(repeating: "─", count: inner) + "┘")
        return out
    }

    func albumLines(_ album: LibraryAlbum?, width: Int, room: Int) -> [String] {
        guard let album else { return [] }
        var out = [Screen.bold(album.title.terminalSafe) + " — " + album.artist.terminalSafe + (album.year > 0 ? " (\(album.year))" : "")]
        let apart = LibraryTrack.distinctions(among: album.tracks)
        let rows = album.tracks.map { t in
            [t.trackNumber > 0 ? String(t.trackNumber) : "", t.displayTitle(apart).terminalSafe,
             t.displayArtist == album.artist ? "" : t.displayArtist.terminalSafe,
             t.duration > 0 ? Timecode.format(t.duration, decimals: 0) : "", t.has]
        }
        out += window(Table.render(header: ["#", "TITLE", "ARTIST", "LENGTH", "HAS"], rows: rows, rightAligned: [0, 3]), room: room - 1)
        return out
    }

    func listLines(width: Int, room: Int) -> [String] {
        let l = listed
        guard !l.isEmpty else { return ["No tracks pass the filters."] }
        let rows = l.map { t in
            [t.displayArtist.terminalSafe, t.displayTitle(apart).terminalSafe, (t.album ?? "").terminalSafe,
             t.duration > 0 ? Timecode.format(t.duration, decimals: 0) : "", t.has]
        }
        let header = sort == .artist ? ["ARTIST ▾", "TITLE", "ALBUM", "LENGTH", "HAS"] : ["ARTIST", "TITLE ▾", "ALBUM", "LENGTH", "HAS"]
        return window(Table.render(header: header, rows: rows, rightAligned: [3]), room: room)
    }

    func searchLines(width: Int, room: Int) -> [String] {
        let h = shownHits
        guard !h.isEmpty else { return [query.isEmpty ? "Type to search tags, file names, markers, loops and lyrics." : "Nothing matches."] }
        // The FLAC and the Ogg of one song are told apart by format (and folder).
        let apart = LibraryTrack.distinctions(among: h.map(\.track))
        let rows = h.map { hit in
            ["\(hit.track.displayArtist) — \(hit.track.displayTitle(apart))".terminalSafe, hit.time.map { Timecode.format($0, decimals: 1) } ?? "",
             hit.kind.rawValue, hit.kind == .tags ? (hit.track.album ?? "").terminalSafe : hit.text.terminalSafe]
        }
        return window(Table.render(header: ["TRACK", "AT", "IN", "WHAT"], rows: rows, rightAligned: [1]), room: room)
    }

    /// A table's header and the rows around the picked one, that one reversed.
    func window(_ table: [String], room: Int) -> [String] {
        guard let header = table.first else { return [] }
        let rows = Array(table.dropFirst())
        let visible = max(room - 1, 1)
        let first = max(0, min(current - visible / 2, rows.count - visible))
        return [Screen.dim(header)] + rows.enumerated().dropFirst(first).prefix(visible).map { k, line in
            k == current ? Screen.reverse(line) : line
        }
    }
}
