import ArgumentParser
import Foundation
import PracticeCore

/// Where to play or render: `--from`, `--to`, `--loop`, `--times`, with marker and loop names
/// taken from the track's sidecar (or `--markers PATH`). Shared by `play` and `render`.
struct PlaceOptions: ParsableArguments {
    @Option(help: "Start here: a time (83.5, 1:23.5, 1:02:03.25) or a marker's name.")
    var from: String?

    @Option(help: "Stop here: a time or a marker's name.")
    var to: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp(
        "Repeat a loop: its name, or a start and an end (markers or times).",
        discussion: "With --from before the loop, play from there into it.", valueName: "loop | A B"))
    var loop: [String] = []

    @Option(help: "How many times to play the loop (play: until stopped; render: once).")
    var times: Int?

    @Option(name: .customLong("markers"), help: "Take marker and loop names from this sidecar instead of FILE.practice.json.",
            completion: .file(extensions: ["json"]))
    var sidecar: String?

    func validate() throws {
        guard loop.count <= 2 else { throw ValidationError("'--loop' takes a loop's name, or a start and an end (got \(loop.count) values)") }
        if let times {
            guard !loop.isEmpty else { throw ValidationError("'--times' goes with '--loop'") }
            guard times >= 1 else { throw ValidationError("'--times' must be 1 or more (got '\(times)')") }
        }
        if !loop.isEmpty, to != nil { throw ValidationError("'--to' does not go with '--loop' (the loop's end is where it turns)") }
    }

    /// Turns names into times for `path`, reading its sidecar only if a name is used; prints the
    /// sidecar's warnings.
    func resolve(for path: String) throws -> (from: Double?, to: Double?, loop: LoopRange?) {
        guard from != nil || to != nil || !loop.isEmpty else { return (nil, nil, nil) }
        var places = Places(track: try Track.open(path).track, explicit: sidecar)
        let f = try from.map { t throws(PracticeError) in try places.time(t, option: "--from") }
        let t = try to.map { t throws(PracticeError) in try places.time(t, option: "--to") }
        let l = loop.isEmpty ? nil : try places.loop(loop, passes: times)
        warn(places.warnings)
        return (f, t, l)
    }
}
