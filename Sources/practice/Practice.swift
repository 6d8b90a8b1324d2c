// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import Glibc
import PracticeCommands
import PracticeDocuments
import PracticeEngine

@main
struct Practice: ParsableCommand {
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
        subcommands: commands,
        // `play` for `practice song.mp3`; none after a command's name (as in `init(group:…)`).
        defaultSubcommand: commandNames.contains(CommandLine.arguments.dropFirst().first ?? "") ? nil : Play.self)
    static let commands: [ParsableCommand.Type] = [Play.self, Render.self, Info.self, Markers.self, Loops.self, Open.self, LyricsCommand.self, Ctl.self, Attach.self, Library.self, Pick.self, JournalCommand.self, Remind.self, Preview.self, Beats.self, Remote.self]
    static let commandNames = commands.map { $0._commandName }

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

    static func main() {
        if CommandLine.arguments.count == 1 {
            Terminal.write(usage, to: STDOUT_FILENO)
            Glibc.exit(0)
        }
        if let first = CommandLine.arguments.dropFirst().first, let command = CommandWords.misspelled(first, commands: commandNames) {
            fail("\(first.terminalSafe): no such file, nor a command; did you mean 'practice \(command)'?", code: PracticeError.Kind.usage.rawValue)
        }
        // `play`: the sound device opens while the arguments are parsed.
        PlayCommand.prepareDevice(arguments: Array(CommandLine.arguments.dropFirst()), commands: commandNames)
        do {
            var command = try parseAsRoot(CommandWords.allowingNudges(Array(CommandLine.arguments.dropFirst())))
            // One rule for every command, as git has for its configuration: a settings file that
            // cannot be read is said (exit 78) before anything is done, whether or not the command
            // uses a setting (its warnings are the commands' that read it to say).
            _ = try Config.load(warn: false)
            guard var async = command as? AsyncParsableCommand else { return try command.run() }
            AsyncMain.run { do { try await async.run() } catch { exit(for: error) } }
        } catch { exit(for: error) }
    }

    /// One line on stderr and a sysexits code (or the help or version asked for, on stdout).
    static func exit(for error: any Error) -> Never {
        if let error = error as? PracticeError { fail(error.message, code: error.exitCode) }
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

    @Option(help: "SoundTouch's time-stretch settings: music (default), fine (cleaner sustained tones, 4× the CPU), percussive (drums, tap, speech) or soundtouch (its own defaults); on render, without --quality (nor config.toml's), it means --quality fast.")
    var profile: String?

    @Option(help: ArgumentHelp("The stretcher: fast (SoundTouch, under 1 % of a core; play's default) or high (Rubber Band's R3 engine: cleaner tones, no doubled attacks, more CPU; render's default).", valueName: "fast|high"))
    var quality: String?

    @Flag(help: "With a pitch shift: keep the voice's formants where they are (no \"chipmunk\" vowels); Rubber Band does it, so it means --quality high.")
    var formant = false

    func validate() throws {
        if formant, quality == "fast" { throw ValidationError("'--formant' needs Rubber Band: '--quality high' (or no '--quality')") }
        if let quality, StretchQuality(rawValue: quality) == nil {
            throw ValidationError("'--quality' must be fast or high (got '\(quality)')")
        }
        if let rate, !rate.isFinite || !PlaybackSettings.rateRange.contains(rate) {
            throw ValidationError("'--rate' must be from 0.25 to 3.0 (got '\(Self.show(rate))')")
        }
        if let pitch, !pitch.isFinite || !PlaybackSettings.pitchRange.contains(pitch) {
            throw ValidationError("'--pitch' must be from -12 to 12 semitones (got '\(Self.show(pitch))')")
        }
        if let profile, PlaybackSettings(rate: 1, pitch: 0, profileName: profile) == nil {
            throw ValidationError("'--profile' must be music, fine, percussive or soundtouch (got '\(profile)')")
        }
    }

    /// The settings asked for. The stretcher: Rubber Band with --formant; else --quality; else config.toml's
    /// [sound] quality (read, and refused if wrong, by main); else SoundTouch where --profile names its
    /// settings; else the command's own (play: fast, live under 1 % of a core; render: high, cleaner).
    var playSettings: PlaybackSettings { settings(byDefault: .fast) }
    var renderSettings: PlaybackSettings { settings(byDefault: .high) }
    private func settings(byDefault quality: StretchQuality) -> PlaybackSettings {
        var settings = PlaybackSettings(rate: rate ?? 1, pitch: pitch ?? 0, profileName: profile ?? "music") ?? PlaybackSettings(rate: rate ?? 1, pitch: pitch ?? 0)
        let configured = (try? Config.load(warn: false))?.quality
        let asked = (self.quality ?? configured).flatMap(StretchQuality.init(rawValue:))
        settings.quality = formant ? .high : asked ?? (profile != nil ? .fast : quality)
        settings.formant = formant
        return settings
    }

    static func show(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
}

extension CommandConfiguration {
    /// Subcommands, the first the default unless the word after `name` names one (else the parser builds its arguments for nothing).
    init(group name: String, abstract: String, discussion: String, subcommands: [ParsableCommand.Type]) {
        let words = CommandLine.arguments, next = (words.dropFirst().firstIndex(of: name) ?? words.count) + 1
        let named = next < words.count && subcommands.contains { $0._commandName == words[next] }
        self.init(commandName: name, abstract: abstract, discussion: discussion, subcommands: subcommands, defaultSubcommand: named ? nil : subcommands[0])
    }
}
