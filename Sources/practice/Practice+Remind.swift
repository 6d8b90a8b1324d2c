// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeCommands
import PracticeDesktop

extension Practice {
    struct Remind: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remind",
            abstract: "Get a desktop notification at a time of day when you have not practised yet.",
            discussion: """
                'remind at 19:00' installs a systemd user timer and service (in \
                $XDG_CONFIG_HOME/systemd/user/) that run 'practice remind check' every day at that \
                time; without systemd it prints the crontab line to add instead. The notification \
                names today's pick. 'remind off' removes them.

                Examples:
                  practice remind at 19:00
                  practice remind off
                """,
            subcommands: [At.self, Off.self, Check.self])

        struct At: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "at",
                abstract: "Remind me every day at TIME (24-hour, 19:00) if I have not practised.",
                discussion: """
                    Examples:
                      practice remind at 19:00
                      practice remind at 7:30 --no-enable    # only write the units
                    """)
            @Argument(help: "The time of day, HH:MM.")
            var time: String
            @Flag(help: "Write the units without asking systemd to start the timer (to look at them, or for a machine set up later).")
            var noEnable = false

            func run() throws {
                try Reminder.schedule(at: time, enable: !noEnable)
            }
        }

        struct Off: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "off",
                abstract: "No more reminders: the timer stopped and its units removed.",
                discussion: """
                    Example:
                      practice remind off       # the timer stopped, its units gone
                    """)

            func run() throws {
                try Reminder.cancel()
            }
        }

        struct Check: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "check",
                abstract: "Notify when nothing was practised today (what the reminder's timer runs).",
                discussion: """
                    Silent when the journal has practice today. The notification names today's pick.

                    Example:
                      practice remind check     # what the timer runs each day
                    """)

            func run() throws { try TrackCommands.remindIfIdle() }
        }
    }
}
