#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""How late run.py's rate analysis reads a change of rate that happens at a known frame.

Synthesises what a player that switches at once would send to the sink: chirp.wav (run.py's
sawtooth chirp) heard at 0.8x, pitch kept, then at the command's frame the source itself at
1.0x from a position a few ms back (the jump a restarted stream makes; run.py measures about
-3 ms for practice), and runs run.py's own analysis (analyze_rate) on it. What it reports is the
analysis's offset: the part of "rate 0.8 -> 1.0 audible" that is not the player's.

    python3 bench/realtime/rate-offset.py            # 40 cuts, jumps of -6..0 ms
    python3 bench/realtime/rate-offset.py -n 200 --jump-ms -1 1
"""
import argparse, importlib.util, os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('realtime', os.path.join(here, 'run.py'))
rt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rt)
SR, F0, K, P = rt.SR, rt.CHIRP_F0, rt.CHIRP_K, rt.CHIRP_P


def heard(q0, cut, jump, seconds):
    """The chirp's source position q over time: 0.8 s per s up to the cut, then 1.0 from `jump` s
    away; before the cut a pitch-kept stretch (the phase follows the heard frequency), after it
    the source itself (a player that no longer stretches), with the phase step a restart makes."""
    n = np.arange(int(seconds * SR))
    q = np.where(n < cut, q0 + 0.8 * n / SR, q0 + 0.8 * cut / SR + jump + (n - cut) / SR)
    u = np.mod(q, P)
    stretched = 2 * np.pi * np.cumsum(F0 + K * u) / SR
    source = 2 * np.pi * (F0 * u + K * u * u / 2)
    return 0.4 * np.sin(np.where(n < cut, stretched, source))


class Capture:
    """What analyze_rate reads of a capture: frames by time, two channels."""
    def __init__(self, x):
        self.x = x
    def frame_at(self, t):
        return int(round(t * SR))
    def frames(self, a, b):
        return np.stack([self.x[max(a, 0):b]] * 2, axis=1)
    def time_of_frame(self, n):
        return np.asarray(n) / SR


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('-n', type=int, default=40, help='cuts (default 40)')
    ap.add_argument('--jump-ms', type=float, nargs=2, default=[-6.0, 0.0], metavar=('LOW', 'HIGH'),
                    help='the position jump at the cut, drawn evenly from LOW..HIGH ms (default -6 0)')
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    if args.n < 1:
        ap.error('-n: at least one cut')
    if args.jump_ms[0] > args.jump_ms[1]:
        ap.error('--jump-ms: LOW is above HIGH')
    rng = np.random.default_rng(args.seed)
    cut_t, hold = 0.8, 1.3
    read = []
    for _ in range(args.n):
        x = heard(rng.uniform(0, P), int(cut_t * SR), rng.uniform(*args.jump_ms) / 1000, cut_t + hold + 0.5)
        r = rt.analyze_rate(Capture(x), dict(kind='0.8->1.0', t=cut_t, until=cut_t + hold), 0.001)
        if r.get('latency') is not None:
            read.append(1000 * r['latency'])
    read = np.array(read)
    print('rate analysis, a switch at the command\'s frame read after it: median %.2f ms '
          '(p10 %.2f, p90 %.2f, %.2f..%.2f; %d of %d cuts read; jumps %g..%g ms)'
          % (np.median(read), np.percentile(read, 10), np.percentile(read, 90), read.min(), read.max(),
             len(read), args.n, *args.jump_ms))


if __name__ == '__main__':
    main()
