#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Exec -> the first sample handed to the device: the launch's own part, without the sound
server's and the monitor's (which the launch bench's "launch -> audible" adds, with their spread).

Each BINARY is launched as the launch bench launches practice (`play launch.wav --rate 0.8
--device pulse`, PRACTICE_ARGS added) on bench/realtime/run.py's rig, a private PulseAudio with a
null sink; perf records the exec (sched:sched_process_exec) and a uprobe on libasound's
snd_pcm_writei, and the figure is the first write's time minus the exec's. The binaries are
launched in turn, N rounds after one warm-up launch each; medians and ranges per binary.

    bench/realtime/first-write.py [-n 40] [--track FILE] BINARY [BINARY...]

--track plays FILE instead of launch.wav, such as a dancer's .m4a or .mp4 (read through FFmpeg).
Each launch plays it whole: give a short one (`ffmpeg -t 1`).

Needs root (uprobes), perf (linux-perf), pulseaudio, pactl, python3 with numpy.
"""
import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('realtime', os.path.join(here, 'run.py'))
rt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rt)

PROBE = 'probe_libasound:first_write'


def libasound():
    """libasound.so.2's path, as the loader finds it."""
    for line in subprocess.run(['ldconfig', '-p'], capture_output=True, text=True).stdout.splitlines():
        if 'libasound.so.2 ' in line and 'x86-64' in line:
            return line.split()[-1]
    sys.exit('first-write.py: libasound.so.2 not found (apt-get install libasound2)')


def first_write_ms(player, track, work):
    """One launch: ms from the exec to the first snd_pcm_writei, or None if perf saw none."""
    data = os.path.join(work, 'perf.data')
    run = subprocess.run(['perf', 'record', '-q', '-o', data, '-e', 'sched:sched_process_exec', '-e', PROBE, '--']
                         + player.command(track, 0.8), env=player.env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
    if run.returncode != 0:
        raise RuntimeError('%s failed (status %d): %s' % (player.binary, run.returncode, run.stderr.decode(errors='replace')[-500:]))
    script = subprocess.run(['perf', 'script', '-i', data, '-F', 'time,event'], capture_output=True, text=True).stdout
    exec_at = None
    for line in script.splitlines():
        fields = line.split()
        if not fields:
            continue
        t = float(fields[0].rstrip(':'))
        if exec_at is None and 'sched_process_exec' in line:
            exec_at = t
        elif exec_at is not None and 'first_write' in line:
            return (t - exec_at) * 1000
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-n', '--rounds', type=int, default=40, help='launches of each binary, in turn (default 40)')
    ap.add_argument('--track', help='play FILE instead of launch.wav (1 s of a chord, WAV)')
    ap.add_argument('binaries', nargs='+', metavar='BINARY')
    args = ap.parse_args()
    if args.track and not os.path.isfile(args.track):
        ap.error('--track: %s: no such file' % args.track)
    if args.rounds < 1:
        ap.error('-n: give 1 or more launches')
    for b in args.binaries:
        if not os.access(b, os.X_OK):
            ap.error('%s: no such program' % b)
    if os.geteuid() != 0:
        sys.exit('first-write.py: uprobes need root')
    for tool in ('perf', 'pulseaudio', 'pactl'):
        if shutil.which(tool) is None:
            sys.exit('first-write.py: needs %s (apt-get install linux-perf pulseaudio pulseaudio-utils)' % tool)

    work = tempfile.mkdtemp(prefix='practice-first-write-')
    subprocess.run(['perf', 'probe', '-q', '-d', PROBE], stderr=subprocess.DEVNULL)
    rt.run_quiet(['perf', 'probe', '-q', '-x', libasound(), 'first_write=snd_pcm_writei'])
    try:
        tracks = rt.make_launch_tracks(os.path.join(work, 'tracks'))
        if args.track:
            tracks['launch'] = os.path.abspath(args.track)
        rig = rt.Rig(work, 5)
        # Each binary keeps its journal and resume points in folders of its own: what one
        # leaves there (or deletes) is not another's to find.
        players = [rt.Practice(os.path.abspath(b), dict(rig.env, XDG_DATA_HOME=os.path.join(work, 'data%d' % i),
                                                         XDG_STATE_HOME=os.path.join(work, 'state%d' % i)), work, name='binary%d' % i)
                   for i, b in enumerate(args.binaries)]
        for p in players:   # the page cache, the server's first stream
            first_write_ms(p, tracks['launch'], work)
        times = {p.name: [] for p in players}
        for r in range(args.rounds):
            for k in range(len(players)):
                p = players[(r + k) % len(players)]
                ms = first_write_ms(p, tracks['launch'], work)
                if ms is not None:
                    times[p.name].append(ms)
        print('exec -> first snd_pcm_writei, ALSA pulse PCM on a private null sink, %s; %d launches each, in turn (%s)'
              % (os.path.basename(tracks['launch']), args.rounds, time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())))
        for p in players:
            v = times[p.name]
            if v:
                print('%-50s median %6.2f ms  (%d: %.2f..%.2f)' % (p.binary, statistics.median(v), len(v), min(v), max(v)))
            else:
                print('%-50s no write seen' % p.binary)
    finally:
        subprocess.run(['perf', 'probe', '-q', '-d', PROBE], stderr=subprocess.DEVNULL)
        rt.cleanup()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
