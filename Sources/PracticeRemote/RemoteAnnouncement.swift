// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeDocuments
import PracticeEngine

/// Starting the remote beside a player and saying where it is: the address and the QR code that
/// pairs a phone, on stderr (before the status line, or in a background player's log).
public enum RemoteAnnouncement {
    /// The remote for `player` on `bind` (nil: the LAN address); nil, and one line saying why,
    /// when it cannot listen: the player plays on without it.
    public static func start(_ player: Player, bind: String?, screen: Bool, devicesPath: String = RemoteDevices.standardPath) -> WebRemote? {
        var settings = WebRemote.Settings()
        settings.bind = bind
        settings.devicesPath = devicesPath
        let remote: WebRemote
        do {
            remote = try WebRemote(player: player, settings: settings) { line in
                if !screen { Terminal.write("practice: \(line.terminalSafe)\n", to: STDERR_FILENO) }
            }
        } catch {
            Terminal.write("practice: warning: \(error.message); playing without the remote\n", to: STDERR_FILENO)
            return nil
        }
        Terminal.write(pairingText(remote.pairingAddress, origin: remote.origin), to: STDERR_FILENO)
        return remote
    }

    /// The address, the QR code of the pairing address, and what to do with it.
    public static func pairingText(_ pairing: String, origin: String) -> String {
        let code = (try? QRCode(pairing).lines()) ?? []
        return (["practice: the remote is at \(origin): scan the code with the phone's camera to pair it (or open \(pairing))"]
            + code + ["plain HTTP on this network: anyone on it can see the traffic, only paired phones can drive the player", ""]).joined(separator: "\n")
    }
}
