// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeDocuments

/// Where the remote is, said on stderr without a screen (before the status line, or in a
/// background player's log) and by `practice remote`: the address and the QR code that pairs a phone.
public enum RemoteAnnouncement {
    /// The address, the QR code of the pairing address, and what to do with it; `prefix` starts
    /// the first line (`practice: ` on stderr).
    public static func pairingText(_ pairing: String, origin: String, prefix: String = "practice: ") -> String {
        let code = (try? QRCode(pairing).lines()) ?? []
        return (["\(prefix)the remote is at \(origin): scan the code with the phone's camera to pair it (or open \(pairing))"]
            + code + ["plain HTTP on this network: anyone on it can see the traffic, only paired phones can drive the player", ""]).joined(separator: "\n")
    }
}
