// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeJournal
import PracticeTUI

extension Practice {
    struct JournalCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "journal",
            abstract: "Show what you practised: time, passes and speed by day, song, section and genre.",
            discussion: """
                Every play session is recorded in $XDG_DATA_HOME/practice/journal.sqlite as it
                goes (--no-journal, or 'record = false' under [journal] in config.toml, turns it
                off). Nothing leaves the machine.

                Examples:
                  practice journal                 this week
                  practice journal month --csv     for a spreadsheet
                  practice journal 2026-11-01..2026-11-24 --json
                  practice journal year --html report.html
                  practice journal note "The turn at 1:12 finally works"
                """,
            subcommands: [Show.self, Note.self],
            defaultSubcommand: Show.self)

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the journal for some days (the default).", shouldDisplay: false)

            @Argument(help: "today, yesterday, week (Monday to Sunday), month, year, a day (2026-11-24) or FROM..TO.")
            var days = "week"
            @Flag(help: "JSON for scripts.")
            var json = false
            @Flag(help: "CSV for a spreadsheet: one row per session and per loop or section in it.")
            var csv = false
            @Option(help: ArgumentHelp("Write the report as one self-contained web page (charts by week, month, genre, song and section; a calendar; the notes).", valueName: "FILE"))
            var html: String?
            @Flag(help: "With --html, replace FILE even if it is not a report practice wrote.")
            var force = false

            func run() throws {
                guard let (from, to) = DaySpan.parse(days) else {
                    throw PracticeError(.usage, "'\(days.terminalSafe)' is not a span of days (today, week, month, year, 2026-11-24 or 2026-11-01..2026-11-24)")
                }
                let journal = try Journal()
                if let warning = journal.warning { Terminal.write("practice: warning: \(warning)\n", to: STDERR_FILENO) }
                if csv {
                    Terminal.write(JournalText.csv(try journal.sessions(from: from, to: to)), to: STDOUT_FILENO)
                    return
                }
                let report = try JournalReport.make(journal, from: from, to: to)
                if let html {
                    try writePage(report, sessions: try journal.sessions(from: from, to: to), to: html)
                    return
                }
                if json { printJSON(JournalText.json(report)); return }
                Terminal.write(JournalText.render(report, title: JournalText.title(days, from: from, to: to)).joined(separator: "\n") + "\n", to: STDOUT_FILENO)
            }

            /// Writes the web page, atomically; a file there that is not one of our pages is kept
            /// unless --force (73).
            func writePage(_ report: JournalReport, sessions: [JournalSession], to path: String) throws(PracticeError) {
                if !force, FileManager.default.fileExists(atPath: path) {
                    let head = FileManager.default.contents(atPath: path).map { Array($0.prefix(ReportPage.signature.utf8.count)) } ?? []
                    guard head == Array(ReportPage.signature.utf8) else {
                        throw PracticeError(.cannotCreate, "\(path): exists and is not a journal report; choose another file or add --force")
                    }
                }
                let page = ReportPage.html(report, sessions: sessions, title: JournalText.title(days, from: report.from, to: report.to))
                try AtomicFile.write(Data(page.utf8), to: path)
                Terminal.write("practice: wrote \(path) (\(ProgressBar.size(Int64(page.utf8.count))))\n", to: STDERR_FILENO)
            }
        }

        struct Note: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write a note in the journal for today (or another day).",
                discussion: """
                    Examples:
                      practice journal note "Chorus at 0.9 for the first time"
                      practice journal note --date 2026-11-20 "Rehearsal with the crew"
                    """)
            @Option(help: "The day the note is for (2026-11-24, today, yesterday).")
            var date = "today"
            @Argument(help: "The note.")
            var words: [String]

            func run() throws {
                guard let (day, last) = DaySpan.parse(date), day == last else {
                    throw PracticeError(.usage, "'\(date.terminalSafe)' is not a day (2026-11-24, today or yesterday)")
                }
                let text = words.joined(separator: " ")
                guard !text.allSatisfy(\.isBlank) else { throw PracticeError(.usage, "the note is empty") }
                let journal = try Journal()
                try journal.addNote(text, on: day)
                Terminal.write("practice: noted for \(day.short) \(day.year)\n", to: STDERR_FILENO)
            }
        }
    }
}

/// The journal as text for a terminal (bars, sparklines, tables), as JSON and as CSV.
enum JournalText {
    static func title(_ days: String, from: Day, to: Day) -> String {
        let span = from == to ? "\(from.short) \(from.year)" : "\(from.short) – \(to.short) \(to.year)"
        switch days {
        case "today", "yesterday", "week", "month", "year": return "\(days == "week" ? "this week" : days == "month" ? "this month" : days == "year" ? "this year" : days), \(span)"
        default: return span
        }
    }

    /// `1 h 02 min`, `42 min`, `35 s`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        let m = (s + 30) / 60
        return m < 60 ? "\(m) min" : "\(m / 60) h \(cFormat("%02d", m % 60)) min"
    }

    static func speed(_ v: Double) -> String { cFormat("%.2f×", v) }

    static func progress(_ s: JournalReport.Speeds) -> String {
        guard let first = s.first, let last = s.last else { return "" }
        let spark = s.byDay.count > 1 ? "  " + sparkline(s.reduced(to: 24).byDay.map(\.speed)) : ""
        return (first == last ? speed(first) : "\(speed(first)) → \(speed(last))") + spark
    }

    /// `▁▃▅█`: each value's height between the smallest and the largest.
    static func sparkline(_ values: [Double]) -> String {
        let ticks = Array("▁▂▃▄▅▆▇█")
        guard let low = values.min(), let high = values.max() else { return "" }
        return String(values.map { v in high > low ? ticks[Int(((v - low) / (high - low) * 7).rounded())] : ticks[3] })
    }

    /// A bar of `width` cells for `value` out of `max`, in eighths.
    static func bar(_ value: Double, of max: Double, width: Int) -> String {
        guard max > 0, value > 0 else { return "" }
        let eighths = Int((value / max * Double(width * 8)).rounded())
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return String(repeating: "█", count: eighths / 8) + partial[eighths % 8]
    }

    static func render(_ r: JournalReport, title: String) -> [String] {
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

    static func notes(_ r: JournalReport) -> [String] {
        guard !r.notes.isEmpty else { return [] }
        return ["", "NOTES"] + r.notes.map { "\($0.day.short)  \($0.text.terminalSafe)" }
    }

    static func json(_ r: JournalReport) -> JSONValue {
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
    static func csv(_ sessions: [JournalSession]) -> String {
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
