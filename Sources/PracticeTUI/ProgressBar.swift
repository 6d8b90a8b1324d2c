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
