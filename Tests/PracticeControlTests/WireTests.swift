// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeControl
import PracticeEngine
import PracticeDocuments

/// The protocol's one codec: every command written as its line reads back as the same command,
/// and every state message as the same message, in each of its forms; the lines scripts and
/// older clients read are pinned byte for byte.
@Suite struct WireTests {
    static let rehearsal = Rehearsal(gap: 1.5, countIn: 4, countInEvery: true, bpm: 96, preRoll: 0.5,
                                     trainer: Trainer(from: 0.7, to: 1, step: 0.05, every: 2), voice: true)

    /// Every kind of command, as ctl, attach, the hand-over and the screens send them.
    static let commands: [PlayerCommand] = [
        .play, .pause, .toggle, .quit, .next, .previous, .status, .attach, .remote, .rewind, .mirror(nil), .mirror(true), .mirror(false),
        .video(nil), .video(true), .video(false), .fullScreen(nil), .fullScreen(true), .fullScreen(false),
        .mark("Turn \"2\" ✓"), .jumpTo(72.125), .jump("Verse 2"), .looping(false), .looping(true),
        .setLoop(LoopRange(start: 30.25, end: 45, passes: 3, name: "shine", rehearsal: rehearsal), keepingCount: true, on: false),
        .setLoop(nil, keepingCount: false, on: true),
        .seek(0), .seek(61.001), .seekTo("Chorus"), .seekTo("line 5"), .rate(0.8), .rate(3), .pitch(-12), .pitch(2.5), .quality(.high), .quality(.fast), .formant(nil), .formant(true), .formant(false),
        .loop(nil), .loop(LoopRange(start: 1, end: 2.5)), .loop(LoopRange(start: 1, end: 2.5, passes: 4)),
        .loopAt(["shine turn"], times: nil), .loopAt(["Verse", "line 7"], times: 2),
    ]

    @Test(arguments: commands)
    func aCommandReadsBackAsItself(command: PlayerCommand) throws {
        #expect(try PlayerCommand.parse(command.line) == command, "\(command.line)")
    }

    /// The lines themselves: the protocol the README documents (sorted keys, no spaces).
    @Test func theLinesAreTheDocumentedOnes() throws {
        #expect(PlayerCommand.rate(0.8).line == #"{"cmd":"rate","value":0.8}"#)
        #expect(PlayerCommand.quality(.high).line == #"{"cmd":"quality","value":"high"}"#)
        #expect(try PlayerCommand.typed("quality", ["high"]) == .quality(.high))
        #expect(throws: PracticeError(.usage, "'quality' takes 'fast' or 'high' (got 'best')")) { try PlayerCommand.typed("quality", ["best"]) }
        #expect(throws: PracticeError(.dataError, #"control: "quality" needs "fast" or "high" in "value": {"cmd":"quality","value":1}"#)) {
            try PlayerCommand.parse(#"{"cmd":"quality","value":1}"#)
        }
        #expect(PlayerCommand.seekTo("1:12.5").line == #"{"cmd":"seek","to":"1:12.5"}"#)
        #expect(PlayerCommand.loopAt(["Verse", "Chorus"], times: 4).line == #"{"cmd":"loop","end":"Chorus","start":"Verse","times":4}"#)
        #expect(PlayerCommand.loop(nil).line == #"{"cmd":"loop"}"#)
        #expect(PlayerCommand.attach.line == #"{"cmd":"attach"}"#)
        #expect(PlayerCommand.remote.line == #"{"cmd":"remote"}"#)
        #expect(PlayerCommand.mirror(true).line == #"{"cmd":"mirror","on":true}"#)
        #expect(try PlayerCommand.typed("mirror", []) == .mirror(nil))
        #expect(try PlayerCommand.typed("mirror", ["off"]) == .mirror(false))
        #expect(PlayerCommand.video(false).line == #"{"cmd":"video","on":false}"#)
        #expect(PlayerCommand.fullScreen(nil).line == #"{"cmd":"fullscreen"}"#)
        #expect(try PlayerCommand.typed("video", ["on"]) == .video(true))
        #expect(try PlayerCommand.typed("fullscreen", []) == .fullScreen(nil))
        #expect(throws: PracticeError(.usage, "'fullscreen' takes 'on', 'off' or nothing (got 'yes')")) { try PlayerCommand.typed("fullscreen", ["yes"]) }
        #expect(throws: PracticeError(.dataError, #"control: "video" takes true or false in "on" (or nothing: the other way): {"cmd":"video","on":1}"#)) {
            try PlayerCommand.parse(#"{"cmd":"video","on":1}"#)
        }
        #expect(PlayerCommand.setLoop(LoopRange(start: 1, end: 2), keepingCount: false, on: true).line
            == #"{"cmd":"setloop","keepingCount":false,"loop":{"end":2,"rehearsal":{"countIn":0,"countInEvery":false,"gap":0,"preRoll":0},"start":1},"on":true}"#)
    }

    /// A place that is a time is the time: what the player does is the same.
    @Test func placesThatAreTimesComeBackAsTimes() throws {
        #expect(try PlayerCommand.parse(PlayerCommand.seekTo("1:12.5").line) == .seek(72.5))
        #expect(try PlayerCommand.parse(PlayerCommand.loopAt(["0:30", "45.5"], times: 4).line) == .loop(LoopRange(start: 30, end: 45.5, passes: 4)))
    }

