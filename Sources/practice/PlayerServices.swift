// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import Synchronization
import PracticeAudio
import PracticeControl
import PracticeTUI
import PracticeDocuments
import PracticeEngine
import PracticeSystem
import PracticeDesktop

/// The controllers every player has besides its own screen or stdin: its socket in the players'
/// folder (for `practice ctl`), MPRIS on the session bus, and the now-playing notification.
final class PlayerServices: Sendable {
    let socket: ControlSocket?
    let mpris: MPRIS?
    /// What OpenUri asked to play instead (the host replaces this process with it when the player ends).
    let replacement = Locked<String?>(nil)
    /// Who quit the player from outside this process, if anyone did: for the screen to say so.
    let quitBy = Locked<String?>(nil)

    struct Settings {
        var mpris = true
        var notify = true
        var verbose = false
        var cover: String?
    }

    init(_ player: Player, settings: Settings, quit: @escaping @Sendable () -> Void) {
        let socketPath = Players.socketPath()
        let quitBy = self.quitBy
        do {
            socket = try ControlSocket(path: socketPath, player: player) {
                quitBy.withLock { $0 = "another terminal ('practice attach' there, or 'practice ctl quit')" }
                quit()
            }
        } catch {
            socket = nil
            if settings.verbose { Terminal.write("practice: no socket for 'practice ctl': \(error.message)\n", to: STDERR_FILENO) }
        }
        guard settings.mpris else { mpris = nil; return }
        let replacement = self.replacement
        let socket = self.socket
        let host = MPRIS.Host(quit: {
            quitBy.withLock { $0 = "the desktop's media controls (MPRIS)" }
            quit()
        }, open: { uri throws(BusFailure) in
            try PlayerServices.checkOpenable(uri)
            replacement.withLock { $0 = uri }
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

    func stop() {
        mpris?.stop()
        socket?.stop()
    }

    /// OpenUri takes a file (a path or a `file://` URL) that can be read, or an http(s) song URL.
    static func checkOpenable(_ uri: String) throws(BusFailure) {
        if uri.hasPrefix("https://") || uri.hasPrefix("http://") { return }
        let path = CoverArt.path(fromFileURL: uri) ?? uri
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0 else {
            throw BusFailure("\(uri): not a file that can be read")
        }
    }

    /// The command line that plays `uri` in this process's place (`exec`), keeping the device,
    /// whether it runs detached, and `--quiet`.
    static func replacementArguments(_ uri: String, device: String, detached: Bool, quiet: Bool) -> [String] {
        let isSong = uri.hasPrefix("https://") || uri.hasPrefix("http://")
        var args = ["practice", isSong ? "open" : "play", isSong ? uri : (CoverArt.path(fromFileURL: uri) ?? uri), "--device", device]
        if detached { args.append("--detached") }
        if quiet { args.append("--quiet") }
        return args
    }

    /// Replaces this process with `arguments` (the running binary, same environment); returns only on failure.
    static func exec(_ arguments: [String]) {
        let argv = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", argv)
        Terminal.write("practice: cannot start '\(arguments.joined(separator: " "))': \(String(cString: strerror(errno)))\n", to: STDERR_FILENO)
    }
}
