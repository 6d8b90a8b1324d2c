// SPDX-License-Identifier: GPL-3.0-or-later

/// Another copy's sidecar (a friend's, made on their copy of the song) lined up with `track`
/// (`SidecarStore.lineUp`), without the markers whose music this copy does not have.
public struct OtherCopy {
    public var sidecar: Sidecar
    public var messages: (warnings: [String], notices: [String])

    public init(_ theirs: Sidecar, path: String, on track: some SidecarTrack) throws(PracticeError) {
        let linedUp = try SidecarStore.lineUp(theirs, readFrom: path, on: track)
        // Asked for: how it lines up is said every time.
        messages = (linedUp.warnings, (linedUp.notices.isEmpty ? linedUp.alignment.map { [$0] } ?? [] : linedUp.notices).map { "\(path): \($0)" })
        sidecar = linedUp.sidecar
        if let missing = linedUp.placement?.missing, !missing.isEmpty {
            messages.notices.append(Self.leftOut(missing, from: sidecar))
            sidecar = Self.withoutMissing(sidecar, missing)
        }
    }

    /// Markers whose audio a copy does not have are not taken onto it: there is no place for them.
    public static func withoutMissing(_ s: Sidecar, _ missing: [String]) -> Sidecar {
        var out = s
        out.markers.removeAll { missing.contains($0.id) }
        return out
    }

    public static func leftOut(_ missing: [String], from s: Sidecar) -> String {
        let names = s.markers.filter { missing.contains($0.id) }.map { "'\($0.name)'" }
        return "left out \(names.joined(separator: ", ")): \(names.count == 1 ? "its" : "their") music is not in this copy"
    }
}
