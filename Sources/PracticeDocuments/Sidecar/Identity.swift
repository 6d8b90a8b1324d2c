// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// The XDG base directories (an unset, empty or relative variable means the default).
public enum XDG {
    /// `$variable` if it is an absolute path, else `relative` under the home folder. (getenv, not
    /// ProcessInfo's copy of the whole environment; a directory by definition, so no stat.) Plain
    /// strings, not URL: every command reads config.toml from here before it starts, and URL's
    /// parser is 0.6 MB of code pages that `--help` would map for it.
    public static func folder(_ variable: String, default relative: String) -> String {
        if let v = getenv(variable).map({ String(cString: $0) }), v.hasPrefix("/") { return v }
        return Path.appending(relative, to: home)
    }
    /// `$HOME`, else the password database's home folder.
    public static var home: String {
        getenv("HOME").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
    }
    /// `$XDG_CACHE_HOME/practice` (`~/.cache/practice`): things we can compute again.
    public static var cache: String { Path.appending("practice", to: folder("XDG_CACHE_HOME", default: ".cache")) }
    /// `$XDG_STATE_HOME/practice` (`~/.local/state/practice`): one person's state, kept between runs.
    public static var state: String { Path.appending("practice", to: folder("XDG_STATE_HOME", default: ".local/state")) }
    /// `$XDG_CONFIG_HOME/practice` (`~/.config/practice`): the files a person writes to set us up.
    public static var configFolder: String { Path.appending("practice", to: folder("XDG_CONFIG_HOME", default: ".config")) }
    /// `$XDG_DATA_HOME/practice` (`~/.local/share/practice`): one person's documents.
    public static var data: String { Path.appending("practice", to: folder("XDG_DATA_HOME", default: ".local/share")) }
}

/// The audio file a sidecar belongs to, as the store needs it: its path and length, and its
/// identity, which only whoever decodes the audio can compute (the engine's `Track`).
public protocol SidecarTrack: Sendable {
    var path: String { get }
    /// Seconds.
    var duration: Double { get }
    func identity() throws(PracticeError) -> TrackIdentity
    /// How the copy of the song whose identity is `reference` (a sidecar's `audio`) lines up with
    /// this one, from their fingerprints; nil when it cannot be told (no fingerprint to go by).
    func alignment(to reference: TrackIdentity) throws(PracticeError) -> TimeMap?
}

extension SidecarTrack {
    public func alignment(to reference: TrackIdentity) throws(PracticeError) -> TimeMap? { nil }
}

extension TrackIdentity {
    /// A track's identity from the cache under `XDG.cache/identity` (`key`: the caller's digest of
    /// the file's real path, device, inode, size and modification time), else `compute`d and kept.
    public static func cached(key: String?, fileName: String, compute: () throws(PracticeError) -> TrackIdentity) throws(PracticeError) -> TrackIdentity {
        if let known = lookup(key: key, fileName: fileName) { return known }
        let cacheFile = key.map { Path.appending("identity/\($0).json", to: XDG.cache) }
        let identity = try compute()
        if let cacheFile {
            // Best effort: a cache we cannot write only costs time.
            try? AtomicFile.write(Data(identity.json.pretty().utf8), to: cacheFile, makingFolder: 0o755)
        }
        return identity
    }

    /// The identity cached under `key`, if any (nothing is computed).
    public static func lookup(key: String?, fileName: String) -> TrackIdentity? {
        guard let key, let bytes = ReadableFile.wholeFile(Path.appending("identity/\(key).json", to: XDG.cache)),
              let doc = try? JSONValue.parse(bytes), var cached = try? TrackIdentity(FieldReader(path: "", value: doc)) else { return nil }
        cached.fileName = fileName
        return cached
    }

    /// How this identity differs from `other` (the track in hand), for a warning; nil when the
    /// decoded audio is the same.
    public func differences(from other: TrackIdentity) -> String? {
        if pcm.sha256 == other.pcm.sha256 { return nil }
        var parts: [String] = []
        let delta = other.duration - duration
        if abs(delta) >= 0.001 {
            parts.append("this copy is \(JSONValue.formatMilliseconds(abs(delta))) s \(delta > 0 ? "longer" : "shorter") (\(Timecode.format(other.duration, decimals: 3)) against \(Timecode.format(duration, decimals: 3)))")
        }
        if pcm.sampleRate != other.pcm.sampleRate { parts.append("\(other.pcm.sampleRate) Hz against \(pcm.sampleRate) Hz") }
        if pcm.channels != other.pcm.channels { parts.append("\(other.pcm.channels) channels against \(pcm.channels)") }
        parts.append("the decoded audio differs")
        return parts.joined(separator: "; ")
    }
}

