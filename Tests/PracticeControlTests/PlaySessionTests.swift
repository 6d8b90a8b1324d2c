// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeAudio
import PracticeControl
import PracticeDocuments
import PracticeEngine
import PracticeSystem
import PracticeTestSupport

/// The play session without the binary: on the virtual device, what `practice play` wires (the
/// saved place it resumes from and keeps, the controllers that drive it) is exact.
@Suite struct PlaySessionTests {
    let dir = ScratchDirectory("play-session")

    func session(resume: PlaySession.ResumeRules?, output: VirtualOutput, from: Double? = nil) throws -> PlaySession {
        let path = dir.file("counter.wav")
        if !FileManager.default.fileExists(atPath: path) { try Signals.write(Signals.counter(frames: 88_200), to: path, format: .float) }
        var options = PlayerOptions()
        options.output = .virtual(output)
        options.from = from
        var settings = PlaySession.Settings()
        settings.resume = resume
        settings.journal = false
        settings.say = false
        settings.resumeFile = dir.file("resume.json")
        return try PlaySession(file: path, options: options, settings: settings)
    }

    /// A person's session comes back where the track was left (position, speed, pitch, its loop)
    /// and keeps where it stops; what the command line gives wins; a script's keeps nothing.
    @Test func aSessionResumesAndKeepsTheSavedPlace() throws {
        var store = ResumeStore(path: dir.file("resume.json"))
        try store.save(ResumePoint(position: 0.5, rate: 0.8, pitch: -2, loop: .init(start: 0.25, end: 1.5, name: "drill", isOn: false)),
                       for: dir.file("counter.wav"))
        let output = VirtualOutput(sampleRate: 44_100, channels: 2)
        let s = try session(resume: PlaySession.ResumeRules(), output: output)
        #expect(s.resumed?.position == 0.5)
        let state = s.player.state
        #expect(state.position == 0.5 && state.rate == 0.8 && state.pitch == -2 && !state.isPlaying)
        #expect(state.loop == LoopState(start: 0.25, end: 1.5, name: "drill", pass: 1, passes: nil, isOn: false))
        s.player.seek(to: 1.25)
        s.remember()
        s.player.stop()
        let kept = try #require(ResumeStore(path: dir.file("resume.json")).point(for: dir.file("counter.wav")))
        #expect(kept.position == 1.25 && kept.rate == 0.8 && kept.pitch == -2 && kept.loop?.name == "drill" && kept.loop?.isOn == false)

        var given = PlaySession.ResumeRules()
        given.rate = true
        given.place = true
        let second = try session(resume: given, output: VirtualOutput(sampleRate: 44_100, channels: 2), from: 0.25)
        #expect(second.player.state.position == 0.25 && second.player.state.rate == 1 && second.player.state.pitch == -2)
        second.player.stop()

        let script = try session(resume: nil, output: VirtualOutput(sampleRate: 44_100, channels: 2))
        #expect(script.resumed == nil && script.player.state.position == 0 && script.player.state.rate == 1)
        script.player.seek(to: 0.75)
        script.remember()
        script.player.stop()
        #expect(ResumeStore(path: dir.file("resume.json")).point(for: dir.file("counter.wav"))?.position == 1.25, "a script's session keeps nothing")
    }

    /// Its controllers drive it: `--control`'s socket takes the protocol's commands, its quit ends
    /// the session, and the players' socket answers `status` for `ctl` with this process.
    @Test func theControllersDriveTheSession() throws {
        let s = try session(resume: nil, output: VirtualOutput(sampleRate: 44_100, channels: 2))
        let quit = Locked(0)
        let socket = dir.file("control.sock")
        let controllers = try s.startControllers(control: socket, signals: [], services: { _, _, _ in [] }) { quit.withLock { $0 += 1 } }
        defer { controllers.stop(); s.player.stop() }
        var client = try ControlClient(path: socket)
        let sent = client.send(PlayerCommand.rate(0.5).line) && client.send(PlayerCommand.seek(1).line) && client.send(PlayerCommand.status.line)
        #expect(sent)
        let answer = try eventuallyValue("the status answer") { () -> StateMessage? in
            guard case .line(let line) = client.read(timeout: 0.1), let m = StateMessage(line: line), m.form == .status else { return nil }
            return m
        }
        #expect(answer.state.rate == 0.5 && answer.state.position == 1 && answer.process?.pid == Int(getpid()))
        #expect(s.player.state.rate == 0.5)
        let quitSent = client.send(PlayerCommand.quit.line)
        #expect(quitSent)
        try eventually("the session's quit") { quit.withLock { $0 } == 1 }
        #expect(controllers.players != nil)
        let mine = Players.running().first { $0.pid == Int(getpid()) }
        #expect(mine?.status.state.rate == 0.5 && mine?.path == Path.resolved(dir.file("counter.wav")))
    }

    /// The players' folder must be this user's own: one that others can write in (where another
    /// user could put a socket that answers for a player) is refused, and `ctl` finds nobody there.
    @Test func thePlayersFolderMustBeOurOwn() throws {
        let runtime = dir.file("runtime")
        try FileManager.default.createDirectory(atPath: runtime + "/practice/players", withIntermediateDirectories: true)
        chmod(runtime + "/practice", 0o700)
        chmod(runtime + "/practice/players", 0o700)
        #expect(ControlSocket.notPrivate(runtime + "/practice/players") == nil)
        #expect(ControlSocket.notPrivate(dir.file("nothing")) == "cannot be read (No such file or directory)")
        // A player answering there is found while the folder is ours alone, not once others can write in it.
        let s = try session(resume: nil, output: VirtualOutput(sampleRate: 44_100, channels: 2))
        let socket = try ControlSocket(path: Players.socketPath(environment: ["XDG_RUNTIME_DIR": runtime]), player: s.player) {}
        defer { socket.stop(); s.player.stop() }
        #expect(Players.running(environment: ["XDG_RUNTIME_DIR": runtime]).map(\.pid) == [Int(getpid())])
        chmod(runtime + "/practice", 0o777)
        #expect(ControlSocket.notPrivate(runtime + "/practice") == "others can write in it (mode 777)")
        #expect(Players.running(environment: ["XDG_RUNTIME_DIR": runtime]).isEmpty)
    }
}
