// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// Finding and reading a track's lyrics: an LRC file beside the audio.
public enum LyricsFile {
    /// Where a track's lyrics are looked for, in order: `song.mp3.lrc`, then `song.lrc`.
    public static func candidates(forAudio path: String) -> [String] {
        let own = path + ".lrc"
        let stem = Path.deletingExtension(path) + ".lrc"
        return stem == own ? [own] : [own, stem]
    }

    /// `<file name>.lrc` (song.mp3.lrc) then `<stem>.lrc` (song.lrc) next to the audio; nil if neither exists.
    public static func find(forAudio path: String) -> String? {
        candidates(forAudio: path).first { candidate in
            var isDirectory = false
            return FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) && !isDirectory
        }
    }

    /// `no lyrics for song.mp3 (looked for song.mp3.lrc, song.lrc)`.
    public static func notFound(forAudio path: String) -> String {
        "no lyrics for \(path) (looked for \(candidates(forAudio: path).joined(separator: ", ")))"
    }

    /// Reads and parses; errors (missing, unreadable, not UTF-8 text) name the file (PracticeError with sysexits kind).
    /// Warnings name the file and line: `song.lrc:7: skipped "…" (no time stamp)`.
    public static func load(_ path: String) throws(PracticeError) -> (lyrics: Lyrics, warnings: [String]) {
        let data = try ReadableFile.contents(of: path, noun: "a lyrics file")
        let lines: [Interchange.TextLine]
        do { lines = try Interchange.textLines(data) } catch {
            throw PracticeError(.dataError, "\(path)\(error.line.map { ":\($0)" } ?? ""): \(error.message)")
        }
        let (lyrics, warnings) = LRC.read(lines)
        return (lyrics, warnings.map { "\(path):\($0.line): \($0.message)" })
    }

    /// The track's lyrics (`explicit` is `--lyrics PATH`), with the sidecar's `settings.lyricsShift`
    /// applied (`sidecar` is `--markers PATH`); nil when there is no lyrics file. The warnings are
    /// the file's skipped lines and the sidecar's.
    public static func forTrack(_ track: some SidecarTrack, explicit: String? = nil, sidecar: String? = nil) throws(PracticeError) -> (lyrics: Lyrics, path: String, warnings: [String])? {
        guard let path = explicit ?? find(forAudio: track.path) else { return nil }
        let (lyrics, warnings) = try load(path)
        let loaded = try SidecarStore.load(for: track, explicit: sidecar)
        return (lyrics.shifted(bySettings: loaded.sidecar.settings), path, warnings + loaded.warnings)
    }
}

extension Lyrics {
    /// Moved by a sidecar's `lyricsShift` (unchanged without one).
    public func shifted(bySettings settings: PracticeSettings?) -> Lyrics {
        guard let shift = settings?.lyricsShift, shift != 0 else { return self }
        return shifted(by: shift)
    }
}
