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
                    let size = try ReportPage.write(report, sessions: try journal.sessions(from: from, to: to),
                                                    title: JournalText.title(days, from: from, to: to), to: html, force: force)
                    Terminal.write("practice: wrote \(html) (\(ProgressBar.size(Int64(size))))\n", to: STDERR_FILENO)
                    return
                }
                if json { Console.printJSON(JournalText.json(report)); return }
                Terminal.write(JournalText.render(report, title: JournalText.title(days, from: from, to: to)).joined(separator: "\n") + "\n", to: STDOUT_FILENO)
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
