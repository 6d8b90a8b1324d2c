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

    /// The digits are written one by one: the same text as the interpolated formatting they
    /// replaced (kept here as the reference), for times across every field's width and every
    /// number of decimals.
    @Test func formatsAsTheInterpolationDid() {
        func reference(_ seconds: Double, decimals: Int) -> String {
            guard seconds.isFinite, seconds < 360_000_000 else { return seconds.isNaN ? "?" : "≥ 100000:00:00" }
            let s = max(0, seconds)
            let scale = decimals == 0 ? 1.0 : decimals == 1 ? 10.0 : decimals == 2 ? 100.0 : 1000.0
            let units = Int((s * scale + 1e-6).rounded(.down))
            let whole = units / Int(scale), fraction = units % Int(scale)
            let h = whole / 3600, m = (whole / 60) % 60, sec = whole % 60
            func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
            var out = h > 0 ? "\(h):\(pad(m)):\(pad(sec))" : "\(m):\(pad(sec))"
            if decimals > 0 {
                var f = String(fraction)
                while f.count < decimals { f = "0" + f }
                out += ".\(f)"
            }
            return out
        }
        var generator = SystemRandomNumberGenerator()
        var times: [Double] = [0, 0.0004, 0.05, 0.999, 1, 9.999, 10, 59.9999, 60, 599.5, 600, 3599.999, 3600, 36_000, 359_999_999.999,
                               360_000_000, -1, -0.0, .nan, .infinity, -.infinity, 2.01, 83.56, 3723.25]
        for _ in 0..<20_000 { times.append(Double.random(in: 0..<400_000, using: &generator)) }
        for _ in 0..<2_000 { times.append(Double.random(in: 0..<400_000_000, using: &generator)) }
        var wrong: [String] = []
        for t in times {
            for decimals in 0...5 where Timecode.format(t, decimals: decimals) != reference(t, decimals: decimals) {
                wrong.append("\(t) \(decimals): \(Timecode.format(t, decimals: decimals)) vs \(reference(t, decimals: decimals))")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }
}
