// SPDX-License-Identifier: GPL-3.0-or-later
/// Moving between markers as every controller does it (the screen's keys, MPRIS's Next and
/// Previous, `practice ctl next`): the markers' times, sorted, and the heard position.
public enum Sections {
    /// The first marker after `position` (half a millisecond after counts as at it).
    public static func next(_ times: [Double], after position: Double) -> Int? {
        times.firstIndex { $0 > position + 0.0005 }
    }

    /// The marker before `position`; within a second after a marker, the one before that, as
    /// players' "previous" does. Nil: go to the start.
    public static func previous(_ times: [Double], before position: Double) -> Int? {
        times.lastIndex { $0 < position - 1 }
    }

    /// The section `position` is in: the marker that opens it and the one that closes it (nil:
    /// the track's start or end).
    public static func section(_ times: [Double], at position: Double) -> (opening: Int?, closing: Int?) {
        (times.lastIndex { $0 <= position + 0.0005 }, next(times, after: position))
    }
}
