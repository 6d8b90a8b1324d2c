#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sweep SoundTouch settings with st_harness and summarise them across tempos.

    sweep.py grid   OUT.jsonl [--tempo 0.8]        # full grid at one tempo
    sweep.py check  OUT.jsonl SEQ,SEEK,OVL,QUICK ... [--tempos 0.5,0.6,...]
    sweep.py report OUT.jsonl [more.jsonl ...]      # averages per setting

Needs the inputs and the harness that run.sh makes (OUT/in, OUT/st_harness;
OUT defaults to /tmp/practice-quality); the extra sines (2503 Hz, 431 Hz)
are made here.  Each line of OUT.jsonl holds, for one setting and tempo:
THD+N [median, p90, power mean] for 1000/997/2503/431 Hz, the click figures
and the harness speed (mono click track, x real time).

"robust" in the report is the power-mean THD+N averaged over 997, 2503 and
431 Hz: unlike 1 kHz (exactly 44.1 samples per period) these have no short
exact lag, so a setting cannot score by luck on them.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
from multiprocessing import Pool

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze as A  # noqa: E402

OUT = os.environ.get('OUT', '/tmp/practice-quality')
SINES = {'sine': 1000, 'sine997': 997, 'sine2503': 2503, 'sine431': 431}
GRID = dict(seq=[0, 20, 30, 40, 50, 60, 70, 80, 90, 100, 120], seek=[0, 10, 15, 20, 25, 30, 40],
            ovl=[4, 8, 12, 16, 20, 24], quick=[0, 1])
TEMPOS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.1, 1.25, 1.5]


def ensure_inputs():
    for name, f in SINES.items():
        p = os.path.join(OUT, 'in', name + '.wav')
        if not os.path.exists(p):
            subprocess.check_call(['sox', '-n', '-r', '44100', '-c', '1', '-b', '24', p,
                                   'synth', '10', 'sine', str(f), 'gain', '-6'])
    for p in (os.path.join(OUT, 'in', 'click.wav'), os.path.join(OUT, 'st_harness')):
        if not os.path.exists(p):
            sys.exit('%s missing: run bench/quality/run.sh first' % p)


def run_one(job):
    (seq, seek, ovl, quick), tempo = job
    res = {'cfg': [seq, seek, ovl, quick], 'tempo': tempo}
    tag = '%d_%d_%d_%d_%g_%d' % (seq, seek, ovl, quick, tempo, os.getpid())
    for kind in list(SINES) + ['click']:
        out = os.path.join(OUT, 'sweep_%s_%s.wav' % (kind, tag))
        p = subprocess.run([os.path.join(OUT, 'st_harness'), os.path.join(OUT, 'in', kind + '.wav'), out,
                            str(tempo), str(seq), str(seek), str(ovl), str(quick), '1'],
                           capture_output=True, text=True, check=True)
        x, rate = A.read_wav(out)
        os.remove(out)
        if kind == 'click':
            r = A.click_smear(x, rate, tempo, 30.0)
            res.update(smear=r[0], smear_mean=r[1], doubled=r[2], lost=r[3], clicks=r[4],
                       speed_mono=float(p.stdout.split()[3]))
        else:
            m, p90, _, pm = A.thdn(x, rate)
            res[kind] = [m, p90, pm]
    return res


def run_jobs(jobs, path):
    ensure_inputs()
    with Pool(os.cpu_count() or 1) as pool, open(path, 'w') as f:
        for r in pool.imap_unordered(run_one, jobs):
            f.write(json.dumps(r) + '\n')
            f.flush()


def report(paths):
    rows = [json.loads(l) for p in paths for l in open(p)]
    cfgs = sorted({tuple(r['cfg']) for r in rows})

    def robust(r):
        return np.mean([r[k][2] for k in ('sine997', 'sine2503', 'sine431')])

    print('%-18s %5s | %8s %8s %8s | %8s %8s %6s | %8s %8s %6s | %7s' % (
        'seq,seek,ovl,quick', 'n', '1k@0.8', '1k slow', 'rob slow', 'smr@0.8', 'smr slow', 'dbl sl',
        '1k fast', 'smr fast', 'lost f', 'speed'))
    for c in cfgs:
        rs = [r for r in rows if tuple(r['cfg']) == c]
        slow = [r for r in rs if r['tempo'] < 1]
        fast = [r for r in rs if r['tempo'] > 1]
        at = [r for r in rs if abs(r['tempo'] - 0.8) < 1e-9]

        def m(sel, f):
            return '%8.1f' % np.mean([f(r) for r in sel]) if sel else '%8s' % '-'
        print('%-18s %5d | %s %s %s | %s %s %6s | %s %s %6s | %7s' % (
            ','.join(map(str, c)), len(rs), m(at, lambda r: r['sine'][0]), m(slow, lambda r: r['sine'][0]),
            m(slow, robust), m(at, lambda r: r['smear_mean']), m(slow, lambda r: r['smear_mean']),
            m(slow, lambda r: r['doubled']).strip(), m(fast, lambda r: r['sine'][0]),
            m(fast, lambda r: r['smear_mean']), m(fast, lambda r: r['lost']).strip(),
            m(at, lambda r: r['speed_mono']).strip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument('mode', choices=['grid', 'check', 'report'])
    ap.add_argument('out')
    ap.add_argument('cfgs', nargs='*', help='SEQ,SEEK,OVL,QUICK (check mode); files (report mode)')
    ap.add_argument('--tempo', type=float, default=0.8)
    ap.add_argument('--tempos', default=','.join(map(str, TEMPOS)))
    a = ap.parse_args()
    if a.mode == 'grid':
        cfgs = list(itertools.product(GRID['seq'], GRID['seek'], GRID['ovl'], GRID['quick']))
        run_jobs([(c, a.tempo) for c in cfgs], a.out)
    elif a.mode == 'check':
        cfgs = [tuple(int(v) for v in c.split(',')) for c in a.cfgs]
        tempos = [float(t) for t in a.tempos.split(',')]
        run_jobs([(c, t) for c in cfgs for t in tempos], a.out)
    else:
        report([a.out] + a.cfgs)


if __name__ == '__main__':
    main()
