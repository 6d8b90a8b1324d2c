// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Testing
import PracticeTestSupport

/// A private X server (Debian's Xvfb), gone with the value.
final class VirtualDisplay: @unchecked Sendable {  // immutable after init
    let server: Spawned
    let name: String

    /// Displays made by this process so far: each gets a number of its own.
    private static let made = Mutex(0)

    init() throws {
        let number = 100 + Int(getpid() % 300) * 10 + Self.made.withLock { n in defer { n = (n + 1) % 10 }; return n }
        name = ":\(number)"
        server = try Spawned("/usr/bin/Xvfb", [name, "-screen", "0", "800x600x24", "-nolisten", "tcp"], environment: ProcessInfo.processInfo.environment)
        try eventually("Xvfb answers on \(name)", within: 10) {
            try run("/usr/bin/xwininfo", ["-root"], environment: ["DISPLAY": name]).status == 0
        }
    }

    deinit { server.terminate() }
}

/// The dancer's video: a video's picture in mpv's window follows the player, read back from
/// screenshots of the window under Xvfb (the test video shows each frame's number as blocks, with
/// a red left half and a blue right one: video-frames.py).
@Suite(.serialized) struct VideoTests {
    static let frames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("video-frames.py").path
    let dir = ScratchDirectory("video")
    let display: VirtualDisplay

    init() throws {
        display = try VirtualDisplay()
        try FileManager.default.createDirectory(atPath: dir.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if !FileManager.default.fileExists(atPath: dir.file("tutorial.mp4")) {
            let made = try run("/usr/bin/python3", [Self.frames, "make", dir.file("tutorial.mp4"), "8"])
            try #require(made.status == 0, "\(made)")
        }
    }

    /// The frame the window shows and whether it is mirrored; nil without a window.
    func shown() throws -> (frame: Int, mirrored: Bool)? {
        let r = try run("/usr/bin/python3", [Self.frames, "read", dir.file("shot.png")], environment: ["DISPLAY": display.name])
        guard let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], let frame = o["frame"] as? Int else { return nil }
        return (frame, o["mirrored"] as? Bool ?? false)
    }

    func player(_ extra: [String] = []) throws -> ControlledPlayer {
        try ControlledPlayer(["tutorial.mp4", "--device", "null", "--control", "stdin", "--no-journal", "--fresh"] + extra,
                             in: dir.path, environment: ["DISPLAY": display.name, "XDG_STATE_HOME": dir.file("state"), "XDG_RUNTIME_DIR": dir.file("run")])
    }

    /// Paused and sought, the window shows the frame of the heard position (3.2 s: frame 80;
    /// 5.04 s: 126); mirrored, the same frames with left and right swapped; it closes with the player.
    @Test(arguments: [false, true])
    func thePictureIsTheFrameHeard(mirrored: Bool) throws {
        let p = try player(mirrored ? ["--mirror"] : [])
        p.send(#"{"cmd":"pause"}"#)
        try p.next("state") { $0["playing"] as? Bool == false }
        for (to, frame) in [(3.2, 80), (5.04, 126)] {
            p.send(#"{"cmd":"seek","to":\#(to)}"#)
            try p.next("state") { $0["position"] as? Double == to }
            // A mirrored picture's blocks read backwards.
            let want = mirrored ? Int(String(String(frame, radix: 2).leftPadding(to: 10).reversed()), radix: 2)! : frame
            let seen = try eventuallyValue("frame \(frame) in the window", within: 10) { () -> (frame: Int, mirrored: Bool)? in
                guard let s = try shown(), s.frame == want else { return nil }
                return s
            }
            #expect(seen.mirrored == mirrored, "at \(to) s: \(seen)")
        }
        let (status, _, stderr) = try p.quit()
        #expect(status == 0 && stderr.isEmpty, "stderr: \(stderr)")
        try eventually("the window closed with the player") { try shown() == nil }
    }

    /// `{"cmd":"mirror"}` (what `x` on the screen and `practice ctl mirror` send) mirrors the
    /// picture and again puts it back; the player's state says so.
    @Test func theMirrorFollowsThePlayer() throws {
        let p = try player()
        p.send(#"{"cmd":"pause"}"#)
        try p.next("state") { $0["playing"] as? Bool == false }
        p.send(#"{"cmd":"seek","to":3.2}"#)
        _ = try eventuallyValue("frame 80, as it is", within: 10) { try shown().flatMap { $0.frame == 80 && !$0.mirrored ? $0 : nil } }
        p.send(#"{"cmd":"mirror"}"#)
        _ = try eventuallyValue("frame 80, mirrored", within: 10) { try shown().flatMap { $0.frame == 40 && $0.mirrored ? $0 : nil } }
        p.send(#"{"cmd":"mirror","on":false}"#)
        _ = try eventuallyValue("frame 80, as it is again", within: 10) { try shown().flatMap { $0.frame == 80 && !$0.mirrored ? $0 : nil } }
        let (status, _, stderr) = try p.quit()
        #expect(status == 0 && stderr.isEmpty, "stderr: \(stderr)")
    }

    /// mpv killed: the sound plays on (the player still answers and plays), and one line says so.
    @Test func killingTheWindowLeavesTheSound() throws {
        let p = try player()
        p.send(#"{"cmd":"pause"}"#)
        try p.next("state") { $0["playing"] as? Bool == false }
        _ = try eventuallyValue("the window", within: 10) { try shown() }
        let killed = try run("/usr/bin/pkill", ["-f", "input-ipc-server=\(dir.file("run"))/"])
        #expect(killed.status == 0, "\(killed)")
        #expect(try p.stderrLine(containing: "the video window closed") == "practice: the video window closed; the sound plays on")
        p.send(#"{"cmd":"seek","to":2}"#)
        try p.next("state") { $0["position"] as? Double == 2 }
        let (status, _, stderr) = try p.quit()
        #expect(status == 0, "stderr: \(stderr)")
    }

    /// No display: the sound plays, one line says why there is no picture; `--no-video` says nothing.
    @Test func withoutADisplayTheSoundPlaysAlone() throws {
        let r = try run(practiceBinary, ["play", "tutorial.mp4", "--device", "null", "--no-tui", "--no-journal", "--from", "7"],
                        environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""], currentDirectory: dir.path)
        #expect(r.status == 0 && r.stderr == "practice: tutorial.mp4: no display to show the picture on (neither DISPLAY nor WAYLAND_DISPLAY is set); playing the sound alone\n", "\(r)")
        // A window is open before the player's first event (the session's services start first):
        // with --no-video, none is, and no mpv runs for it.
        let quiet = try player(["--no-video"])
        try quiet.next("state")
        #expect(try shown() == nil)
        #expect(try run("/usr/bin/pgrep", ["-f", "input-ipc-server=\(dir.file("run"))/"]).status == 1, "an mpv runs for it")
        let (status, _, stderr) = try quiet.quit()
        #expect(status == 0 && stderr.isEmpty, "stderr: \(stderr)")
    }
}

extension String {
    func leftPadding(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
