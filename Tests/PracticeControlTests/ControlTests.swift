// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import PracticeControl
import PracticeEngine
import PracticeDocuments

@Suite struct ControlTests {
    @Test(arguments: [
        (#"{"cmd":"seek","to":72.5}"#, PlayerCommand.seek(72.5)),
        (#"{"cmd":"seek","to":"1:12.5"}"#, .seek(72.5)),
        (#"{"cmd":"rate","value":0.8}"#, .rate(0.8)),
        (#"{"cmd":"pitch","value":-2}"#, .pitch(-2)),
        (#"{"cmd":"toggle"}"#, .toggle),
        (#" {"cmd":"quit","extra":true} "#, .quit),
        (#"{"cmd":"loop","start":"0:30","end":45.5,"times":4}"#, .loop(LoopRange(start: 30, end: 45.5, passes: 4))),
        (#"{"cmd":"loop"}"#, .loop(nil)),
        (#"{"cmd":"jump","marker":"Verse 2"}"#, .jump("Verse 2")),
    ])
    func parsesCommands(line: String, command: PlayerCommand) throws {
        #expect(try PlayerCommand.parse(line) == command)
    }

    @Test(arguments: [
        ("nonsense", "control: not a JSON object: nonsense"),
        (#"{"to":3}"#, #"control: missing "cmd": {"to":3}"#),
        (#"{"cmd":"seek"}"#, #"control: "seek" needs a number in "to": {"cmd":"seek"}"#),
        (#"{"cmd":"rate","value":"fast"}"#, #"control: "rate" needs a number in "value": {"cmd":"rate","value":"fast"}"#),
        (#"{"cmd":"dance"}"#, #"control: unknown command "dance": {"cmd":"dance"}"#),
        (#"{"cmd":"loop","start":3}"#, #"control: "loop" needs a number in "end": {"cmd":"loop","start":3}"#),
        (#"{"cmd":"loop","start":3,"end":4,"times":0}"#, #"control: "loop" needs a whole number of 1 or more in "times": {"cmd":"loop","start":3,"end":4,"times":0}"#),
    ])
    func explainsBadLines(line: String, message: String) {
        #expect(throws: PracticeError(.dataError, message)) { try PlayerCommand.parse(line) }
    }
}
