// SPDX-License-Identifier: GPL-3.0-or-later

/// What a one-shot command leaves for its process's exit to take back. Freeing a sidecar of
/// 10,000 markers is 20,000 strings and arrays released one at a time, a twentieth of
/// `practice markers add`; when the process exits, the kernel takes all its memory back at once.
///
/// Only a command whose process ends when it returns turns `process` on (the commands on markers
/// and loops, through `SidecarTarget`). The player, which edits sidecars for as long as it plays,
/// never does, and there `keep` keeps nothing.
public final class LeftForExit: Sendable {
    /// This process's.
    public static let process = LeftForExit()

    private let kept = Locked<[Any]?>(nil)

    public init() {}

    /// From now on `keep` keeps: this process ends when its command returns.
    public func untilExit() {
        kept.withLock { if $0 == nil { $0 = [] } }
    }

    /// Whether `keep` keeps (`untilExit` was called).
    public var isOn: Bool { kept.withLock { $0 != nil } }

    /// Keeps `value` alive until the process exits, once `untilExit` was called; before, does
    /// nothing, and `value` goes when its last owner lets it go.
    public func keep(_ value: Any) {
        kept.withLock { $0?.append(value) }
    }
}
