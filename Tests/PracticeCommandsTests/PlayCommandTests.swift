// SPDX-License-Identifier: GPL-3.0-or-later
@testable import PracticeCommands
import PracticeEngine
import PracticeTestSupport
import Testing

/// `play`'s wiring without starting the binary: the command line of the player that takes over
/// on `d`, and the words the parser is handed.
@Suite struct PlayCommandTests {
    @Test func theDetachedPlayerGetsWhatTheScreenHadAndTheWindowAsItWasLeft() {
        var play = PlayCommand(file: "tutorial.mp4")
        (play.device, play.place.sidecar, play.place.lyrics, play.place.audioStream) = ("pulse", "crew.json", "words.lrc", 1)
        play.settings = PlaybackSettings(rate: 0.8, pitch: 0, profileName: "percussive")!
        play.settings.quality = .high
        (play.quiet, play.noJournal, play.mirror, play.noOverlay) = (true, true, true, true)
        // Shown on the whole screen at the start, hidden by `v` before `d`: it goes hidden, not full screen.
        play.fullScreen = true
        #expect(play.detachedArguments(paused: true, remoteAt: "192.168.1.20:4797", video: VideoState(isShown: false, isFullScreen: false))
                == ["play", "tutorial.mp4", "--device", "pulse", "--markers", "crew.json", "--lyrics", "words.lrc", "--audio-stream", "1",
                    "--profile", "percussive", "--quality", "high", "--quiet", "--no-journal", "--remote", "--remote-bind", "192.168.1.20:4797",
                    "--no-video", "--no-overlay", "--mirror", "--paused"])
        // Without a window's state (no video), the command line's own flags; the music profile is the default, unsaid.
        var plain = PlayCommand(file: "song.flac")
        (plain.noVideo, plain.fullScreen, plain.remoteBind, plain.noMpris, plain.reconnect) = (true, true, "10.0.0.2", true, true)
        #expect(plain.detachedArguments(paused: false)
                == ["play", "song.flac", "--device", "default", "--no-mpris", "--reconnect", "--remote-bind", "10.0.0.2", "--no-video", "--fullscreen"])
    }

    /// The device opened before the arguments are parsed: `play FILE` or `FILE` with a readable
    /// file, on the `--device` given; nothing for another command, a missing file, options first,
    /// a background start (another process plays) or help.
    @Test func theDeviceOpenedAheadIsTheOneTheCommandLineNames() throws {
        let dir = ScratchDirectory("prepare")
        let song = dir.file("song.wav")
        try Signals.write(Signals.sine(440, seconds: 0.1), to: song)
        let commands = ["play", "render", "markers"]
        let cases: [([String], String?)] = [
            (["play", song, "--device", "pulse"], "pulse"),
            ([song, "--rate", "0.8"], "default"),
            ([song, "--device=plughw:1"], "plughw:1"),
            (["render", song, "-o", "x.wav"], nil),
            (["play", dir.file("missing.wav")], nil),
            (["play", "--rate", "0.8", song], nil),
            ([song, "--background"], nil),
            (["play", song, "--help"], nil),
        ]
        for (arguments, device) in cases {
            #expect(PlayCommand.deviceToPrepare(arguments: arguments, commands: commands) == device, "\(arguments)")
        }
    }

    @Test func nudgesBackAreKeptAsValuesAndAMisspelledCommandIsNamed() {
        #expect(CommandWords.allowingNudges(["markers", "move", "song.mp3", "Chorus", "-0.25"]) == ["markers", "move", "song.mp3", "Chorus", "--", "-0.25"])
        #expect(CommandWords.allowingNudges(["song.mp3", "--from", "-1", "--to", "-0"]) == ["song.mp3", "--from=-1", "--to=-0"])
        #expect(CommandWords.allowingNudges(["song.mp3", "--rate", "-1"]) == ["song.mp3", "--rate", "-1"])
        let commands = ["play", "journal", "lyrics", "library", "markers"]
        #expect(CommandWords.misspelled("jornal", commands: commands) == "journal")
        #expect(CommandWords.misspelled("lyrcs", commands: commands) == "lyrics")
        #expect(CommandWords.misspelled("song.mp3", commands: commands) == nil)
        #expect(CommandWords.misspelled("zzzzzz", commands: commands) == nil)
        #expect(CommandWords.misspelled("journal", commands: commands) == nil)
    }
}
