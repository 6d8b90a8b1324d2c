// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeControl
import PracticeDocuments
import PracticeJournal
import PracticeLibrary
import PracticeTUI
import PracticeDesktop

extension Practice {
    struct Remind: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Get a desktop notification at a time of day when you have not practised yet.",
            discussion: """
                'remind at 19:00' installs a systemd user timer and service (in
                $XDG_CONFIG_HOME/systemd/user/) that run 'practice remind check' every day at that
                time; without systemd it prints the crontab line to add instead. The notification
                names today's pick. 'remind off' removes them.

                Examples:
                  practice remind at 19:00
                  practice remind off
                """,
            subcommands: [At.self, Off.self, Check.self])

        struct At: ParsableCommand {
            static let configuration = CommandConfiguration(
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
                guard let (hour, minute) = Self.parse(time) else {
                    throw PracticeError(.usage, "'\(time.terminalSafe)' is not a time of day (HH:MM, 00:00 to 23:59)")
                }
                let clock = cFormat("%02d:%02d", hour, minute)
                guard noEnable || Reminder.hasSystemd else {
                    Terminal.write("practice: systemd does not run this machine; add this line to your crontab ('crontab -e') instead:\n", to: STDERR_FILENO)
                    // The session's runtime folder (its bus is where the notification goes): this
                    // session's when it has one, else the shell's guess for the user.
                    let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty || $0.contains(" ") ? nil : $0 } ?? "/run/user/$(id -u)"
                    Terminal.write("\(minute) \(hour) * * * XDG_RUNTIME_DIR=\(runtime) \(Reminder.binary) remind check\n", to: STDOUT_FILENO)
                    return
                }
                try Reminder.writeUnits(at: clock)
                if noEnable {
                    Terminal.write("practice: wrote \(Reminder.unitFolder)/\(Reminder.timerName) and \(Reminder.serviceName) (not enabled: 'systemctl --user enable --now \(Reminder.timerName)' starts it)\n", to: STDERR_FILENO)
                    return
                }
                for step in [["daemon-reload"], ["enable", "--now", Reminder.timerName]] {
                    let r = Reminder.systemctl(step)
                    guard r.ok else {
                        throw PracticeError(.unavailable, "systemctl --user \(step.joined(separator: " ")) failed (\(r.output.terminalSafe)); the units are in \(Reminder.unitFolder)")
                    }
                }
                Terminal.write("practice: a reminder at \(clock) every day when you have not practised (\(Reminder.unitFolder)/\(Reminder.timerName))\n", to: STDERR_FILENO)
            }

            static func parse(_ text: String) -> (Int, Int)? {
                let parts = text.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
                      let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
                return (h, m)
            }
        }

        struct Off: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "No more reminders: the timer stopped and its units removed.",
                discussion: """
                    Example:
                      practice remind off       # the timer stopped, its units gone
                    """)

            func run() throws {
                guard try Reminder.removeUnits() else {
                    Terminal.write("practice: no reminder is set (a crontab line, if you added one, stays: 'crontab -e')\n", to: STDERR_FILENO)
                    return
                }
                Terminal.write("practice: no more reminders (removed \(Reminder.timerName) and \(Reminder.serviceName))\n", to: STDERR_FILENO)
            }
        }

        struct Check: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Notify when nothing was practised today (what the reminder's timer runs).",
                discussion: """
                    Silent when the journal has practice today. The notification names today's pick.

                    Example:
                      practice remind check     # what the timer runs each day
                    """)

            func run() throws {
                let journal = try Journal()
                if try journal.practiceDays().first == Day.today { return }
                var body = "Nothing practised yet today."
                if let index = try? LibraryIndex(), let pick = try? index.pick(practised: LibraryIndex.practised()) {
                    body += " Today's pick: \(pick.track.displayArtist) — \(pick.track.displayTitle) (\(pick.reason))."
                }
                try DesktopNotification.send(summary: "Time to practise", body: body.terminalSafe)
            }
        }
    }
}
