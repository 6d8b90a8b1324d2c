// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// What a command prints: results on standard output, warnings and notes on standard error,
/// each line prefixed as every other message of ours is.
public enum Console {
    public static func say(_ line: String) { Terminal.write(line + "\n", to: STDOUT_FILENO) }

    /// Lines on standard output in one write, not one each (a listing of 10,000 markers made
    /// 10,000 writes, nine tenths of its system calls).
    public static func say(lines: some Collection<String>) {
        guard !lines.isEmpty else { return }
        var text = lines.joined(separator: "\n")
        text.append("\n")
        Terminal.write(text, to: STDOUT_FILENO)
    }

    public static func warn(_ lines: [String]) {
        for line in lines { Terminal.write("practice: warning: \(line)\n", to: STDERR_FILENO) }
    }

    /// What a format could not hold or a file did not say, for the record.
    public static func note(_ lines: [String]) {
        for line in lines { Terminal.write("practice: note: \(line)\n", to: STDERR_FILENO) }
    }

    /// `--json` output: pretty on a terminal, one line otherwise.
    public static func printJSON(_ value: JSONValue) {
        Terminal.write(Terminal.isTTY(STDOUT_FILENO) ? value.pretty() : value.compact() + "\n", to: STDOUT_FILENO)
    }
}
