// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeEngine
import PracticeDocuments
import PracticeControl

/// The one timeline map: a render's WAV cue points sit where their markers' audio is, whatever
/// the rehearsal puts between the passes.
@Suite struct TimelineTests {
    let dir = ScratchDirectory("timeline")

    /// A rehearsal render (two clicks before every pass, 0.5 s gaps, a 0.2 s pre-roll, a trainer
    /// from 0.8× to 1.0×) writes a cue point for each marker in each pass, and at each one the
    /// marker's own sound (a 1 ms burst in the source) is found in the output: to the frame at
    /// 1.0×, within the stretcher's splice at 0.8× and 0.9×. A loop saved between two markers
    /// becomes one region per pass. (Laid back to back, as renders did before, the second pass's
    /// cues were 1.5 s early.)
    @Test func rehearsalCuesSitOnTheirMarkersAudio() throws {
        let marks = [66_150, 88_200, 114_660]   // 1.5 s, 2.0 s, 2.6 s
        let path = dir.file("marked.wav")
        try Signals.write(LoopDriftTests.markedSource(seconds: 4, markersAt: marks), to: path, format: .float)
        let track = try Track.open(path).track
        let (_, loaded) = try SidecarStore.update(for: track) { (s: inout Sidecar) throws(PracticeError) in
            for (k, f) in marks.enumerated() { try s.addMarker(name: "M\(k + 1)", time: Double(f) / 44_100, duration: 4) }
            try s.addLoop(name: "verse", from: "M1", to: "M3", duration: 4)
        }
        var job = RenderJob(input: path, output: dir.file("drill.wav"))
        job.sampleFormat = .float
        job.loop = LoopRange(start: 1.4, end: 2.8, passes: 3,
                             rehearsal: Rehearsal(gap: 0.5, countIn: 2, countInEvery: true, bpm: 120, preRoll: 0.2,
                                                  trainer: Trainer(from: 0.8, to: 1.0, step: 0.1)))
        job.cues = loaded.sidecar.interchangeEntries(for: .wav)
        _ = try Renderer.render(job)

        let cues = try Interchange.read(Data(contentsOf: URL(fileURLWithPath: job.output)), format: .wav).entries
        let points = cues.filter { $0.end == nil }, regions = cues.filter { $0.end != nil }
        #expect(points.map(\.name) == Array(repeating: ["M1", "M2", "M3"], count: 3).flatMap { $0 })
        let left = Signals.channel(try Signals.read(job.output).samples, 0, of: 2)
        for (k, cue) in points.enumerated() {
            let at = Int((cue.start * 44_100).rounded())
            let found = LoopDriftTests.locate(left, around: at, reach: 4_000)
            let pass = k / 3, rate = [0.8, 0.9, 1.0][pass]
            #expect(found.match > 0.5, "\(cue.name) of pass \(pass + 1): no burst near \(at)")
            #expect(abs(found.frame - at) <= (rate == 1 ? 0 : 300),
                    "\(cue.name) of pass \(pass + 1) at \(rate)×: cue at \(at), its audio at \(found.frame)")
        }
        #expect(regions.count == 3 && regions.allSatisfy { $0.name == "verse" })
        for (k, r) in regions.enumerated() {
            #expect(abs(r.start - points[3 * k].start) < 1e-6 && abs(r.end! - points[3 * k + 2].start) < 1e-6,
                    "the loop runs from M1 to M3 of pass \(k + 1)")
        }
    }
}
