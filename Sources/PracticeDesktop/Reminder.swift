// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments
import PracticeSystem

/// The daily reminder's systemd user units (a timer and the one-shot service it starts) and the
/// `systemctl --user` calls that enable and remove them.
public enum Reminder {
    public static let timerName = "practice-remind.timer"
    public static let serviceName = "practice-remind.service"
    public static var unitFolder: String { Path.appending("systemd/user", to: XDG.folder("XDG_CONFIG_HOME", default: ".config")) }

    /// This binary's own path, for the units and the crontab line.
    public static var binary: String { Path.executable }

    /// Whether systemd runs this machine (sd_booted's test) and its `systemctl` is there.
    public static var hasSystemd: Bool {
        FileManager.default.fileExists(atPath: "/run/systemd/system") && FileManager.default.isExecutableFile(atPath: "/usr/bin/systemctl")
    }

    public static func systemctl(_ arguments: [String]) -> (ok: Bool, output: String) {
        guard let r = Spawning.run("/usr/bin/systemctl", ["--user"] + arguments) else { return (false, "systemctl could not be started") }
        return (r.status == 0, r.output.split(separator: "\n").first.map(String.init) ?? "")
    }

    /// The timer (every day at `clock`) and the one-shot service it starts, written atomically.
    public static func writeUnits(at clock: String) throws(PracticeError) {
        guard FileSystem.makeFolders(unitFolder) else {
            throw PracticeError(.cannotCreate, "\(unitFolder): cannot make the folder for the reminder's units")
        }
        // systemd splits ExecStart on spaces and reads % and \ specially: the path is quoted.
        var exec = ""
        for ch in binary {
            switch ch {
            case "\\": exec += "\\\\"
            case "\"": exec += "\\\""
            case "%": exec += "%%"
            default: exec.append(ch)
            }
        }
        let service = """
            # Written by 'practice remind at'; 'practice remind off' removes it.
            [Unit]
            Description=Remind me to practise if I have not today (practice)

            [Service]
            Type=oneshot
            ExecStart="\(exec)" remind check

            """
        let timer = """
            # Written by 'practice remind at'; 'practice remind off' removes it.
            [Unit]
            Description=Every day at \(clock): a practice reminder if I have not practised

            [Timer]
            OnCalendar=*-*-* \(clock):00
            Unit=\(serviceName)

            [Install]
            WantedBy=timers.target

            """
        try AtomicFile.write(Data(service.utf8), to: unitFolder + "/" + serviceName)
        try AtomicFile.write(Data(timer.utf8), to: unitFolder + "/" + timerName)
    }

    /// Stops the timer and removes both units; false when neither was there.
    public static func removeUnits() throws(PracticeError) -> Bool {
        let paths = [timerName, serviceName].map { unitFolder + "/" + $0 }
        guard paths.contains(where: { FileManager.default.fileExists(atPath: $0) }) else { return false }
        if hasSystemd { _ = systemctl(["disable", "--now", timerName]) }
        for p in paths where FileManager.default.fileExists(atPath: p) {
            do { try FileManager.default.removeItem(atPath: p) } catch {
                throw PracticeError(.cannotCreate, "\(p): cannot remove it (\(systemMessage()))")
            }
        }
        if hasSystemd { _ = systemctl(["daemon-reload"]) }
        return true
    }

    /// `practice remind at HH:MM`: the timer's units written and (with `enable`) started; without
    /// systemd, the crontab line to add instead is printed.
    public static func schedule(at time: String, enable: Bool) throws(PracticeError) {
        guard let (hour, minute) = clockTime(time) else {
            throw PracticeError(.usage, "'\(time.terminalSafe)' is not a time of day (HH:MM, 00:00 to 23:59)")
        }
        let clock = cFormat("%02d:%02d", hour, minute)
        guard !enable || hasSystemd else {
            Terminal.write("practice: systemd does not run this machine; add this line to your crontab ('crontab -e') instead:\n", to: STDERR_FILENO)
            // The session's runtime folder (its bus is where the notification goes): this
            // session's when it has one, else the shell's guess for the user.
            let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty || $0.contains(" ") ? nil : $0 } ?? "/run/user/$(id -u)"
            Terminal.write("\(minute) \(hour) * * * XDG_RUNTIME_DIR=\(runtime) \(binary) remind check\n", to: STDOUT_FILENO)
            return
        }
        try writeUnits(at: clock)
        if !enable {
            Terminal.write("practice: wrote \(unitFolder)/\(timerName) and \(serviceName) (not enabled: 'systemctl --user enable --now \(timerName)' starts it)\n", to: STDERR_FILENO)
            return
        }
        for step in [["daemon-reload"], ["enable", "--now", timerName]] {
            let r = systemctl(step)
            guard r.ok else {
                throw PracticeError(.unavailable, "systemctl --user \(step.joined(separator: " ")) failed (\(r.output.terminalSafe)); the units are in \(unitFolder)")
            }
        }
        Terminal.write("practice: a reminder at \(clock) every day when you have not practised (\(unitFolder)/\(timerName))\n", to: STDERR_FILENO)
    }

    /// `practice remind off`: the timer stopped and its units removed.
    public static func cancel() throws(PracticeError) {
        guard try removeUnits() else {
            Terminal.write("practice: no reminder is set (a crontab line, if you added one, stays: 'crontab -e')\n", to: STDERR_FILENO)
            return
        }
        Terminal.write("practice: no more reminders (removed \(timerName) and \(serviceName))\n", to: STDERR_FILENO)
    }

    /// `HH:MM` (or `H:MM`), 00:00 to 23:59.
    static func clockTime(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        return (h, m)
    }
}
