// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeDocuments
import PracticeEngine
import PracticeSystem

extension LyricsFollower {
    /// Prints `[0:12.00] Line one` as each line is heard by the player on `socket`, until it goes away.
    /// Each line is written to standard output; `warn` hears a player on another track.
    public static func follow(_ lyrics: Lyrics, path: String, track: Track, socket: String, warn: (String) -> Void) throws(PracticeError) {
        guard lyrics.isSynced else { throw PracticeError(.dataError, "\(path) has no time stamps (unsynced lyrics); --follow needs synced ones") }
        var client = try ControlClient(path: socket)
        var follower = LyricsFollower(lyrics: lyrics)
        var checkedDuration = false
        func show(_ lines: [Int]) {
            for k in lines {
                let line = lyrics.lines[k]
                Terminal.write("[\(Lyrics.stamp(line.time))]\(line.text.isEmpty ? "" : " " + line.text)\n", to: STDOUT_FILENO)
            }
        }
        while true {
            let now = monotonicSeconds()
            // Wake for the next line (or loop turn); a report comes ten times a second while playing.
            let wait = min(follower.nextDue(after: now).map { $0 - now } ?? 1, 1)
            switch client.read(timeout: wait) {
            case .line(let text):
                guard let event = StateEvent(line: text) else { continue }
                if !checkedDuration, event.duration > 0 {
                    checkedDuration = true
                    if abs(event.duration - track.duration) > 0.002 {
                        warn("the player on \(socket) plays a track of \(Timecode.format(event.duration, decimals: 3)), not \(track.path) (\(Timecode.format(track.duration, decimals: 3))); the lines may not match")
                    }
                }
                show(follower.receive(event, at: monotonicSeconds()))
            case .timeout:
                show(follower.advance(to: monotonicSeconds()))
            case .closed:
                return
            }
        }
    }
}
