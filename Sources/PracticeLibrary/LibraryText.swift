// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeDocuments

/// The library as `practice library list`, `search` and `pick` print it: tables for a person
/// (text from tags and file names neutralised), JSON for scripts (Formats/README.md).
extension LibraryTrack {
    public var json: JSONValue {
        var o: [String: JSONValue] = ["path": .string(path), "duration": .seconds(duration),
                                      "markers": .integer(markerCount), "loops": .integer(loopCount), "lyrics": .bool(hasLyrics)]
        for (key, value) in [("title", title), ("artist", artist), ("album", album), ("albumArtist", albumArtist),
                             ("genre", genre), ("cover", cover), ("problem", problem)] {
            if let value { o[key] = .string(value) }
        }
        for (key, value) in [("year", year), ("track", trackNumber), ("disc", discNumber)] where value > 0 { o[key] = .integer(value) }
        return .object(o)
    }

    /// Every track, a row each, by the order given.
    public static func table(_ tracks: [LibraryTrack]) -> [String] {
        let rows = tracks.map { t in
            [t.displayArtist.terminalSafe, t.displayTitle.terminalSafe, (t.album ?? "").terminalSafe,
             t.duration > 0 ? Timecode.format(t.duration) : "", t.has, t.path.terminalSafe]
        }
        return Table.render(header: ["ARTIST", "TITLE", "ALBUM", "LENGTH", "HAS", "FILE"], rows: rows, rightAligned: [3])
    }
}

extension LibraryHit {
    public var json: JSONValue {
        var o: [String: JSONValue] = ["path": .string(track.path), "kind": .string(kind.rawValue), "text": .string(text),
                                      "title": .string(track.displayTitle), "artist": .string(track.displayArtist)]
        if let time { o["time"] = .seconds(time) }
        return .object(o)
    }

    public static func table(_ hits: [LibraryHit]) -> [String] {
        let rows = hits.map { h in
            [h.track.path.terminalSafe, h.time.map { Timecode.format($0, decimals: 3) } ?? "", h.kind.rawValue,
             h.kind == .tags ? "\(h.track.displayArtist) — \(h.track.displayTitle)".terminalSafe : h.text.terminalSafe]
        }
        return Table.render(header: ["FILE", "TIME", "IN", "WHAT"], rows: rows, rightAligned: [1])
    }
}

extension TodaysPick {
    public var json: JSONValue {
        var o: [String: JSONValue] = ["path": .string(track.path), "title": .string(track.displayTitle),
                                      "artist": .string(track.displayArtist), "reason": .string(reason)]
        if let from { o["from"] = .seconds(from) }
        return .object(o)
    }

    /// `Today's pick: artist — title (why)` and the file on the next line.
    public var text: String {
        "Today's pick: \(track.displayArtist.terminalSafe) — \(track.displayTitle.terminalSafe) (\(reason.terminalSafe))\n  \(track.path.terminalSafe)"
    }
}
