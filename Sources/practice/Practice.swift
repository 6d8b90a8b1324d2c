// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import FoundationEssentials
import Glibc
import PracticeTUI
import PracticeDocuments
import PracticeEngine
import PracticeAudio
import PracticeControl
import PracticeSongs

@main
struct Practice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "practice",
        abstract: "A practice player: slow a recording down without changing its pitch.",
        discussion: """
            Examples:
              practice song.mp3 --rate 0.8
              practice render song.flac -o slow.wav --rate 0.75
              practice info song.ogg
              practice markers add song.mp3 Chorus 0:45
            """,
        version: "0.1.0",
        subcommands: [Play.self, Render.self, Info.self, Markers.self, Loops.self, Open.self, LyricsCommand.self, Ctl.self, Attach.self, Library.self, Pick.self, JournalCommand.self, Remind.self, Preview.self, Beats.self, Remote.self],
        defaultSubcommand: Play.self)

    /// Parses and runs, turning every error into one line on stderr and a sysexits code.
    /// What plain `practice` prints: the commands a new user needs.
    static let usage = """
        practice: a practice player. Slow a recording down without changing its pitch, mark its
        parts, loop one, and drill it.

          practice song.mp3               play it on the practice screen (? there lists the keys)
          practice song.mp3 --rate 0.8    play it at 0.8×, pitch kept
          practice markers song.mp3       its markers (shared in song.mp3.practice.json)
          practice library                your music folders: covers, search, today's pick

        More: practice --help, and practice COMMAND --help for each command.

        """

    static func main() async {
        if CommandLine.arguments.count == 1 {
            Terminal.write(usage, to: STDOUT_FILENO)
            Glibc.exit(0)
        }
        if let first = CommandLine.arguments.dropFirst().first, let command = misspelledCommand(first) {
            fail("\(first.terminalSafe): no such file, nor a command; did you mean 'practice \(command)'?", code: PracticeError.Kind.usage.rawValue)
        }
        do {
            var command = try parseAsRoot(argumentsAllowingNudges(Array(CommandLine.arguments.dropFirst())))
            // One rule for every command, as git has for its configuration: a settings file that
            // cannot be read is said (exit 78) before anything is done, whether or not the command
            // uses a setting (its warnings are the commands' that read it to say).
            _ = try Config.load(warn: false)
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch let error as PracticeError {
            fail(error.message, code: error.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                Terminal.write(fullMessage(for: error) + "\n", to: STDOUT_FILENO)
                Glibc.exit(0)
            }
            if error is ExitCode { Glibc.exit(code.rawValue) }
            let message = message(for: error)
                .replacing("Error: ", with: "")
                .split(separator: "\n").first.map(String.init) ?? "\(error)"
            fail("\(message) (see 'practice --help')", code: code.rawValue)
        }
    }

    /// `markers move FILE NAME -0.25`: a nudge back reads as an option to the parser, so it goes
    /// after a `--` (where positional arguments go on), as a user would otherwise have to write.
    static func argumentsAllowingNudges(_ arguments: [String]) -> [String] {
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
    static func misspelledCommand(_ word: String) -> String? {
        guard !word.hasPrefix("-"), !word.contains("/"), !word.contains("."), !FileManager.default.fileExists(atPath: word) else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
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

    static func fail(_ message: String, code: Int32) -> Never {
        Terminal.write("practice: \(message)\n", to: STDERR_FILENO)
        Glibc.exit(code)
    }
}

/// The options that shape the sound, shared by `play` and `render` (where: `PlaceOptions`).
struct SoundOptions: ParsableArguments {
    @Option(help: "Playback speed, from 0.25 to 3.0; pitch stays the same (default: 1, or where you left the track).")
    var rate: Double?

    @Option(parsing: .unconditional, help: "Pitch shift in semitones, from -12 to 12; speed stays the same (default: 0, or where you left the track).")
    var pitch: Double?

    @Option(help: "Time-stretch settings: music (default), fine (cleaner sustained tones, 4× the CPU), percussive (drums, tap, speech) or soundtouch (its own defaults).")
    var profile: String = "music"

    func validate() throws {
        if let rate, !rate.isFinite || !PlaybackSettings.rateRange.contains(rate) {
            throw ValidationError("'--rate' must be from 0.25 to 3.0 (got '\(Self.show(rate))')")
        }
        if let pitch, !pitch.isFinite || !PlaybackSettings.pitchRange.contains(pitch) {
            throw ValidationError("'--pitch' must be from -12 to 12 semitones (got '\(Self.show(pitch))')")
        }
        guard PlaybackSettings(rate: 1, pitch: 0, profileName: profile) != nil else {
            throw ValidationError("'--profile' must be music, fine, percussive or soundtouch (got '\(profile)')")
        }
    }

    var settings: PlaybackSettings {
        PlaybackSettings(rate: rate ?? 1, pitch: pitch ?? 0, profileName: profile) ?? PlaybackSettings(rate: rate ?? 1, pitch: pitch ?? 0)
    }

    static func show(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
}
