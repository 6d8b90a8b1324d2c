// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeSystem
import PracticeDocuments
/// A progress bar for stderr on a terminal: `[#######-------]  45%`.
public enum ProgressBar {
    public static func render(_ fraction: Double, width: Int) -> String {
        let f = min(max(fraction, 0), 1)
        let percent = Int((f * 100).rounded(.down))
        let label = " \(percent < 10 ? "  " : percent < 100 ? " " : "")\(percent)%"
        let inner = max(width - label.count - 2, 0)
        let filled = Int((Double(inner) * f).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: inner - filled) + "]" + label
    }
}

extension ProgressBar {
    /// A download: `cover.jpg [######-------]  45%  1.2 MB of 2.6 MB` when its size is known, else
    /// `cover.jpg  1.2 MB`. The name is shortened to a third of `width` at most.
    public static func render(name: String, bytes: Int64, of total: Int64?, width: Int) -> String {
        let room = max(width / 3, 8)
        let label = name.count > room ? String(name.prefix(room - 1)) + "…" : name
        guard let total, total > 0 else { return "\(label)  \(size(bytes))" }
        let tail = "  \(size(bytes)) of \(size(total))"
        let bar = render(Double(bytes) / Double(total), width: max(width - label.count - 1 - tail.count, 12))
        return "\(label) \(bar)\(tail)"
    }

    /// Bytes in decimal units: `512 B`, `882 kB`, `1.8 MB`, `24 MB`.
    public static func size(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        var value = Double(bytes) / 1000
        var unit = "kB"
        for next in ["MB", "GB", "TB"] where value >= 999.5 {
            value /= 1000
            unit = next
        }
        return value < 9.95 ? "\((value * 10).rounded() / 10) \(unit)" : "\(Int(value.rounded())) \(unit)"
    }
}

/// The downloads' progress bars on stderr: one line a file, redrawn at most 10 times a second.
public final class DownloadProgress: Sendable {
    private struct Line {
        var name: String
        var bytes: Int64
        var total: Int64?
        /// When and how far it was drawn last.
        var drawn: ContinuousClock.Instant
        var drawnBytes: Int64
    }
    private let shown: Bool
    private let line = Locked<Line?>(nil)

    public init(shown: Bool) { self.shown = shown }

    public func show(_ name: String, _ bytes: Int64, _ total: Int64?) {
        guard shown else { return }
        line.withLock { line in
            if let previous = line, previous.name != name { end(previous) }
            let now = ContinuousClock.now
            if let previous = line, previous.name == name, now - previous.drawn < .milliseconds(100), bytes != total {
                line?.bytes = bytes
                return
            }
            draw(name, bytes, total)
            line = Line(name: name, bytes: bytes, total: total, drawn: now, drawnBytes: bytes)
        }
    }

    /// Ends the last file's line, showing how far it got.
    public func finish() {
        line.withLock { line in
            if let last = line { end(last) }
            line = nil
        }
    }

    private func end(_ line: Line) {
        if line.bytes != line.drawnBytes { draw(line.name, line.bytes, line.total) }
        Terminal.write("\n", to: STDERR_FILENO)
    }

    private func draw(_ name: String, _ bytes: Int64, _ total: Int64?) {
        let width = min(Terminal.width(STDERR_FILENO) - 1, 80)
        Terminal.writeRaw(Terminal.redraw(ProgressBar.render(name: name, bytes: bytes, of: total, width: width)), to: STDERR_FILENO)
    }
}