    static func state(loopOn: Bool) -> PlayerState {
        var s = PlayerState(title: "Bolero", path: "/music/bolero.flac", tags: ["title": "Bolero", "artist": "Ravel", "album": "x"],
                            position: 83.25, duration: 900.5, rate: 0.85, pitch: -2, isPlaying: true, isFinished: false, underruns: 3,
                            earlyEnd: "cut short", failure: "gone",
                            loop: LoopState(start: 30.25, end: 45, name: "shine", pass: 2, passes: 4, isOn: loopOn, rehearsal: rehearsal))
        s.loop?.countIn = .init(beat: 3, of: 4)
        s.deviceLost = "waiting"
        s.isRealTime = false
        s.isMirrored = true
        s.quality = .high
        s.formant = true
        s.video = VideoState(isShown: true, isFullScreen: false)
        return s
    }

    /// What a player answers `practice remote` with reads back as itself; other lines are not one.
    @Test func theRemotesInvitationReadsBack() {
        let invitation = RemoteInvitation(origin: "http://192.168.1.20:4797", pairing: "HTTP://192.168.1.20:4797/P/ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        #expect(invitation.line == #"{"event":"remote","origin":"http://192.168.1.20:4797","pairing":"HTTP://192.168.1.20:4797/P/ABCDEFGHIJKLMNOPQRSTUVWXYZ"}"#)
        #expect(RemoteInvitation(line: invitation.line) == invitation)
        #expect(RemoteInvitation(line: #"{"event":"status","origin":"x","pairing":"y"}"#) == nil)
        #expect(RemoteInvitation(line: #"{"event":"remote","origin":"x"}"#) == nil)
    }

    /// An attached screen gets everything a view shows, the loop on or off with its rehearsal.
    @Test(arguments: [true, false])
    func theFullFormCarriesTheWholeState(loopOn: Bool) throws {
        let sent = StateMessage(.full, Self.state(loopOn: loopOn), kind: .passStarted, start: 12.5)
        let read = try #require(StateMessage(line: sent.line))
        #expect(read == sent)
        #expect(read.state == Self.state(loopOn: loopOn))
    }

    /// Scripts get the state form: the fields they read, a loop only while it plays.
    @Test func theStateFormIsWhatScriptsRead() throws {
        let line = StateMessage(.state, Self.state(loopOn: true)).line
        #expect(line == #"{"deviceLost":"waiting","duration":900.5,"event":"state","finished":false,"loop":{"countIn":{"beat":3,"of":4},"end":45,"name":"shine","pass":2,"start":30.25,"times":4},"pitch":-2,"playing":true,"position":83.25,"rate":0.85,"underruns":3,"version":1}"#)
        let read = try #require(StateMessage(line: line))
        #expect(read.form == .state && read.line == line)
        #expect(read.state.position == 83.25 && read.state.rate == 0.85 && read.state.loop?.pass == 2 && read.state.loop?.countIn?.beat == 3)
        #expect(!StateMessage(.state, Self.state(loopOn: false)).line.contains("loop"))
        let follower = try #require(StateEvent(line: line))
        #expect(follower == StateEvent(position: 83.25, duration: 900.5, rate: 0.85, isPlaying: true, loop: .init(start: 30.25, end: 45)))
    }

    /// `status` adds who answers; ctl reads it back whole.
    @Test func theStatusFormSaysWhoAnswers() throws {
        let sent = StateMessage(.status, Self.state(loopOn: true), process: .init(pid: 4242, path: "/music/bolero.flac", sidecar: "/crew/b.json", mpris: "practice.instance4242"))
        let line = sent.line
        #expect(line.contains(#""artist":"Ravel""#) && line.contains(#""event":"status""#) && line.contains(#""mpris":"practice.instance4242""#)
            && line.contains(#""pid":4242"#) && line.contains(#""title":"Bolero""#) && line.contains(#""sidecar":"/crew/b.json""#)
            && line.contains(#""mirror":true"#) && line.contains(#""video":{"fullScreen":false,"shown":true}"#) && line.contains(#""quality":"high""#) && line.contains(#""formant":true"#))
        let read = try #require(StateMessage(line: line))
        #expect(read.state.quality == .high && read.state.formant)
        #expect(read.line == line)
        #expect(read.process == sent.process && read.state.title == "Bolero" && read.state.tags == ["artist": "Ravel"])
        #expect(StateMessage(line: PlayerCommand.status.line) == nil)
    }

    @Test func anErrorReadsBackWithItsCode() {
        let line = StateMessage.errorLine(PracticeError(.usage, "control: \"rate\" must be from 0.25 to 3.0 (got 9)"))
        #expect(line == #"{"code":64,"event":"error","message":"control: \"rate\" must be from 0.25 to 3.0 (got 9)"}"#)
        #expect(StateMessage.error(line)?.code == 64 && StateMessage.error(line)?.message == #"control: "rate" must be from 0.25 to 3.0 (got 9)"#)
        #expect(StateMessage(line: line) == nil && StateMessage.error(StateMessage(.state, Self.state(loopOn: false)).line) == nil)
    }
}
