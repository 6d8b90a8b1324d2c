// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
@testable import PracticeDocuments
import PracticeEngine

@Suite struct TimecodeTests {
    @Test(arguments: [("83.5", 83.5), ("1:23.5", 83.5), ("1:02:03.25", 3723.25), ("0", 0), ("0:05", 5), ("12", 12), ("90:00", 5400)])
    func parsesTheThreeForms(text: String, seconds: Double) {
        #expect(Timecode.parse(text) == seconds)
    }

    @Test(arguments: ["", "abc", "-3", "1:60", "1:2:3:4", "1::2", ".5", "5.", "1:75.0", "1:60:00", "nan", "inf", "1e3", "+5", "٣"])
    func rejectsEverythingElse(text: String) {
        #expect(Timecode.parse(text) == nil)
    }

    @Test func formatsForPeople() {
        #expect(Timecode.format(83.56) == "1:23.5")
        #expect(Timecode.format(3723.25, decimals: 3) == "1:02:03.250")
        #expect(Timecode.format(5, decimals: 0) == "0:05")
        #expect(Timecode.format(2 + 0.01, decimals: 3) == "0:02.010")   // 2.0099999… in binary
    }
}
