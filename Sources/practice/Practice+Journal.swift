// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands

extension Practice {
    struct JournalCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            group: "journal",
            abstract: "Show what you practised: time, passes and speed by day, song, section and genre.",
            discussion: """
                Every play session is recorded in $XDG_DATA_HOME/practice/journal.sqlite as it \
                goes (--no-journal, or 'record = false' under [journal] in config.toml, turns it \
                off). Nothing leaves the machine.

                Examples:
                  practice journal                 this week
                  practice journal month --csv     for a spreadsheet
                  practice journal 2026-11-01..2026-11-24 --json
                  practice journal year --html report.html
                  practice journal note "The turn at 1:12 finally works"
                """,
            subcommands: [Show.self, Note.self])

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

            func run() throws { try JournalCommands.show(days, json: json, csv: csv, html: html, force: force) }
        }

        struct Note: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "note",
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

            func run() throws { try JournalCommands.note(words, on: date) }
        }
    }
}
