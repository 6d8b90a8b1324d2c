// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments

/// One desktop notification (org.freedesktop.Notifications) on the session bus, from a command
/// that then ends (`practice remind check`): the server has it when `send` returns.
public enum DesktopNotification {
    /// Shows `summary` and `body` (text, its markup escaped). An error when there is no session bus.
    public static func send(summary: String, body: String, icon: String = "practice") throws(PracticeError) {
        do {
            let bus = try BusConnection.session()
            let hints: [(String, BusValue)] = [("desktop-entry", .string("practice")), ("category", .string("x-practice.reminder"))]
            // Called, not only sent: the notification server has it when this returns.
            try bus.call("org.freedesktop.Notifications", path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
                         member: "Notify", [.string("practice"), .uint32(0), .string(icon), .string(summary), .string(body.markupEscaped),
                                            .strings([]), .dictionary(hints), .int32(-1)])
        } catch {
            throw PracticeError(.unavailable, "cannot reach the desktop's session bus for a notification (\(error.description))")
        }
    }
}
