// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeDocuments
import PracticeJournal
import PracticeTUI

/// `practice journal`: the report for some days (a table, JSON, CSV or a web page), and notes.
public enum JournalCommands {
    /// The journal for `days` (today, week, 2026-11-24, FROM..TO) as asked.
    public static func show(_ days: String, json: Bool, csv: Bool, html: String?, force: Bool) throws {
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
            let size = try ReportPage.write(report, sessions: try journal.sessions(from: from, to: to),
                                            title: JournalText.title(days, from: from, to: to), to: html, force: force)
            Terminal.write("practice: wrote \(html) (\(ProgressBar.size(Int64(size))))\n", to: STDERR_FILENO)
            return
        }
        if json { Console.printJSON(JournalText.json(report)); return }
        Console.say(lines: JournalText.render(report, title: JournalText.title(days, from: from, to: to)))
    }

    /// Writes a note for `date` (2026-11-24, today, yesterday).
    public static func note(_ words: [String], on date: String) throws {
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
