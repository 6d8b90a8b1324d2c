// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// `practice remind`: the systemd user units it writes (checked by `systemd-analyze verify`),
/// the crontab line without systemd, and `remind check` against a private session bus with a
/// notification server of the test's own: a notification naming today's pick, none once
/// something was practised today.
@Suite struct RemindTests {
    let dir = ScratchDirectory("remind")
    var env: [String: String] { ["XDG_CONFIG_HOME": dir.file("config"), "XDG_DATA_HOME": dir.file("data"), "XDG_CACHE_HOME": dir.file("cache"),
                                 "XDG_STATE_HOME": dir.file("state"), "HOME": dir.path] }
    var units: String { dir.file("config/systemd/user") }
    /// The binary as the units name it: its real path.
    var binary: String { URL(fileURLWithPath: practiceBinary).resolvingSymlinksInPath().path }

    func practice(_ args: [String], extra: [String: String] = [:]) throws -> ProcessResult {
        try run(practiceBinary, args, environment: env.merging(extra) { $1 }, currentDirectory: dir.path)
    }

    @Test func unitsThatSystemdAcceptsAndOffRemovesThem() throws {
        var r = try practice(["remind", "at", "19:30", "--no-enable"])
        #expect(r.status == 0 && r.stderr == "practice: wrote \(units)/practice-remind.timer and practice-remind.service (not enabled: 'systemctl --user enable --now practice-remind.timer' starts it)\n", "\(r)")
        #expect(try String(contentsOfFile: units + "/practice-remind.timer", encoding: .utf8) == """
            # Written by 'practice remind at'; 'practice remind off' removes it.
            [Unit]
            Description=Every day at 19:30: a practice reminder if I have not practised

            [Timer]
            OnCalendar=*-*-* 19:30:00
            Unit=practice-remind.service

            [Install]
            WantedBy=timers.target

            """)
        #expect(try String(contentsOfFile: units + "/practice-remind.service", encoding: .utf8) == """
            # Written by 'practice remind at'; 'practice remind off' removes it.
            [Unit]
            Description=Remind me to practise if I have not today (practice)

            [Service]
            Type=oneshot
            ExecStart="\(binary)" remind check

            """)
        let verify = try run("/usr/bin/systemd-analyze", ["verify", units + "/practice-remind.timer", units + "/practice-remind.service"])
        #expect(verify.status == 0, "\(verify)")

        for bad in ["25:00", "7", "19:5", "noon"] {
            r = try practice(["remind", "at", bad])
            #expect(r.status == 64 && r.stderr == "practice: '\(bad)' is not a time of day (HH:MM, 00:00 to 23:59)\n", "\(r)")
        }
        r = try practice(["remind", "off"])
        #expect(r.status == 0 && r.stderr == "practice: no more reminders (removed practice-remind.timer and practice-remind.service)\n", "\(r)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: units).isEmpty)
        r = try practice(["remind", "off"])
        #expect(r.status == 0 && r.stderr == "practice: no reminder is set (a crontab line, if you added one, stays: 'crontab -e')\n", "\(r)")
    }

    /// On a machine that systemd does not run (this container), the line for cron instead.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/run/systemd/system")))
    func withoutSystemdTheCrontabLine() throws {
        // The session's runtime folder where it has one; else the shell finds the user's.
        var r = try practice(["remind", "at", "7:05"], extra: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(r.status == 0 && r.stdout == "5 7 * * * XDG_RUNTIME_DIR=/run/user/1000 \(binary) remind check\n"
                && r.stderr == "practice: systemd does not run this machine; add this line to your crontab ('crontab -e') instead:\n", "\(r)")
        r = try practice(["remind", "at", "7:05"], extra: ["XDG_RUNTIME_DIR": ""])
        #expect(r.status == 0 && r.stdout == "5 7 * * * XDG_RUNTIME_DIR=/run/user/$(id -u) \(binary) remind check\n", "\(r)")
        #expect(!FileManager.default.fileExists(atPath: units))
    }

    @Test func checkNotifiesWithTodaysPickUnlessPractisedToday() throws {
        let bus = try SessionBus()
        let server = try NotificationServer(address: bus.address)
        defer { server.stop() }
        try FileManager.default.createDirectory(atPath: dir.file("music"), withIntermediateDirectories: true)
        try Signals.write(Signals.sine(440, seconds: 0.5), to: dir.file("music/drill.wav"), tags: ["title": "Drill <fast>", "artist": "Crew"])
        #expect(try practice(["library", "scan", "music", "-q"]).status == 0)
        let onBus = ["DBUS_SESSION_BUS_ADDRESS": bus.address]

        var r = try practice(["remind", "check"], extra: onBus)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        let shown = server.notifications   // answered before the command exited
        #expect(shown == [NotificationServer.Shown(app: "practice", summary: "Time to practise",
                                                   body: "Nothing practised yet today. Today's pick: Crew — Drill &lt;fast&gt; (not practised yet).")], "\(shown)")

        // Practised today: silent.
        #expect(try practice([dir.file("music/drill.wav"), "--device", "null", "--no-tui"]).status == 0)
        r = try practice(["remind", "check"], extra: onBus)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        // A notification is a call the server has answered before `remind check` exits: none came.
        #expect(server.notifications.count == 1, "\(server.notifications)")

        // No session bus at all: one line, EX_UNAVAILABLE (a fresh journal, so there is something to say).
        r = try practice(["remind", "check"], extra: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(dir.file("no-bus"))", "XDG_DATA_HOME": dir.file("other")])
        #expect(r.status == 69 && r.stderr.hasPrefix("practice: cannot reach the desktop's session bus for a notification ("), "\(r)")
    }
}
