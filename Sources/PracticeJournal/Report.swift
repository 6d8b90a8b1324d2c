// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments

/// What the journal says about a span of days: time and passes per day, per song, per section
/// (and loop) and per genre, how the speed went, the streak of days, and the notes.
public struct JournalReport: Sendable, Equatable {
    public var from: Day
    public var to: Day
    /// Every day of the span, practised or not.
    public var days: [DayTotal] = []
    public var songs: [SongTotal] = []
    public var sections: [SectionTotal] = []
    public var genres: [GenreTotal] = []
    public var notes: [JournalNote] = []
    /// Days in a row with practice, up to `to` (or the day before, while `to` is today and has none yet).
    public var streak = 0
    public var seconds: Double { days.reduce(0) { $0 + $1.seconds } }
    public var passes: Int { days.reduce(0) { $0 + $1.passes } }
    public var sessions: Int { days.reduce(0) { $0 + $1.sessions } }

    public struct DayTotal: Sendable, Equatable {
        public var day: Day
        public var seconds: Double
        /// Loop passes begun.
        public var passes: Int
        public var sessions: Int
    }

    /// How fast something was played: the top speed on each day it was practised.
    public struct Speeds: Sendable, Equatable {
        public var byDay: [(day: Day, speed: Double)] = []
        public var first: Double? { byDay.first?.speed }
        public var last: Double? { byDay.last?.speed }
        public static func == (a: Speeds, b: Speeds) -> Bool { a.byDay.elementsEqual(b.byDay) { $0.day == $1.day && $0.speed == $1.speed } }
        /// At most `n` points: consecutive days grouped, each group its first day and top speed
        /// (a year of days in a sparkline or a chart of a page).
        public func reduced(to n: Int) -> Speeds {
            guard byDay.count > n, n > 0 else { return self }
            var out = Speeds()
            for k in 0..<n {
                let group = byDay[(k * byDay.count / n)..<((k + 1) * byDay.count / n)]
                guard let first = group.first else { continue }
                out.byDay.append((first.day, group.map(\.speed).max()!))
            }
            return out
        }

    }

    public struct SongTotal: Sendable, Equatable {
        public var song: String
        public var path: String
        public var genre: String?
        public var seconds: Double
        public var passes: Int
        public var sessions: Int
        public var speeds: Speeds
    }

    public struct SectionTotal: Sendable, Equatable {
        public var song: String
        public var kind: JournalPart.Kind
        public var name: String
        public var seconds: Double
        public var passes: Int
        public var speeds: Speeds
    }

    public struct GenreTotal: Sendable, Equatable {
        public var genre: String
        public var seconds: Double
        public var passes: Int
    }

    /// The report for `from` through `to` (`today` decides the streak's end).
    public static func make(_ journal: Journal, from: Day, to: Day, today: Day = .today) throws(PracticeError) -> JournalReport {
        let sessions = try journal.sessions(from: from, to: to)
        var report = JournalReport(from: from, to: to)
        report.notes = try journal.notes(from: from, to: to)
        report.fill(sessions)
        report.streak = Self.streak(of: Set(try journal.practiceDays()), endingAt: to, today: today)
        return report
    }

