// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeAudio
import PracticeControl
import PracticeDesktop
import PracticeDocuments
import PracticeEngine
import PracticeJournal
import PracticeLibrary
import PracticeRemote
import PracticeSongs
import PracticeSystem
import PracticeTUI

/// The commands about one track (its lyrics, beats, preview, a song fetched to play) and the
/// ones that talk to running players (`ctl`, `remote`) or remind.
public enum TrackCommands {
    /// `practice lyrics`: the lines with their numbers and times, as JSON, or followed as a player plays.
    public static func lyrics(_ file: String, lyrics explicit: String?, sidecar: String?, json: Bool, follow: Bool, control: String?) throws {
        let track = try Track.describe(file)
        guard let (lyrics, path, warnings) = try LyricsFile.forTrack(track, explicit: explicit, sidecar: sidecar) else {
            throw PracticeError(.noInput, LyricsFile.notFound(forAudio: file))
        }
        Console.warn(warnings)
        if follow { return try LyricsFollower.follow(lyrics, path: path, track: track, socket: control ?? ControlSocket.defaultPath(), warn: { Console.warn([$0]) }) }
        if json { return Console.printJSON(lyrics.document) }
        guard lyrics.isSynced else {
            Console.note(["\(path) has no time stamps (unsynced lyrics)"])
            Console.say(lines: lyrics.plain)
            return
        }
        // The markers table's alignment without its header: each line's number (what
        // `--loop "line 5"` takes) and time right-aligned, two spaces apart, then the text.
        let rows = lyrics.lines.enumerated().map { ["\($0.offset + 1)", Lyrics.stamp($0.element.time), $0.element.text] }
        Console.say(lines: Table.render(header: ["", "", ""], rows: rows, rightAligned: [0, 1]).dropFirst())
    }

    /// `practice beats`: the grid found (or corrected) and kept in the sidecar, shown.
    public static func beats(_ file: String, sidecar: String?, one: String?, _ request: BeatRequest, json: Bool) throws {
        if let meter = request.meter, !BeatGrid.meters.contains(meter) {
            throw PracticeError(.usage, "--meter \(meter): a count is 8 (eights), 4 or 3 (bars)")
        }
        if let bpm = request.bpm, !BeatGrid.tempoRange.contains(bpm) { throw PracticeError(.usage, "--bpm \(shortNumber(bpm)): a tempo is 20 to 400 beats a minute") }
        var request = request
        request.one = try one.map { text throws(PracticeError) -> Double in
            guard let t = Timecode.parse(text), t >= 0 else { throw PracticeError(.usage, "--one '\(text.terminalSafe)': not a time (12.34, 0:12.34)") }
            return t
        }
        let track = try Track.describe(file)
        let (grid, savedIn) = try BeatAnalysis.settle(track, sidecar: sidecar, request)
        if let savedIn { Terminal.write("practice: kept in \(savedIn)\n", to: STDERR_FILENO) }
        if json { return Console.printJSON(grid.document) }
        for line in grid.describe(title: track.displayTitle) { Terminal.write(line + "\n", to: STDOUT_FILENO) }
    }

    /// `practice preview`: the track's most telling few seconds played (or, with `where`, said).
    public static func preview(_ file: String, device: String, where onlyWhere: Bool) async throws {
        let track = try Track.describe(file)
        let sidecar = (try? SidecarStore.load(for: track))?.sidecar ?? Sidecar()
        let spot = try PreviewSpot.find(in: track, sidecar: sidecar)
        let span = "\(Timecode.format(spot.start, decimals: 1))–\(Timecode.format(spot.end, decimals: 1))"
        if onlyWhere { return Terminal.write("\(span) \(spot.reason.terminalSafe)\n", to: STDOUT_FILENO) }
        Terminal.write("practice: previewing \(track.displayTitle.terminalSafe), \(span) (\(spot.reason.terminalSafe))\n", to: STDERR_FILENO)
        let player = try Player(path: file, options: spot.playerOptions(device: device))
        let signals = SignalHandlers { _ in player.stop() }
        await player.waitUntilFinished()
        player.stop()
        if let signal = signals.received { Glibc.exit(128 + signal) }
        if let failure = player.state.failure { throw PracticeError(.ioError, failure) }
    }

    /// `practice open`: a song fetched (or its cached copy) and played as `play` would.
    public static func open(_ location: SongLocation, name source: String, timeout: Double, refresh: Bool, play: PlayCommand) async throws {
        let progress = DownloadProgress(shown: Terminal.isTTY(STDERR_FILENO))
        let fetcher = Fetcher(timeout: timeout)
        let fetch = Task {
            try await SongCache.open(location, name: source, refresh: refresh, fetcher: fetcher, progress: progress.show)
        }
        // A signal cancels the fetch, which removes what it wrote; then we exit 128 + N. The
        // handlers stay for the whole run (a released source would call a freed handler).
        let signals = SignalHandlers { _ in fetch.cancel() }
        defer { withExtendedLifetime(signals) {} }
        let result = await fetch.result
        progress.finish()
        if let signal = signals.received { Glibc.exit(128 + signal) }
        let song = try result.get()
        Console.warn(song.warnings)
        if song.fromCache {
            Terminal.write("practice: playing the cached copy of \(source) (--refresh fetches it again)\n", to: STDERR_FILENO)
        }
        var play = play
        (play.file, play.tags, play.cover) = (song.audio, song.document.tags, song.cover)
        try await play.run()
    }

    /// `practice ctl players`: the running players, a line each (or their status as JSON).
    public static func players(json: Bool) {
        for p in Players.running() {
            Terminal.write((json ? p.status.line : "\(p.pid)\t\(StatusLine.summary(p.status))") + "\n", to: STDOUT_FILENO)
        }
    }

    /// `practice ctl COMMAND`: sent to the player (`status`: its answer printed).
    public static func send(_ command: PlayerCommand, to player: String?, json: Bool) throws {
        let target = try Players.pick(player)
        guard command == .status else { return try Players.send(command, to: target) }
        let answer = try Players.ask(target.socket, command.line, until: .status)
        guard let status = StateMessage(line: answer) else { throw PracticeError(.software, "\(target.socket): the player's answer is not a status") }
        Terminal.write((json ? status.line : StatusLine.summary(status)) + "\n", to: STDOUT_FILENO)
    }

    /// `practice remote`: a running player's phone remote started, its address and pairing code shown.
    public static func pairRemote(of player: String?, json: Bool) throws {
        let target = try Players.pick(player)
        let answer = try Players.ask(target.socket, PlayerCommand.remote.line) { RemoteInvitation(line: $0) != nil }
        guard let invitation = RemoteInvitation(line: answer) else { throw PracticeError(.software, "\(target.socket): the player's answer is not the remote's") }
        Terminal.write(json ? invitation.line + "\n"
                       : RemoteService.pairingText(invitation.pairing.terminalSafe, origin: invitation.origin.terminalSafe, prefix: ""),
                       to: STDOUT_FILENO)
    }

    /// `practice remind check`: a notification if nothing was practised today, with today's pick.
    public static func remindIfIdle() throws {
        let journal = try Journal()
        if try journal.practiceDays().first == Day.today { return }
        var body = "Nothing practised yet today."
        if let index = try? LibraryIndex(), let pick = try? index.pick(practised: LibraryIndex.practised()) {
            body += " Today's pick: \(pick.track.displayArtist) — \(pick.track.displayTitle) (\(pick.reason))."
        }
        try DesktopNotification.send(summary: "Time to practise", body: body.terminalSafe)
    }
}
