#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A seek in a track's last tenth of a second: command -> the new place audible, for `practice
play` and mpv (scaletempo2) through one private PulseAudio null sink, in one run.

The track: 2 s, tone B (1250 Hz) then tone A (440 Hz) from 1 s. Each player starts at 1 s (tone A,
one second left), and once tone A is heard on the sink's monitor it is sent a seek to 0.2 s (tone
B) `--at` seconds later (by default 0.88, 0.92 and 0.96: while the device plays out the track's
last frames). The latency is the time from the command until tone B is audible, found in the
capture as bench/realtime/run.py's seek test finds it. A seek that never became audible (the
player ended first) is counted as lost.

    bench/realtime/end.py [--binary .build/release/practice] [--reps 3] [--at 0.88,0.92,0.96]

Needs pulseaudio, pactl, parec, mpv, python3 with numpy (bench/realtime/run.py's rig).
"""
import argparse
import importlib.util
import os
import statistics
import tempfile
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('realtime', os.path.join(here, 'run.py'))
rt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rt)


class Mpv(rt.Mpv):
    """mpv as run.py runs it, kept open at the end (else it has quit before a late seek lands)."""

    def command(self, track, rate, start=None, control=False):
        a = super().command(track, rate, start, control)
        return a[:-1] + ['--keep-open=yes', a[-1]] if control else a


def seconds_list(text):
    """`--at`: seconds, comma-separated, each in 0..1 (the track's last second)."""
    try:
        values = [float(a) for a in text.split(',')]
    except ValueError:
        raise argparse.ArgumentTypeError('%r: give seconds separated by commas, as 0.88,0.92' % text)
    if not values or any(not 0 <= v <= 1 for v in values):
        raise argparse.ArgumentTypeError('%r: each must lie between 0 and 1 (the last second)' % text)
    return values


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--binary', default=os.path.join(here, '..', '..', '.build', 'release', 'practice'))
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--at', type=seconds_list, default=[0.88, 0.92, 0.96], help='seconds after tone A is first heard (default 0.88,0.92,0.96)')
    args = ap.parse_args()
    ats = args.at
    if not os.access(args.binary, os.X_OK):
        ap.error('%s: no such program; build it (make release) or name one with --binary' % args.binary)
    work = tempfile.mkdtemp(prefix='practice-end-')
    sr = rt.SR
    t = np.arange(2 * sr) / sr
    x = np.where(t < 1.0, 0.4 * np.sin(2 * np.pi * rt.TONE_B * t), 0.4 * np.sin(2 * np.pi * rt.TONE_A * t))
    track = os.path.join(work, 'end.wav')
    rt.write_wav(track, np.column_stack([x, x]), work)
    w = 0.1 * np.sin(2 * np.pi * 100 * t[:int(0.3 * sr)])
    warm = os.path.join(work, 'warm.wav')
    rt.write_wav(warm, np.column_stack([w, w]), work)

    rig = rt.Rig(work, 5)
    rig.start_recording()
    players = [rt.Practice(os.path.abspath(args.binary), rig.env, work), Mpv(rig.env, work, 'pulse')]
    for p in players:
        rig.warm_up(p, warm)
    events = []
    for rep in range(args.reps):
        for at in ats:
            for p in (players if rep % 2 == 0 else players[::-1]):
                rig.wait_silence(0.3)
                t0 = time.monotonic()
                p.launch(track, 1.0, start=1.0, control=True)
                deadline = t0 + 5
                while not rig.loud_since(t0) and time.monotonic() < deadline:
                    time.sleep(0.002)
                time.sleep(at)
                try:
                    sent = p.seek(0.2)
                except OSError:   # gone: the seek is lost
                    sent = None
                time.sleep(0.6)
                p.quit()
                if sent is None:
                    events.append(dict(player=p.name, at=at, lost=True))
                else:
                    events.append(dict(player=p.name, at=at, t=sent, to=0.2, old=rt.TONE_A, new=rt.TONE_B, until=sent + 0.55))
    rig.stop_recording()
    cap = rt.Capture(rig)
    found = [(e['player'], e['at'], None if e.get('lost') else rt.analyze_seek(cap, e).get('latency')) for e in events]
    rt.cleanup()

    print('seek in the last tenth of a second -> audible (ms; median of %d, lost: never heard)' % args.reps)
    print('%-8s %14s %14s %8s' % ('at (s)', 'practice', 'mpv', 'ratio'))
    for at in ats:
        med = {}
        for name in ('practice', 'mpv'):
            lat = [l for n, a, l in found if n == name and a == at]
            heard = [l * 1000 for l in lat if l is not None]
            lost = len(lat) - len(heard)
            med[name] = statistics.median(heard) if heard else None
            med[name + ' text'] = ('%.1f' % med[name] if heard else '-') + (' (%d lost)' % lost if lost else '')
        ratio = '%.2f' % (med['practice'] / med['mpv']) if med['practice'] and med['mpv'] else '-'
        print('%-8.2f %14s %14s %8s' % (at, med['practice text'], med['mpv text'], ratio))


if __name__ == '__main__':
    main()
