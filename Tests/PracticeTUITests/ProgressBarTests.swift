// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import PracticeTUI
import PracticeEngine
import PracticeDocuments
import PracticeControl

/// The download bars of `practice open`.
@Suite struct ProgressBarTests {
    @Test func aDownloadShowsItsNameBarPercentAndBytes() {
        #expect(ProgressBar.render(name: "warm up.wav", bytes: 176_422, of: 352_844, width: 60)
                == "warm up.wav [###########------------]  50%  176 kB of 353 kB")
        #expect(ProgressBar.render(name: "warm up.wav", bytes: 176_422, of: 352_844, width: 60).count == 60)
        #expect(ProgressBar.render(name: "cover.png", bytes: 264, of: 264, width: 40) == "cover.png [#######] 100%  264 B of 264 B")
        // Without a size from the server: the bytes so far.
        #expect(ProgressBar.render(name: "tone.wav", bytes: 1_234_567, of: nil, width: 60) == "tone.wav  1.2 MB")
        // A long name gives way to the bar.
        let long = ProgressBar.render(name: String(repeating: "x", count: 50) + ".wav", bytes: 1, of: 2, width: 60)
        #expect(long.hasPrefix(String(repeating: "x", count: 19) + "… [") && long.hasSuffix("]  50%  1 B of 2 B"))
    }

    @Test(arguments: [(0, "0 B"), (999, "999 B"), (1_000, "1.0 kB"), (9_949, "9.9 kB"), (9_950, "10 kB"), (882_044, "882 kB"),
                      (999_499, "999 kB"), (999_500, "1.0 MB"), (1_764_044, "1.8 MB"), (24_000_000, "24 MB"), (3_500_000_000, "3.5 GB")]
                  as [(Int64, String)])
    func sizesInDecimalUnits(bytes: Int64, text: String) {
        #expect(ProgressBar.size(bytes) == text)
    }
}
