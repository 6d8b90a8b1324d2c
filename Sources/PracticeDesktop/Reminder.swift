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
    public static var unitFolder: String { XDG.directory("XDG_CONFIG_HOME", default: ".config").appendingPathComponent("systemd/user").path }

    /// This binary's own path, for the units and the crontab line.
    public static var binary: String { Path.resolved("/proc/self/exe") ?? CommandLine.arguments[0] }

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
        do { try FileManager.default.createDirectory(atPath: unitFolder, withIntermediateDirectories: true) } catch {
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
}
