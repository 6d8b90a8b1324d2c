// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// The phone remote beside one play session: started with the session (`--remote`), the first
/// time the practice screen asks for its panel (`R`) or when `practice remote` asks the player's
/// socket; stopped with the session. Without a screen it says where it is on stderr; on the
/// screen, its panel does, with what it last said (a phone paired, pairing refused).
public final class RemoteService: SessionService, Sendable {
    private let settings: WebRemote.Settings
    private let announce: Bool
    private let player = Locked<Player?>(nil)
    private let remote = Locked<WebRemote?>(nil)
    private let failure = Locked<String?>(nil)
    private let said = Locked<[String]>([])
    private let screen = Locked<(@Sendable (String) -> Void)?>(nil)

    /// Where the remote's lines go on a screen (its message line), besides its panel.
    public func onNotice(_ say: @escaping @Sendable (String) -> Void) { screen.withLock { $0 = say } }

    /// `announce`: say the address, the code and what happens on stderr (no screen to show them).
    public init(bind: String?, announce: Bool, devicesPath: String = RemoteDevices.standardPath) {
        var settings = WebRemote.Settings()
        settings.bind = bind
        settings.devicesPath = devicesPath
        self.settings = settings
        self.announce = announce
    }

    /// The session's player; with `start`, the remote starts serving it now. `socket` (the
    /// players' socket) answers `practice remote` with this remote, started then if need be.
    public func attach(_ player: Player, start: Bool, socket: ControlSocket? = nil) {
        self.player.withLock { $0 = player }
        if start { _ = started() }
        socket?.answerRemote { [self] () throws(PracticeError) in
            guard let r = started(retry: true) else {
                throw PracticeError(.unavailable, "the phone remote cannot start: \(failure.withLock { $0 } ?? "no player")")
            }
            return RemoteInvitation(origin: r.origin, pairing: r.pairingAddress)
        }
    }

    /// The remote, started on first use; nil (and why, in `failure`) when it cannot listen.
    private func started(retry: Bool = false) -> WebRemote? {
        guard let player = player.withLock({ $0 }) else { return nil }
        return remote.withLock { r -> WebRemote? in
            if let r { return r }
            // A failure to listen stays said on the screen's panel; `practice remote` tries again
            // (the address may be free now).
            guard retry || failure.withLock({ $0 }) == nil else { return nil }
            do throws(PracticeError) {
                let made = try WebRemote(player: player, settings: settings) { [self, announce] line in
                    said.withLock { $0 = Array(($0 + [line]).suffix(2)) }
                    screen.withLock { $0 }?(line)
                    if announce { Terminal.write("practice: \(line.terminalSafe)\n", to: STDERR_FILENO) }
                }
                r = made
                if announce { Terminal.write(Self.pairingText(made.pairingAddress, origin: made.origin), to: STDERR_FILENO) }
                return made
            } catch {
                failure.withLock { $0 = error.message }
                if announce { Terminal.write("practice: warning: \(error.message); playing without the remote\n", to: STDERR_FILENO) }
                return nil
            }
        }
    }

    /// The screen's panel: the address, the pairing code (a new one once used or 10 minutes
    /// old), what to do, and what the remote last said.
    public func panel() -> [String] {
        guard let r = started() else {
            return ["The phone remote cannot start: \(failure.withLock { $0 } ?? "no player")", "", "Any key goes back."]
        }
        return Self.panel(RemoteInvitation(origin: r.origin, pairing: r.pairingAddress), said: said.withLock { $0 })
    }

    /// The panel's lines for a remote at `invitation`'s address.
    static func panel(_ invitation: RemoteInvitation, said: [String] = []) -> [String] {
        let code = (try? QRCode(invitation.pairing).lines(quiet: 2)) ?? []
        return ["Phone remote: \(invitation.origin.terminalSafe)   scan to pair (one code a phone, 10 min)"] + code
            + said.map { $0.terminalSafe } + ["Plain HTTP on this network. Any key goes back."]
    }

    /// The panel of a player in another process (an attached screen's `R`): its remote started
    /// over its socket as `practice remote` does. The screen asks on every redraw and gets what
    /// the last answer said at once; the player is asked again, off the screen's thread, at most
    /// once a second.
    public static func panel(of socket: String) -> @Sendable () -> [String] {
        let last = Locked<(ContinuousClock.Instant, [String])?>(nil)
        let asking = Locked(false)
        return {
            let cached = last.withLock { $0 }
            let stale = cached.map { ContinuousClock.now - $0.0 >= .seconds(1) } ?? true
            if stale && asking.withLock({ was in defer { was = true }; return !was }) {
                DispatchQueue.global().async {
                    let lines: [String]
                    do throws(PracticeError) {
                        let answer = try Players.ask(socket, PlayerCommand.remote.line, within: 2) { RemoteInvitation(line: $0) != nil }
                        lines = RemoteInvitation(line: answer).map { panel($0) } ?? []
                    } catch {
                        lines = ["The phone remote cannot start: \(error.message.terminalSafe)", "", "Any key goes back."]
                    }
                    last.withLock { $0 = (ContinuousClock.now, lines) }
                    asking.withLock { $0 = false }
                }
            }
            return cached?.1 ?? ["Phone remote: asking the player…", "", "Any key goes back."]
        }
    }

    /// Where the remote is, said on stderr without a screen (before the status line, or in a
    /// background player's log) and by `practice remote`: the address, the QR code of the pairing
    /// address, and what to do with it; `prefix` starts the first line (`practice: ` on stderr).
    public static func pairingText(_ pairing: String, origin: String, prefix: String = "practice: ") -> String {
        let code = (try? QRCode(pairing).lines()) ?? []
        return (["\(prefix)the remote is at \(origin): scan the code with the phone's camera to pair it (or open \(pairing))"]
            + code + ["plain HTTP on this network: anyone on it can see the traffic, only paired phones can drive the player", ""]).joined(separator: "\n")
    }

    /// Where it serves (`ADDR:PORT`, as `--remote-bind` takes it), once started by `--remote`, `R`
    /// or `practice remote`; nil before.
    public var serving: String? { remote.withLock { $0 }.map { String($0.origin.dropFirst("http://".count)) } }

    public func stop() { remote.withLock { $0 }?.stop() }
    public var replacement: String? { nil }
    public var quitBy: String? { nil }
}
