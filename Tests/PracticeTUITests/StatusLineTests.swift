// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeTUI
import PracticeEngine
import PracticeDocuments
import PracticeControl

@Suite struct StatusLineTests {
    func state(title: String = "Salsa Lesson 3", position: Double = 72.35, rate: Double = 0.8, pitch: Double = 0,
               playing: Bool = true, underruns: Int = 0) -> PlayerState {
        PlayerState(title: title, path: "x.mp3", tags: [:], position: position, duration: 215.5, rate: rate, pitch: pitch,
                    isPlaying: playing, isFinished: false, underruns: underruns, earlyEnd: nil, failure: nil)
    }

    @Test func showsTitlePositionDurationAndRate() {
        #expect(StatusLine.render(state(), width: 80) == "▶ Salsa Lesson 3  1:12.3 / 3:35.5  0.80×")
        #expect(StatusLine.render(state(pitch: -2, playing: false), width: 80) == "⏸ Salsa Lesson 3  1:12.3 / 3:35.5  0.80×  -2 st")
        #expect(StatusLine.render(state(rate: 1.05, underruns: 1), width: 80) == "▶ Salsa Lesson 3  1:12.3 / 3:35.5  1.05×  1 underrun")
    }

    @Test func shortensTheTitleToFit() {
        let line = StatusLine.render(state(title: String(repeating: "Long Title ", count: 10)), width: 40)
        #expect(line == "▶ Long Title Lo…  1:12.3 / 3:35.5  0.80×")
        #expect(line.count == 40)
        #expect(StatusLine.render(state(), width: 20).count <= 20)
    }

    @Test func progressBarFillsInProportion() {
        #expect(ProgressBar.render(0.5, width: 20) == "[######-------]  50%")
        #expect(ProgressBar.render(1, width: 20) == "[#############] 100%")
        #expect(ProgressBar.render(0.25, width: 30).count == 30)
    }
}

@Suite struct SafeTextTests {
    /// The screen and the status line show a title's escape sequence as text.
    @Test func theScreenShowsEscapesAsText() {
        var p = PlayerState(title: "Evil\u{1B}]0;pwned\u{07}", path: "x.wav", tags: ["artist": "\u{202E}kcab"], position: 1, duration: 2, isPlaying: false)
        p.loop = nil
        let lines = Screen.render(ScreenState(player: p, markers: [.init(name: "A\u{1B}[2J", time: 0.5)], message: "bad\rline"), width: 80, height: 24)
        #expect(lines[0] == #"Evil\u{1b}]0;pwned\u{7}"#)
        #expect(lines[1] == #"\u{202e}kcab"#)
        #expect(lines.contains(#"▸ 1  0:00.500  A\u{1b}[2J"#))
        #expect(lines[22] == #"bad\u{d}line"#)
        #expect(StatusLine.render(p, width: 60).hasPrefix(#"⏸ Evil\u{1b}]0;pwned\u{7}  "#))
    }
}
