// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// Measurements on real audio.
public enum Analysis {
    /// The first two formants (F1, F2, Hz) of speech `x`: for each 25 ms frame (10 ms apart) loud
    /// enough to be voiced, pre-emphasis, a Hamming window, LPC of order 2 + sampleRate/1000 by
    /// autocorrelation (Levinson–Durbin), and the first two peaks above 200 Hz of the envelope
    /// 1/|A| on a 2,048-point grid; the medians over the frames.
    public static func formants(_ x: [Double], sampleRate: Int) -> (f1: Double, f2: Double) {
        let n = sampleRate / 40, hop = sampleRate / 100, order = 2 + sampleRate / 1000, grid = 2_048
        let loudest = x.map(abs).max() ?? 0
        var f1s: [Double] = [], f2s: [Double] = []
        var start = 0
        while start + n <= x.count {
            defer { start += hop }
            let frame = Array(x[start..<(start + n)])
            guard frame.map(abs).max() ?? 0 > loudest * 0.3 else { continue }
            var w = [Double](repeating: 0, count: n)
            for i in 0..<n {
                let emphasised = frame[i] - (i > 0 ? 0.97 * frame[i - 1] : 0)
                w[i] = emphasised * (0.54 - 0.46 * cos(2 * Double.pi * Double(i) / Double(n - 1)))
            }
            var r = [Double](repeating: 0, count: order + 1)
            for k in 0...order { for i in k..<n { r[k] += w[i] * w[i - k] } }
            guard r[0] > 0 else { continue }
            // Levinson–Durbin: a[0] = 1, A(z) = Σ a[k] z^-k.
            var a = [Double](repeating: 0, count: order + 1)
            a[0] = 1
            var e = r[0]
            for i in 1...order {
                var acc = r[i]
                for j in 1..<i { acc += a[j] * r[i - j] }
                let k = -acc / e
                var next = a
                for j in 1..<i { next[j] = a[j] + k * a[i - j] }
                next[i] = k
                a = next
                e *= 1 - k * k
                if e <= 0 { break }
            }
            var envelope = [Double](repeating: 0, count: grid)
            for g in 0..<grid {
                let w0 = Double.pi * Double(g) / Double(grid)
                var re = 0.0, im = 0.0
                for k in 0...order { re += a[k] * cos(w0 * Double(k)); im -= a[k] * sin(w0 * Double(k)) }
                envelope[g] = 1 / max(re * re + im * im, 1e-300)
            }
            let hz = { (g: Int) in Double(g) * Double(sampleRate) / 2 / Double(grid) }
            let peaks = (1..<(grid - 1)).filter { envelope[$0] > envelope[$0 - 1] && envelope[$0] >= envelope[$0 + 1] && hz($0) > 200 }
            guard peaks.count >= 2 else { continue }
            f1s.append(hz(peaks[0]))
            f2s.append(hz(peaks[1]))
        }
        let median = { (v: [Double]) in v.isEmpty ? 0 : v.sorted()[v.count / 2] }
        return (median(f1s), median(f2s))
    }

    /// The dominant frequency of `x` in Hz: Blackman-Harris window, FFT, and a parabola through the
    /// log magnitudes of the peak bin and its neighbours. `x` is cut to the largest power of two.
    public static func dominantFrequency(_ x: [Double], sampleRate: Int) -> Double {
        var n = 1
        while n * 2 <= x.count { n *= 2 }
        precondition(n >= 1024, "need at least 1024 samples")
        let offset = (x.count - n) / 2
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        let a0 = 0.35875, a1 = 0.48829, a2 = 0.14128, a3 = 0.01168
        for i in 0..<n {
            let t = 2 * Double.pi * Double(i) / Double(n - 1)
            re[i] = x[offset + i] * (a0 - a1 * cos(t) + a2 * cos(2 * t) - a3 * cos(3 * t))
        }
        fft(&re, &im)
        var best = 2
        var mags = [Double](repeating: 0, count: n / 2)
        for k in 1..<(n / 2) {
            mags[k] = re[k] * re[k] + im[k] * im[k]
            if k > 2 && mags[k] > mags[best] { best = k }
        }
        let a = log(mags[best - 1] + 1e-300), b = log(mags[best] + 1e-300), c = log(mags[best + 1] + 1e-300)
        let delta = 0.5 * (a - c) / (a - 2 * b + c)
        return (Double(best) + delta) * Double(sampleRate) / Double(n)
    }

