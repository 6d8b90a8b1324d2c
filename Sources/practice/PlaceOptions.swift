// SPDX-License-Identifier: GPL-3.0-or-later
import ArgumentParser
import PracticeEngine

/// Where to play or render: `--from`, `--to`, `--loop`, `--times`, with marker and loop names
/// taken from the track's sidecar (or `--markers PATH`). Shared by `play` and `render`.
struct PlaceOptions: ParsableArguments {
    @Option(help: "Start here: a time (83.5, 1:23.5, 1:02:03.25), a marker's name or a lyric line ('line 5').")
    var from: String?

    @Option(help: "Stop here: a time, a marker's name or the end of a lyric line ('line 8').")
    var to: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp(
        "Repeat a loop: its name, or a start and an end (markers, times or lyric lines).",
        discussion: "With --from before the loop, play from there into it. --loop \"line 5\" \"line 8\" repeats lines 5 to 8 of the lyrics, the whole of line 8 included.",
        valueName: "loop | A B"))
    var loop: [String] = []

    @Option(help: "How many times to play the loop (play: until stopped; render: once, or with --trainer every speed up to the top one).")
    var times: Int?

    @Option(help: "Seconds of silence before each repeat of the loop.")
    var gap: Double = 0

    @Option(help: "Clicks before the first pass of the loop, at --bpm or the tempo kept in the sidecar ('c' on the practice screen turns this count-in off and on; without it, 'c' counts 4 before each pass).")
    var countIn = 0

    @Flag(help: "Count in before every pass, not just the first.")
    var countInEvery = false

    @Option(help: ArgumentHelp("The count-in: 'click', or 'voice' (\"five, six, seven, eight\": the last beats of an eight, spoken by espeak-ng).", valueName: "click|voice"))
    var countInSound = "click"

    @Option(help: "The song's tempo in beats a minute, for the count-in (clicks follow the playback speed); default: the sidecar's, tapped with 't' on the practice screen.")
    var bpm: Double?

    @Option(help: "Seconds before the loop's start that each pass begins.")
    var preRoll: Double = 0

    @Option(help: ArgumentHelp("Speed trainer FROM:TO:STEP[/EVERY]: start at FROM, change by STEP every EVERY passes, stay at TO.",
                               valueName: "from:to:step[/every]"))
    var trainer: String?

    @Option(name: .customLong("markers"), help: "Take marker and loop names from this sidecar instead of FILE.practice.json.",
            completion: .file(extensions: ["json"]))
    var sidecar: String?

    @Option(help: "Take lyric lines ('line 5') from this LRC file instead of FILE.lrc.", completion: .file(extensions: ["lrc"]))
    var lyrics: String?

    @Flag(help: "Leave the times of a sidecar made on another copy of the song as they are, instead of lining them up with this one.")
    var noAlign = false

    @Option(help: ArgumentHelp("Which audio stream of a video or a container with several to play (from 0; 'practice info' lists them).", valueName: "n"))
    var audioStream: Int?

    func validate() throws {
        if let audioStream, audioStream < 0 { throw ValidationError("'--audio-stream' must be 0 or more (got '\(audioStream)')") }
        guard loop.count <= 2 else { throw ValidationError("'--loop' takes a loop's name, or a start and an end (got \(loop.count) values)") }
        if let times {
            guard !loop.isEmpty else { throw ValidationError("'--times' goes with '--loop'") }
            guard times >= 1 else { throw ValidationError("'--times' must be 1 or more (got '\(times)')") }
        }
        if !loop.isEmpty, to != nil { throw ValidationError("'--to' does not go with '--loop' (the loop's end is where it turns)") }
        let extras = [(gap != 0, "--gap"), (countIn != 0, "--count-in"), (countInEvery, "--count-in-every"), (preRoll != 0, "--pre-roll"), (trainer != nil, "--trainer")]
        if loop.isEmpty, let used = extras.first(where: { $0.0 }) { throw ValidationError("'\(used.1)' goes with '--loop'") }
        guard gap.isFinite, (0...60).contains(gap) else { throw ValidationError("'--gap' must be from 0 to 60 seconds") }
        guard (0...16).contains(countIn) else { throw ValidationError("'--count-in' must be from 0 to 16 clicks") }
        if countInEvery && countIn == 0 { throw ValidationError("'--count-in-every' needs '--count-in N'") }
        if let bpm, !(20...400).contains(bpm) { throw ValidationError("'--bpm' must be from 20 to 400") }
        guard preRoll.isFinite, (0...30).contains(preRoll) else { throw ValidationError("'--pre-roll' must be from 0 to 30 seconds") }
        if let trainer {
            guard let t = Trainer(trainer) else { throw ValidationError("'--trainer' is FROM:TO:STEP or FROM:TO:STEP/EVERY, such as 0.6:1.0:0.05/2 (got '\(trainer)')") }
            guard PlaybackSettings.rateRange.contains(t.from), PlaybackSettings.rateRange.contains(t.to), t.step >= 0.01, t.step <= 2.75 else {
                throw ValidationError("'--trainer' rates must be from 0.25 to 3.0 with a step from 0.01 to 2.75 (got '\(trainer)')")
            }
        }
    }

    /// `--rate` and `--trainer` both set the speed: refused together, never one silently dropped.
    func checkRate(against sound: SoundOptions) throws {
        if let rate = sound.rate, let trainer {
            throw ValidationError("'--rate \(SoundOptions.show(rate))' and '--trainer \(trainer)' both set the speed; the trainer starts at its FROM, so drop '--rate'")
        }
    }

    /// What was asked, for `Places.resolve` to turn names into times.
    var request: PlaceRequest {
        var asked = PlaceRequest()
        (asked.from, asked.to, asked.loop, asked.times, asked.gap) = (from, to, loop, times, gap)
        (asked.countIn, asked.countInEvery, asked.countInSound, asked.bpm, asked.preRoll, asked.trainer) = (countIn, countInEvery, countInSound, bpm, preRoll, trainer)
        (asked.sidecar, asked.lyrics, asked.audioStream, asked.noAlign) = (sidecar, lyrics, audioStream, noAlign)
        return asked
    }
}
