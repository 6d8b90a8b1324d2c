// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import Synchronization
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// What the desktop gives a player for its session: MPRIS on the session bus (media keys,
/// desktop controls, playerctl) and the now-playing notification.
public final class DesktopServices: SessionService {
    let mpris: MPRIS?
    /// What OpenUri asked to play instead (the host replaces this process with it when the player ends).
    private let replaced = Locked<String?>(nil)
    /// Whether the desktop's controls quit the player.
    private let quitHere = Locked<Bool>(false)

    public var replacement: String? { replaced.withLock { $0 } }
    public var quitBy: String? { quitHere.withLock { $0 } ? "the desktop's media controls (MPRIS)" : nil }

    public struct Settings: Sendable {
        public var mpris = true
        public var notify = true
        public var verbose = false
        /// The cover's path, found when MPRIS or the notification first needs it.
        public var cover: @Sendable () -> String?
        public init(mpris: Bool = true, notify: Bool = true, verbose: Bool = false, cover: @escaping @Sendable () -> String? = { nil }) {
            self.mpris = mpris; self.notify = notify; self.verbose = verbose; self.cover = cover
        }
    }

    /// Offers `player` on the session bus (unless `settings` say no) and says it is playing;
    /// `socket` (the players' one) learns the MPRIS name; `quit` ends the session.
    public init(_ player: Player, socket: ControlSocket?, settings: Settings, quit: @escaping @Sendable () -> Void) {
        guard settings.mpris else { mpris = nil; return }
        let replaced = self.replaced, quitHere = self.quitHere
        let host = MPRIS.Host(quit: {
            quitHere.withLock { $0 = true }
            quit()
        }, open: { uri throws(BusFailure) in
            try DesktopServices.checkOpenable(uri)
            replaced.withLock { $0 = uri }
            quit()
        }, cover: settings.cover, named: { name in
            socket?.setMPRISName(String(name.dropFirst("org.mpris.MediaPlayer2.".count)))
        })
        do {
            let m = try MPRIS(player: player, host: host)
            mpris = m
            socket?.setMPRISName(String(m.busName.dropFirst("org.mpris.MediaPlayer2.".count)))
            if settings.verbose { Terminal.write("practice: on the session bus as \(m.busName) (MPRIS)\n", to: STDERR_FILENO) }
            if settings.notify {
                let artist = player.tags["artist"], album = player.tags["album"]
                m.notify(summary: player.tags["title"] ?? player.track.displayTitle,
                         body: [artist, album].compactMap { $0 }.joined(separator: " — "))
            }
        } catch {
            mpris = nil
            if settings.verbose {
                let why = error.function == "sd_bus_open_user" ? "no session bus (\(error.description))" : error.description
                Terminal.write("practice: no MPRIS (media keys, desktop controls): \(why)\n", to: STDERR_FILENO)
            }
        }
    }

    public func stop() { mpris?.stop() }

    /// OpenUri takes a file (a path or a `file://` URL) that can be read, or an http(s) song URL.
    public static func checkOpenable(_ uri: String) throws(BusFailure) {
        if uri.hasPrefix("https://") || uri.hasPrefix("http://") { return }
        let path = CoverArt.path(fromFileURL: uri) ?? uri
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0 else {
            throw BusFailure("\(uri): not a file that can be read")
        }
    }

    /// The command line that plays `uri` in this process's place (`exec`), keeping the device,
    /// whether it runs detached, and `--quiet`.
    public static func replacementArguments(_ uri: String, device: String, detached: Bool, quiet: Bool) -> [String] {
        let isSong = uri.hasPrefix("https://") || uri.hasPrefix("http://")
        var args = ["practice", isSong ? "open" : "play", isSong ? uri : (CoverArt.path(fromFileURL: uri) ?? uri), "--device", device]
        if detached { args.append("--detached") }
        if quiet { args.append("--quiet") }
        return args
    }

    /// Replaces this process with `arguments` (the running binary, same environment); returns only on failure.
    public static func exec(_ arguments: [String]) {
        let argv = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", argv)
        Terminal.write("practice: cannot start '\(arguments.joined(separator: " "))': \(String(cString: strerror(errno)))\n", to: STDERR_FILENO)
    }
}
