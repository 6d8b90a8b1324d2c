// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeAudio
import PracticeDocuments

/// Where a preview of a song plays from: the heart of it. The first named loop (by time) when
/// the song has one (that is the part someone practises); else the loudest stretch near the
/// middle, found in the decoded audio.
public struct PreviewSpot: Sendable, Equatable {
    /// Seconds a preview lasts.
    public static let length = 15.0
    /// Seconds of fade in and out.
    public static let fade = 0.75

    /// A player's options for this preview: its range, faded in and out.
    public func playerOptions(device: String) -> PlayerOptions {
        var options = PlayerOptions()
        options.device = device
        (options.from, options.to) = (start, end)
        options.edgeFade = Self.fade
        return options
    }

    public var start: Double
    public var end: Double
    /// Why there: `the loop 'chorus'`, `the loudest part near the middle`, `the whole track`.
    public var reason: String

    /// The spot in `track`, given its sidecar (lined up with it).
    public static func find(in track: Track, sidecar: Sidecar) throws(PracticeError) -> PreviewSpot {
        let duration = track.duration
        guard duration > length else { return PreviewSpot(start: 0, end: duration, reason: "the whole track") }
        let ends = sidecar.loopEnds
        let named = sidecar.liveLoops.compactMap { l in ends.time(of: l.start).map { (start: $0, name: l.name) } }
        if let first = named.min(by: { $0.start < $1.start }) {
            let from = min(max(first.start, 0), duration - length)
            return PreviewSpot(start: from, end: from + length, reason: "the loop '\(first.name)'")
        }
        let from = try loudest(in: track)
        return PreviewSpot(start: from, end: from + length, reason: "the loudest part near the middle")
    }

    /// The start of the 15 s with the most energy between a quarter and three quarters of the
    /// track (half-second windows of mean square, summed over the stretch), to the half second.
    static func loudest(in track: Track) throws(PracticeError) -> Double {
        let rate = track.info.sampleRate, channels = track.info.channels
        let duration = track.duration
        let lo = duration * 0.25, hi = min(duration * 0.75, duration - length)
        guard hi > lo else { return max((duration - length) / 2, 0) }
        let window = rate / 2
        do {
            let file = try SoundFile(path: track.path, audioStream: track.audioStream)
            try file.seek(toFrame: Int(lo * Double(rate)))
            // Energy of each half second from `lo` to `hi + length`.
            let count = Int(((hi + length - lo) * 2).rounded(.up))
            var energy: [Double] = []
            energy.reserveCapacity(count)
            var buffer = [Float](repeating: 0, count: window * channels)
            while energy.count < count {
                let n = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: window) }
                if n <= 0 { break }
                var sum = 0.0
                for k in 0..<(n * channels) { let v = Double(buffer[k]); sum += v * v }
                energy.append(sum / Double(n * channels))
            }
            let span = Int(length * 2)
            guard energy.count >= span else { return lo }
            var total = energy[0..<span].reduce(0, +), best = total, bestAt = 0
            for k in 1...(energy.count - span) {
                total += energy[k + span - 1] - energy[k - 1]
                if total > best { best = total; bestAt = k }
            }
            return min(lo + Double(bestAt) / 2, hi)
        } catch {
            throw PracticeError(.dataError, "\(track.path): cannot decode: \(error.message)")
        }
    }
}