    /// Sums `sessions` (all within the span) into the report's tables.
    mutating func fill(_ sessions: [JournalSession]) {
        // One song under several names: a path is the song its decoded audio says, once any of
        // its sessions knows that.
        var audioOf: [String: String] = [:]
        for s in sessions { if let a = s.audio { audioOf[s.path] = a } }
        func key(_ s: JournalSession) -> String { s.audio ?? audioOf[s.path] ?? s.path }

        var byDay: [Day: DayTotal] = [:]
        var songs: [String: SongTotal] = [:], songOrder: [String] = []
        var sections: [String: SectionTotal] = [:], sectionOrder: [String] = []
        var genres: [String: GenreTotal] = [:]
        // The speed practised longest each day, by song and by section: seconds at each speed.
        var songSpeeds: [String: [Day: [Double: Double]]] = [:], sectionSpeeds: [String: [Day: [Double: Double]]] = [:]
        for s in sessions {
            let day = Day(s.started)
            let passes = s.parts.filter { $0.kind == .loop }.reduce(0) { $0 + $1.passes }
            byDay[day, default: DayTotal(day: day, seconds: 0, passes: 0, sessions: 0)].seconds += s.heard
            byDay[day]!.passes += passes
            byDay[day]!.sessions += 1
            let k = key(s)
            if songs[k] == nil { songOrder.append(k) }
            var song = songs[k] ?? SongTotal(song: s.song, path: s.path, genre: s.genre, seconds: 0, passes: 0, sessions: 0, speeds: Speeds())
            song.song = s.song   // the latest name
            song.genre = s.genre ?? song.genre
            song.seconds += s.heard
            song.passes += passes
            song.sessions += 1
            if s.heard > 0 {
                if s.speeds.isEmpty, let top = s.topSpeed { songSpeeds[k, default: [:]][day, default: [:]][top, default: 0] += s.heard }
                for (rate, seconds) in s.speeds { songSpeeds[k, default: [:]][day, default: [:]][rate, default: 0] += seconds }
            }
            songs[k] = song
            for p in s.parts {
                let pk = "\(k)\u{0}\(p.kind.rawValue)\u{0}\(p.name)"
                if sections[pk] == nil { sectionOrder.append(pk) }
                var section = sections[pk] ?? SectionTotal(song: s.song, kind: p.kind, name: p.name, seconds: 0, passes: 0, speeds: Speeds())
                section.song = s.song
                section.seconds += p.seconds
                section.passes += p.passes
                sectionSpeeds[pk, default: [:]][day, default: [:]][p.mainSpeed ?? p.topSpeed, default: 0] += max(p.seconds, 1e-9)
                sections[pk] = section
            }
            let genre = s.genre ?? "no genre"
            genres[genre, default: GenreTotal(genre: genre, seconds: 0, passes: 0)].seconds += s.heard
            genres[genre]!.passes += passes
        }
        // Each day's point: the speed practised longest that day (ties: the faster).
        func speeds(_ byDay: [Day: [Double: Double]]?) -> Speeds {
            var out = Speeds()
            for (day, at) in (byDay ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let main = at.max(by: { ($0.value, $0.key) < ($1.value, $1.key) }) { out.byDay.append((day, main.key)) }
            }
            return out
        }
        for k in songs.keys { songs[k]!.speeds = speeds(songSpeeds[k]) }
        for k in sections.keys { sections[k]!.speeds = speeds(sectionSpeeds[k]) }
        days = []
        var d = from
        while d <= to {
            days.append(byDay[d] ?? DayTotal(day: d, seconds: 0, passes: 0, sessions: 0))
            d = d.adding(days: 1)
        }
        // Most practised first; ties in the order first practised.
        self.songs = songOrder.enumerated().sorted { (songs[$0.1]!.seconds, -$0.0) > (songs[$1.1]!.seconds, -$1.0) }.map { songs[$0.1]! }
        self.sections = sectionOrder.enumerated().sorted { (sections[$0.1]!.seconds, -$0.0) > (sections[$1.1]!.seconds, -$1.0) }.map { sections[$0.1]! }
        self.genres = genres.values.sorted { ($0.seconds, $1.genre) > ($1.seconds, $0.genre) }
    }

    /// Days in a row with practice ending at `end` (a today not practised yet does not break it).
    static func streak(of practised: Set<Day>, endingAt end: Day, today: Day) -> Int {
        var d = min(end, today)
        if d == today, !practised.contains(d) { d = d.adding(days: -1) }
        var n = 0
        while practised.contains(d) { n += 1; d = d.adding(days: -1) }
        return n
    }
}

/// A span of days as people say it: `today`, `week` (Monday to Sunday), `month`, `year`, a day
/// (`2026-11-24`) or `FROM..TO`.
public enum DaySpan {
    public static func parse(_ text: String, today: Day = .today) -> (from: Day, to: Day)? {
        switch text {
        case "today": return (today, today)
        case "yesterday": return (today.adding(days: -1), today.adding(days: -1))
        case "week": return (today.weekStart, today.weekStart.adding(days: 6))
        case "month": return (today.monthStart, today.monthEnd)
        case "year": return (Day(year: today.year, month: 1, day: 1), Day(year: today.year, month: 12, day: 31))
        default:
            if let day = Day(text) { return (day, day) }
            let ends = text.split(separator: "..", maxSplits: 1, omittingEmptySubsequences: false)
            guard ends.count == 2 else { return nil }
            let from = ends[0].isEmpty ? Day(year: 1970, month: 1, day: 1) : Day(ends[0])
            let to = ends[1].isEmpty ? today : Day(ends[1])
            guard let from, let to, from <= to else { return nil }
            return (from, to)
        }
    }
}