    /// In-place iterative radix-2 FFT.
    public static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j ^= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let ang = -2 * Double.pi / Double(len)
            let wr = cos(ang), wi = sin(ang)
            var i = 0
            while i < n {
                var cr = 1.0, ci = 0.0
                for k in 0..<(len / 2) {
                    let ur = re[i + k], ui = im[i + k]
                    let vr = re[i + k + len / 2] * cr - im[i + k + len / 2] * ci
                    let vi = re[i + k + len / 2] * ci + im[i + k + len / 2] * cr
                    re[i + k] = ur + vr; im[i + k] = ui + vi
                    re[i + k + len / 2] = ur - vr; im[i + k + len / 2] = ui - vi
                    let ncr = cr * wr - ci * wi
                    ci = cr * wi + ci * wr
                    cr = ncr
                }
                i += len
            }
            len <<= 1
        }
    }

    /// THD+N of a sine in dB: least-squares fit of a sine at `frequency` (refined), subtract, and
    /// compare the residual's power with the sine's.
    public static func thdN(_ x: [Double], frequency f0: Double, sampleRate: Int) -> Double {
        func fit(_ f: Double) -> (residual: Double, signal: Double) {
            let w = 2 * Double.pi * f / Double(sampleRate)
            var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0, s1 = 0.0, c1 = 0.0, x1 = 0.0
            let n = Double(x.count)
            for (i, v) in x.enumerated() {
                let s = sin(w * Double(i)), c = cos(w * Double(i))
                ss += s * s; cc += c * c; sc += s * c; xs += v * s; xc += v * c; s1 += s; c1 += c; x1 += v
            }
            // Solve the 3×3 normal equations for [a (sin), b (cos), d (offset)].
            let m = [[ss, sc, s1], [sc, cc, c1], [s1, c1, n]]
            let r = [xs, xc, x1]
            let sol = solve3(m, r)
            var res = 0.0, sig = 0.0
            for (i, v) in x.enumerated() {
                let model = sol[0] * sin(w * Double(i)) + sol[1] * cos(w * Double(i))
                let e = v - model - sol[2]
                res += e * e
                sig += model * model
            }
            return (res, sig)
        }
        var best = f0, bestFit = fit(f0)
        var step = 0.5
        for _ in 0..<24 {
            for candidate in [best - step, best + step] {
                let r = fit(candidate)
                if r.residual < bestFit.residual { best = candidate; bestFit = r }
            }
            step /= 2
        }
        return 10 * log10(bestFit.residual / bestFit.signal)
    }

    private static func solve3(_ m: [[Double]], _ r: [Double]) -> [Double] {
        var a = m, b = r
        for i in 0..<3 {
            let p = (i..<3).max { abs(a[$0][i]) < abs(a[$1][i]) }!
            a.swapAt(i, p); b.swapAt(i, p)
            for k in (i + 1)..<3 {
                let f = a[k][i] / a[i][i]
                for j in i..<3 { a[k][j] -= f * a[i][j] }
                b[k] -= f * b[i]
            }
        }
        var x = [0.0, 0.0, 0.0]
        for i in stride(from: 2, through: 0, by: -1) {
            var s = b[i]
            for j in (i + 1)..<3 { s -= a[i][j] * x[j] }
            x[i] = s / a[i][i]
        }
        return x
    }

    /// The longest run of frames quieter than −40 dB (|x| < 0.01) in `range`, and where it starts.
    /// A sine at 0.5 of 440 Hz or more crosses zero in steps of 0.03 or more, so a zero crossing is
    /// one frame; a gap (an underrun, a missing seam) is a run of many.
    public static func longestQuietRun(_ x: [Double], _ range: Range<Int>) -> (frames: Int, at: Int) {
        var run = 0, longest = (0, range.lowerBound)
        for n in range {
            run = abs(x[n]) < 0.01 ? run + 1 : 0
            if run > longest.0 { longest = (run, n - run + 1) }
        }
        return longest
    }

    /// The first index where |x| exceeds `threshold`.
    public static func onset(_ x: [Double], threshold: Double, from start: Int = 0) -> Int? {
        (start..<x.count).first { abs(x[$0]) > threshold }
    }

    /// Lag (in samples) of `needle` within `haystack` that maximises their correlation (the first
    /// such lag). Eight lanes at a time: a copy's markers (CopiesTests) correlate half a second at
    /// ten thousand lags each, and one sum in a loop is bound by its additions' latency.
    public static func bestLag(of needle: [Double], in haystack: [Double], range: ClosedRange<Int>) -> Int {
        var best = range.lowerBound, bestScore = -Double.infinity
        let n = needle.count, wide = n - n % 8
        needle.withUnsafeBytes { a in
            haystack.withUnsafeBytes { h in
                let stride = MemoryLayout<Double>.stride
                for lag in range where lag >= 0 && lag + n <= haystack.count {
                    var lanes = SIMD8<Double>()
                    var i = 0
                    while i < wide {
                        lanes += a.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Double>.self)
                            * h.loadUnaligned(fromByteOffset: (lag + i) * stride, as: SIMD8<Double>.self)
                        i += 8
                    }
                    var s = lanes.sum()
                    while i < n {
                        s += a.load(fromByteOffset: i * stride, as: Double.self) * h.load(fromByteOffset: (lag + i) * stride, as: Double.self)
                        i += 1
                    }
                    if s > bestScore { bestScore = s; best = lag }
                }
            }
        }
        return best
    }
}
