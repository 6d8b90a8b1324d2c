// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PracticeControl
import PracticeDocuments
import PracticeEngine

extension Renderer {
    /// `practice render` on a terminal: the render with a progress bar on stderr (with
    /// `progress`), what was written said (unless `quiet`). Ctrl-C (or a kill) stops it between
    /// blocks: the part written so far is removed, nothing is left behind, and the signal's
    /// number is returned (the caller exits 128 + N).
    public static func renderOnTerminal(_ job: RenderJob, progress: Bool, quiet: Bool) throws(PracticeError) -> Int32? {
        let signals = SignalHandlers { _ in }
        let result: RenderResult
        do {
            result = try render(job, interrupted: { signals.received != nil }) { fraction in
                guard progress else { return }
                Terminal.writeRaw(Terminal.redraw(ProgressBar.render(fraction, width: min(Terminal.width(STDERR_FILENO) - 1, 60))), to: STDERR_FILENO)
            }
        } catch {
            if let signal = signals.received {
                if progress { Terminal.write("\n", to: STDERR_FILENO) }
                Terminal.write("practice: \(error.message)\n", to: STDERR_FILENO)
                return signal
            }
            throw error
        }
        if progress { Terminal.write("\n", to: STDERR_FILENO) }
        if let early = result.earlyEnd { Terminal.write("practice: warning: \(early)\n", to: STDERR_FILENO) }
        if !quiet {
            let seconds = Double(result.frames) / Double(result.sampleRate)
            Terminal.write("practice: wrote \(job.output) (\(Timecode.format(seconds, decimals: 3)), \(result.sampleRate) Hz, \(result.channels) ch)\n", to: STDERR_FILENO)
        }
        return nil
    }
}
