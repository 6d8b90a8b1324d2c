// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import FoundationEssentials
import Glibc
import PracticeSystem
import Synchronization
import PracticeDocuments
import PracticeControl
import PracticeEngine
import PracticeLibrary

/// The library's commands on a terminal: scans with a progress bar, and the library screen with
/// its scans beside it and its previews.
public enum LibraryTerminal {
    /// Scans `folders` into the index, with a progress bar when stderr is a terminal.
    public static func scan(_ index: LibraryIndex, _ folders: [String], quiet: Bool) throws(PracticeError) -> ScanReport {
        let bar = !quiet && Terminal.isTTY(STDERR_FILENO)
        var lastDrawn = -1
        let report = try index.scan(folders) { done, total in
            guard bar, total > 0 else { return }
            let percent = done * 100 / total
            guard percent != lastDrawn else { return }
            lastDrawn = percent
            let width = Terminal.width(STDERR_FILENO) - 1
            let label = "scanning \(done)/\(total) "
            Terminal.writeRaw(Terminal.redraw(label + ProgressBar.render(Double(done) / Double(total), width: max(width - label.count, 12))), to: STDERR_FILENO)
        }
        if bar { Terminal.writeRaw("\r\u{1B}[K", to: STDERR_FILENO) }
        if !quiet { for p in report.problems { Terminal.write("practice: warning: \(p.terminalSafe)\n", to: STDERR_FILENO) } }
        return report
    }

    /// The index, brought up to date with the folders first.
    public static func current(_ named: [String] = [], quiet: Bool = true) throws(PracticeError) -> LibraryIndex {
        let config = try Config.load()
        let paths = try LibraryIndex.folders(named: named, config: config)
        let index = try LibraryIndex()
        _ = try scan(index, paths, quiet: quiet)
        return index
    }

    /// `practice library`: the library screen over the index of `folders` (those named are
    /// remembered), scanned beside it; a chosen track is handed to `open` (its path, and where:
    /// a time or a loop's name), and the screen comes back when it returns. A signal ends the
    /// screen as `q` does: its number is returned.
    public static func browse(folders: [String], device: String?,
                              open: (_ path: String, _ from: Double?, _ loop: String?) async throws -> Void) async throws -> Int32? {
        let config = try Config.load()
        let paths = try LibraryIndex.folders(named: folders, config: config)
        let index = try LibraryIndex()
        guard Terminal.isTTY(STDIN_FILENO), Terminal.isTTY(STDOUT_FILENO) else {
            throw PracticeError(.usage, "the library screen needs a terminal; 'practice library list' and 'search' print")
        }
        let screen = LibraryScreen(index: index, view: LibraryView())
        // The screen shows the index as it is at once; a scan beside it brings in what changed.
        let problems = Locked<[String]>([])
        let scans = DispatchQueue(label: "library scans")   // one at a time
        let waiting = Atomic<Bool>(false)
        func scanBeside() {
            // One waiting is enough: it will see every change made before it starts.
            guard !waiting.exchange(true, ordering: .acquiringAndReleasing) else { return }
            let progress = screen.scanning
            scans.async {
                waiting.store(false, ordering: .releasing)
                progress.started()
                let report = try? index.scan(paths) { progress.progress($0, of: $1) }
                problems.withLock { $0 = report?.problems ?? [] }
                progress.finished()
            }
        }
        func refresh() throws(PracticeError) {
            let practised = LibraryIndex.practised()
            let tracks = try index.tracks()
            let week = Date().addingTimeInterval(-7 * 86400)
            let pick = try index.pick(among: tracks, practised: practised)
            screen.update(tracks: tracks, pick: pick,
                          practisedThisWeek: Set(tracks.filter { practised($0).map { $0 >= week } ?? false }.map(\.path)))
        }
        screen.reload = {
            try? refresh()
            let n = problems.withLock { $0.count }
            if n > 0 { screen.say("\(n) file\(n == 1 ? "" : "s") could not be read fully ('practice library scan' lists them)") }
        }
        try refresh()
        scanBeside()
        let previews = Previews(device: device ?? "default")
        screen.preview = { previews.toggle($0) }
        defer { previews.stop() }
        // A signal ends the screen as `q` does (the terminal given back); the caller exits 128 + N.
        let signals = SignalHandlers { [quit = screen.quit] _ in quit() }
        while true {
            let action = try withExtendedLifetime(signals) { try screen.run() }
            previews.stop()
            if let signal = signals.received { return signal }
            guard case .open(let path, let from, let loop) = action else { return nil }
            guard FileManager.default.fileExists(atPath: path) else {
                screen.say("\(path): no longer there (the library is scanned again)")
                scanBeside()
                continue
            }
            do { try await open(path, from, loop) } catch let error as PracticeError { screen.say(error.message) }
            // Back where the person was; what they changed (markers, loops) is indexed beside the screen.
            scanBeside()
        }
    }
}

/// The library screen's previews: one at a time, started beside the screen (finding the heart of
/// a song decodes part of it) and stopped by Space again, by another preview, or by leaving.
public final class Previews: Sendable {
    public let device: String
    private let playing = Locked<(path: String, player: Player?)?>(nil)
    private let queue = DispatchQueue(label: "previews")

    public init(device: String) { self.device = device }

    /// Starts a preview of `path`, or stops it when it is the one playing; what to say.
    public func toggle(_ path: String) -> String {
        if stop() == path { return "preview stopped" }
        playing.withLock { $0 = (path, nil) }
        queue.async { [self] in
            guard let track = try? Track.describe(path) else { return }
            let sidecar = (try? SidecarStore.load(for: track))?.sidecar ?? Sidecar()
            guard let spot = try? PreviewSpot.find(in: track, sidecar: sidecar),
                  let player = try? Player(path: path, options: spot.playerOptions(device: device)) else { return }
            // Still wanted? (Space again, or another track, while it was being found.)
            let kept = playing.withLock { p -> Bool in
                guard p?.path == path, p?.player == nil else { return false }
                p = (path, player)
                return true
            }
            if !kept { player.stop() }
        }
        return "preview: \(Path.lastComponent(path).terminalSafe), 15 s from its heart (Space again stops it)"
    }

    /// Stops the preview playing, if any; its path.
    @discardableResult
    public func stop() -> String? {
        let was = playing.withLock { p -> (String, Player?)? in
            defer { p = nil }
            return p.map { ($0.path, $0.player) }
        }
        was?.1?.stop()
        return was?.0
    }
}
