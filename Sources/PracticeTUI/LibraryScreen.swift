import FoundationEssentials
import Dispatch
import Glibc
import PracticeAudio
import PracticeControl
import PracticeDocuments
import PracticeLibrary

/// The library screen's I/O: the terminal in raw mode, keys to `LibraryView`, searches run on the
/// index, covers decoded and drawn with libchafa (once each). `run()` returns when a track is to
/// be opened (the host plays it, then calls `run()` again: the view is where it was) or on quit.
public final class LibraryScreen {
    public private(set) var view: LibraryView
    let index: LibraryIndex
    /// How pictures are drawn; nil: text only (NO_COLOR, or a terminal without colour).
    let pictures: TerminalPicture.Mode?
    private var covers: [String: [String]] = [:]
    private var failed: Set<String> = []
    private var lastFrame: [String] = []

    public init(index: LibraryIndex, view: LibraryView, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.index = index
        self.view = view
        // Kitty and sixel pictures are drawn as Unicode blocks for now: the grid redraws by lines.
        self.pictures = TerminalPicture.mode(environment: environment).map { mode in
            if case .symbols = mode { return mode }
            return .symbols(.truecolor)
        }
    }

    /// The lines of a cover, decoded and drawn the first time it is shown.
    public func cover(_ path: String, columns: Int, rows: Int) -> [String]? {
        guard let pictures, !failed.contains(path) else { return nil }
        let key = "\(columns)x\(rows):\(path)"
        if let lines = covers[key] { return lines }
        guard let picture = try? Picture.read(path) else { failed.insert(path); return nil }
        let lines = TerminalPicture.render(picture, columns: columns, rows: rows, mode: pictures)
        covers[key] = lines
        return lines
    }

    /// Brings in new contents of the index (after a rescan) and today's pick.
    public func update(tracks: [LibraryTrack], pick: TodaysPick?, practisedThisWeek: Set<String>) {
        view.show(tracks)
        view.pick = pick
        view.practisedThisWeek = practisedThisWeek
        if !view.query.isEmpty, let hits = try? index.search(view.query) { view.found(hits) }
    }

    public func say(_ message: String) { view.message = message }

    /// Runs until a track is chosen (`.open`) or the person quits (`.quit`).
    public func run() throws -> LibraryView.Action {
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        lastFrame = []
        var decoder = KeyDecoder()
        let wake = WakePipe()
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { wake.ring() }
        resize.resume()
        defer { resize.cancel() }
        while true {
            draw()
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, -1)
            if fds[1].revents != 0 { wake.drain(); lastFrame = [] }
            guard fds[0].revents != 0 else { continue }
            guard let keys = decoder.read(from: STDIN_FILENO) else { return .quit }   // the terminal went away
            for key in keys {
                switch view.handle(key) {
                case .none: break
                case .quit: return .quit
                case .search(let text):
                    do { view.found(try index.search(text)) } catch { view.message = error.message }
                case let open: return open
                }
            }
        }
    }

    func draw() {
        let (columns, rows) = RawTerminal.size()
        let frame = view.render(width: columns, height: rows) { [unowned self] path, c, r in cover(path, columns: c, rows: r) }
        guard frame != lastFrame else { return }
        lastFrame = frame
        Terminal.writeRaw("\u{1B}[H" + frame.map { $0 + "\u{1B}[0m\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J", to: STDOUT_FILENO)
    }
}
