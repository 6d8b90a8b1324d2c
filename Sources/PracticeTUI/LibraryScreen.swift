// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Dispatch
import Glibc
import Synchronization
import PracticeControl
import PracticeDocuments
import PracticeLibrary
import PracticeSystem

/// The library screen's I/O: the terminal in raw mode, keys to `LibraryView`, searches run on the
/// index, covers decoded and drawn with libchafa (once each). `run()` returns when a track is to
/// be opened (the host plays it, then calls `run()` again: the view is where it was) or on quit.
public final class LibraryScreen {
    public private(set) var view: LibraryView
    let index: LibraryIndex
    /// How pictures are drawn; nil: text only (NO_COLOR, or a terminal without colour).
    let pictures: TerminalPicture.Mode?
    /// Covers decoded and drawn by `coverQueue`, by size and path; nil for a picture that cannot be.
    private let covers = CoverCache()
    private var asked: Set<String> = []
    /// Pictures are decoded off the screen's thread (a large one takes a while), one at a time.
    private let coverQueue = DispatchQueue(label: "library covers")
    private var lastFrame: [String] = []
    /// A scan running beside the screen: how far it is, and a wake-up when it has news.
    public let scanning = ScanProgress()
    /// Called on the screen's thread when a scan beside it has finished (to read the index again).
    public var reload: (() -> Void)?
    /// Plays, or stops, a preview of a track (the host owns the player); returns what to say.
    public var preview: ((String) -> String)?
    /// Asks the screen to end, from any thread (a signal's handler).
    public var quit: @Sendable () -> Void {
        let (flag, wake) = (quitRequested, scanning.wake)
        return { flag.value.store(true, ordering: .releasing); wake.ring() }
    }
    private let quitRequested = Flag()

    final class Flag: Sendable { let value = Atomic<Bool>(false) }
    final class CoverCache: Sendable { let drawings = Locked<[String: CoverDrawing?]>([:]) }

    public init(index: LibraryIndex, view: LibraryView, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.index = index
        self.view = view
        self.pictures = TerminalPicture.mode(environment: environment)
    }

    /// The lines of a cover; `.pending` while it is being decoded (the screen is drawn again when
    /// it is ready); nil for a file that is not a picture we can draw.
    public func cover(_ path: String, columns: Int, rows: Int) -> CoverDrawing? {
        guard let pictures else { return nil }
        let cell = RawTerminal.cellPixels() ?? (10, 20)
        let key = "\(columns)x\(rows)@\(cell.width)x\(cell.height):\(path)"
        if let drawing = covers.drawings.withLock({ $0[key] }) { return drawing }
        guard asked.insert(key).inserted else { return .pending }
        let (covers, wake) = (covers, scanning.wake)
        coverQueue.async {
            var drawing: CoverDrawing?
            if let picture = try? Picture.read(path) {
                let lines = TerminalPicture.render(picture, columns: columns, rows: rows, mode: pictures, cell: cell)
                if case .symbols = pictures { drawing = .cells(lines) } else { drawing = .overlay(lines.joined()) }
            }
            covers.drawings.withLock { $0[key] = .some(drawing) }
            wake.ring()
        }
        return .pending
    }

    /// Brings in new contents of the index (after a rescan) and today's pick.
    public func update(tracks: [LibraryTrack], pick: TodaysPick?, practisedThisWeek: Set<String>) {
        view.show(tracks)
        view.pick = pick
        view.practisedThisWeek = practisedThisWeek
        if !view.query.isEmpty, let hits = try? index.search(view.query, limit: 500) { view.found(hits, keepingSelection: true) }
    }

    public func say(_ message: String) { view.message = message }

    /// Runs until a track is chosen (`.open`) or the person quits (`.quit`).
    public func run() throws -> LibraryView.Action {
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        lastFrame = []
        var decoder = KeyDecoder()
        let wake = scanning.wake
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { wake.ring() }
        resize.resume()
        defer { resize.cancel() }
        while !quitRequested.value.load(ordering: .acquiring) {
            draw()
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, -1)
            if fds[1].revents != 0 {
                wake.drain()
                // Woken by a scan's progress, a cover decoded, a resize or a signal.
                let (done, total, running, justFinished) = scanning.read()
                view.scanning = !running ? nil : total > 0 ? "scanning \(done * 100 / total) %" : "scanning…"
                if justFinished { reload?() }
            }
            guard fds[0].revents != 0 else { continue }
            guard let keys = decoder.read(from: STDIN_FILENO) else { return .quit }   // the terminal went away
            for key in keys {
                switch view.handle(key) {
                case .none: break
                case .quit: return .quit
                case .search(let text):
                    do { view.found(try index.search(text, limit: 500)) } catch { view.message = error.message }
                case .preview(let path):
                    view.message = preview?(path) ?? "no previews here"
                case let open: return open
                }
            }
        }
        return .quit
    }

    func draw() {
        let (columns, rows) = RawTerminal.size()
        let frame = view.render(width: columns, height: rows) { [unowned self] path, c, r in cover(path, columns: c, rows: r) }
        guard frame != lastFrame else { return }
        lastFrame = frame
        // Kitty keeps pictures until told: the last frame's go first. Sixels are overwritten by the text.
        let clear = pictures == .kitty ? "\u{1B}_Ga=d\u{1B}\\" : ""
        let pictures = view.overlays.map { "\u{1B}[\($0.row + 1);\($0.column + 1)H" + $0.sequence }.joined()
        Terminal.writeRaw(clear + "\u{1B}[H" + frame.map { $0 + "\u{1B}[0m\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J" + pictures, to: STDOUT_FILENO)
    }
}

/// How far a scan beside the screen has got, told from the scanning thread; each change wakes
/// the screen.
public final class ScanProgress: Sendable {
    let wake = WakePipe()
    private let state = Locked<(done: Int, total: Int, running: Bool, finishedUnseen: Bool, nextRing: UInt64)>((0, 0, false, false, 0))

    public init() {}

    public func started() {
        state.withLock { $0 = (0, 0, true, false, 0) }
        wake.ring()
    }

    /// From the scan's progress callback: wakes the screen at most five times a second.
    public func progress(_ done: Int, of total: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        let ring = state.withLock { s -> Bool in
            s.done = done; s.total = total
            guard now >= s.nextRing else { return false }
            s.nextRing = now + 200_000_000
            return true
        }
        if ring { wake.ring() }
    }

    public func finished() {
        state.withLock { $0.running = false; $0.finishedUnseen = true }
        wake.ring()
    }

    /// How far the scan is, and whether it finished since the last look (once per scan).
    func read() -> (done: Int, total: Int, running: Bool, justFinished: Bool) {
        state.withLock { s in
            defer { s.finishedUnseen = false }
            return (s.done, s.total, s.running, s.finishedUnseen)
        }
    }
}
