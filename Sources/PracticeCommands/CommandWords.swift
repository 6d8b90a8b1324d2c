// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments

/// What the command line's words are before the parser sees them: nudges back that would read
/// as options, and a command misspelled.
public enum CommandWords {
    /// `markers move FILE NAME -0.25`: a nudge back reads as an option to the parser, so it goes
    /// after a `--` (where positional arguments go on), as a user would otherwise have to write.
    public static func allowingNudges(_ arguments: [String]) -> [String] {
        // `--from -1` (a time that cannot be): the value kept with its option, so that it is
        // refused as a time rather than taken for an option of its own.
        var arguments = arguments
        var k = 0
        while k + 1 < arguments.count, arguments[k] != "--" {
            if ["--from", "--to", "--one"].contains(arguments[k]), isNudgeBack(arguments[k + 1]) || arguments[k + 1] == "-0" {
                arguments[k] += "=" + arguments.remove(at: k + 1)
            }
            k += 1
        }
        guard arguments.starts(with: ["markers", "move"]), !arguments.contains("--"),
              let k = arguments.indices.dropFirst(2).first(where: { isNudgeBack(arguments[$0]) }) else { return arguments }
        var out = arguments
        let nudge = out.remove(at: k)
        return out + ["--", nudge]
    }

    /// `-0.25`, `-1:00`, `-.5`: a minus sign and a time.
    static func isNudgeBack(_ s: String) -> Bool {
        guard s.hasPrefix("-"), let second = s.dropFirst().first, second.isNumber || second == "." else { return false }
        return TimeChange(s) != nil
    }

    /// The command `word` is likely a misspelling of (`jornal` → `journal`): a word that is no
    /// file, no command and no option, one or two letters from a command's name. Nil otherwise
    /// (a file name goes on to `play`, which says it is missing).
    public static func misspelled(_ word: String, commands names: [String]) -> String? {
        guard !word.hasPrefix("-"), !word.contains("/"), !word.contains("."), !FileSystem.exists(word) else { return nil }
        guard !names.contains(word) else { return nil }
        return names.map { ($0, editDistance($0, word.lowercased())) }.filter { $0.1 <= min(2, $0.0.count / 3) }.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance between two words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
