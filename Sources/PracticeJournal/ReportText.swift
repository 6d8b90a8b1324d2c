// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments

/// The journal as text for a terminal (bars, sparklines, tables), as JSON and as CSV.
public enum JournalText {
    public static func title(_ days: String, from: Day, to: Day) -> String {
        let span = from == to ? "\(from.short) \(from.year)" : "\(from.short) – \(to.short) \(to.year)"
        switch days {
        case "today", "yesterday", "week", "month", "year": return "\(days == "week" ? "this week" : days == "month" ? "this month" : days == "year" ? "this year" : days), \(span)"
        default: return span
        }
    }

    /// `1 h 02 min`, `42 min`, `35 s`.
    public static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        let m = (s + 30) / 60
        return m < 60 ? "\(m) min" : "\(m / 60) h \(cFormat("%02d", m % 60)) min"
    }

    public static func speed(_ v: Double) -> String { cFormat("%.2f×", v) }

    public static func progress(_ s: JournalReport.Speeds) -> String {
        guard let first = s.first, let last = s.last else { return "" }
        let spark = s.byDay.count > 1 ? "  " + sparkline(s.reduced(to: 24).byDay.map(\.speed)) : ""
        return (first == last ? speed(first) : "\(speed(first)) → \(speed(last))") + spark
    }

    /// `▁▃▅█`: each value's height between the smallest and the largest.
    public static func sparkline(_ values: [Double]) -> String {
        let ticks = Array("▁▂▃▄▅▆▇█")
        guard let low = values.min(), let high = values.max() else { return "" }
        return String(values.map { v in high > low ? ticks[Int(((v - low) / (high - low) * 7).rounded())] : ticks[3] })
    }

    /// A bar of `width` cells for `value` out of `max`, in eighths.
    public static func bar(_ value: Double, of max: Double, width: Int) -> String {
        guard max > 0, value > 0 else { return "" }
        let eighths = Int((value / max * Double(width * 8)).rounded())
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return String(repeating: "█", count: eighths / 8) + partial[eighths % 8]
    }

    public static func render(_ r: JournalReport, title: String) -> [String] {
        var out = ["Practice journal: \(title)"]
        if r.sessions == 0 {
            out.append("Nothing practised\(r.streak > 0 ? " (streak: \(r.streak) day\(r.streak == 1 ? "" : "s"))" : "").")
            return out + notes(r)
        }
        out.append("\(duration(r.seconds)) in \(r.sessions) session\(r.sessions == 1 ? "" : "s"), \(r.passes) loop pass\(r.passes == 1 ? "" : "es")"
                   + " · streak: \(r.streak) day\(r.streak == 1 ? "" : "s")")
        out.append("")
        // Bars per day (a year: per month, or it would be 365 lines).
        let rows: [(String, Double)]
        if r.days.count > 62 {
            var months: [(String, Double)] = []
            for d in r.days {
                let label = String(d.day.short.split(separator: " ").last!) + " \(d.day.year)"
                if months.last?.0 == label { months[months.count - 1].1 += d.seconds } else { months.append((label, d.seconds)) }
            }
            rows = months
        } else {
            rows = r.days.map { ($0.day.short, $0.seconds) }
        }
        let most = rows.map(\.1).max() ?? 0
        let labelWidth = rows.map { Table.width(of: $0.0) }.max() ?? 0
        for (label, seconds) in rows {
            let b = bar(seconds, of: most, width: 30)
            let line = label + String(repeating: " ", count: labelWidth - Table.width(of: label)) + "  " + b
                + String(repeating: " ", count: max(31 - Table.width(of: b), 1)) + (seconds > 0 ? duration(seconds) : "")
            out.append(String(line.reversed().drop { $0 == " " }.reversed()))
        }
        if !r.songs.isEmpty {
            out.append("")
            out += Table.render(header: ["SONG", "TIME", "SESSIONS", "PASSES", "SPEED"], rows: r.songs.map {
                [$0.song.terminalSafe, duration($0.seconds), String($0.sessions), String($0.passes), progress($0.speeds)]
            }, rightAligned: [1, 2, 3])
        }
        if !r.sections.isEmpty {
            out.append("")
            out += Table.render(header: ["SECTION", "IN", "TIME", "PASSES", "SPEED"], rows: r.sections.map {
                [($0.kind == .loop ? "loop " : "") + $0.name.terminalSafe, $0.song.terminalSafe, duration($0.seconds), String($0.passes), progress($0.speeds)]
            }, rightAligned: [2, 3])
        }
        if r.genres.count > 1 || r.genres.first?.genre != "no genre" {
            out.append("")
            out += Table.render(header: ["GENRE", "TIME", "PASSES"], rows: r.genres.map { [$0.genre.terminalSafe, duration($0.seconds), String($0.passes)] }, rightAligned: [1, 2])
        }
        return out + notes(r)
    }

    public static func notes(_ r: JournalReport) -> [String] {
        guard !r.notes.isEmpty else { return [] }
        return ["", "NOTES"] + r.notes.map { "\($0.day.short)  \($0.text.terminalSafe)" }
    }

    public static func json(_ r: JournalReport) -> JSONValue {
        func speeds(_ s: JournalReport.Speeds) -> JSONValue {
            .array(s.byDay.map { .object(["day": .string($0.day.description), "speed": .number(cFormat("%.2f", $0.speed))]) })
        }
        return .object([
            "version": .integer(1), "from": .string(r.from.description), "to": .string(r.to.description),
            "seconds": .seconds(r.seconds), "sessions": .integer(r.sessions), "passes": .integer(r.passes), "streak": .integer(r.streak),
            "days": .array(r.days.map { .object(["day": .string($0.day.description), "seconds": .seconds($0.seconds), "sessions": .integer($0.sessions), "passes": .integer($0.passes)]) }),
            "songs": .array(r.songs.map { s in
                var o: [String: JSONValue] = ["song": .string(s.song), "path": .string(s.path), "seconds": .seconds(s.seconds),
                                              "sessions": .integer(s.sessions), "passes": .integer(s.passes), "speeds": speeds(s.speeds)]
                if let g = s.genre { o["genre"] = .string(g) }
                return .object(o)
            }),
            "sections": .array(r.sections.map { .object(["song": .string($0.song), "kind": .string($0.kind.rawValue), "name": .string($0.name),
                                                         "seconds": .seconds($0.seconds), "passes": .integer($0.passes), "speeds": speeds($0.speeds)]) }),
            "genres": .array(r.genres.map { .object(["genre": .string($0.genre), "seconds": .seconds($0.seconds), "passes": .integer($0.passes)]) }),
            "notes": .array(r.notes.map { .object(["day": .string($0.day.description), "text": .string($0.text)]) }),
        ])
    }

    /// One row per session (`kind` session) and one per loop or section in it.
    public static func csv(_ sessions: [JournalSession]) -> String {
        func field(_ s: String) -> String {
            s.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) ? "\"" + s.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\"" : s
        }
        func number(_ v: Double) -> String { cFormat("%.3f", v) }
        // main_speed: the speed heard longest (a part written before it was kept: its top speed).
        var lines = ["day,started,artist,title,genre,path,kind,name,seconds,passes,top_speed,main_speed"]
        for s in sessions {
            let common = [Day(s.started).description, String(Int(s.started.timeIntervalSince1970)), s.artist ?? "", s.title ?? "", s.genre ?? "", s.path].map { field($0.terminalSafe) }
            lines.append((common + ["session", "", number(s.heard), String(s.parts.filter { $0.kind == .loop }.reduce(0) { $0 + $1.passes }),
                                    s.topSpeed.map { cFormat("%.2f", $0) } ?? "",
                                    s.speeds.max { ($0.value, $0.key) < ($1.value, $1.key) }.map { cFormat("%.2f", $0.key) } ?? ""]).joined(separator: ","))
            for p in s.parts {
                lines.append((common + [p.kind.rawValue, field(p.name.terminalSafe), number(p.seconds), String(p.passes), cFormat("%.2f", p.topSpeed),
                                        cFormat("%.2f", p.mainSpeed ?? p.topSpeed)]).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
