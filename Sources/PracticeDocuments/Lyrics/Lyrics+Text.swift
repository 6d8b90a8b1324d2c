// SPDX-License-Identifier: GPL-3.0-or-later

extension Lyrics {
    /// `0:12.00`: a line's time in hundredths, rounded as LRC writes it (via the millisecond).
    public static func stamp(_ seconds: Double) -> String {
        let centiseconds = (Int64((max(seconds, 0) * 1000).rounded()) + 5) / 10
        return Timecode.format(Double(centiseconds) / 100, decimals: 2)
    }

    /// `practice lyrics --json`, version 1 (Formats/README.md).
    public var document: JSONValue {
        .object([
            "version": .integer(1),
            "synced": .bool(isSynced),
            "lines": .array(lines.map { line in
                .object(["time": .seconds(line.time), "text": .string(line.text),
                         "words": .array(line.words.map { .object(["time": .seconds($0.time), "text": .string($0.text)]) })])
            }),
            "plain": .array(plain.map(JSONValue.string)),
            "tags": .object(tags.mapValues(JSONValue.string)),
        ])
    }
}
