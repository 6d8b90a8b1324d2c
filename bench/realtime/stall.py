#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stalls: how long a player can be stopped whole before the stop is heard.

A busy or virtual machine now and then runs none of a player's threads for a while; the sound
server plays on from what the player's device holds. Here each player plays a 440 Hz tone at 1.0x
on bench/realtime/run.py's rig (a private PulseAudio null sink, parec on its monitor) and is
stopped with SIGSTOP for STALL ms, then let go, REPS times per length (0.8 s apart, the first
after 1 s of sound). A stop is heard when the monitor then carries a run of silence of 2 ms or
more inside the tone (an underrun is tens of milliseconds of zeros; the tone is below -60 dBFS
for less than a sample at each zero crossing). practice's own count of underruns is printed too.

    bench/realtime/stall.py [--stalls 80,130,170,190,230] [--reps 5] [--against BINARY] [--no-mpv]

Environment: PRACTICE (default .build/release/practice); PRACTICE_ARGS are added to practice's
command line as in run.py. mpv plays through ALSA's pulse PCM, as practice does (--ao=alsa), or
through its own PulseAudio output with --mpv-ao pulse.

Needs pulseaudio, pulseaudio-utils, libasound2-plugins, mpv, python3 with numpy.
"""
import argparse
import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('realtime', os.path.join(here, 'run.py'))
rt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rt)
np = rt.np

GAP_FRAMES = rt.SR // 500   # 2 ms


def gaps(chunks):
    """Runs of 2 ms or more of silence between the first and the last sound of `chunks` (the
    monitor's bytes), on the left channel."""
    x = np.abs(np.frombuffer(b''.join(chunks), dtype='<f4')[0::2])
    loud = np.flatnonzero(x >= rt.SILENCE)
    if len(loud) < 2:
        return None
    quiet = x[loud[0]:loud[-1] + 1] < rt.SILENCE
    # Lengths of the runs of True.
    edges = np.diff(np.concatenate(([0], quiet.astype(np.int8), [0])))
    runs = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
    return int(np.sum(runs >= GAP_FRAMES))


def trial(rig, player, track, stall_ms, reps):
    """Stops `player` REPS times for STALL_MS; (stops heard, practice's underruns or None)."""
    with rig.lock:
        first = len(rig.data)
    player.launch(track, 1.0, control=isinstance(player, rt.Practice))
    deadline = time.monotonic() + 10
    while not rig.loud_since(time.monotonic() - 0.5):
        if time.monotonic() > deadline or player.p.poll() is not None:
            raise RuntimeError('%s was not heard within 10 s' % player.name)
        time.sleep(0.02)
    time.sleep(1.0)
    for _ in range(reps):
        os.kill(player.p.pid, signal.SIGSTOP)
        time.sleep(stall_ms / 1000)
        os.kill(player.p.pid, signal.SIGCONT)
        time.sleep(0.8)
    underruns = None
    if isinstance(player, rt.Practice):
        player._send({'cmd': 'status'})
        deadline = time.monotonic() + 3
        while underruns is None and time.monotonic() < deadline:
            for _, line in reversed(player.events):
                event = json.loads(line)
                if event.get('event') == 'status':
                    underruns = event.get('underruns')
                    break
            time.sleep(0.02)
    time.sleep(0.1)
    with rig.lock:
        chunks = [c for c in rig.data[first:] if c is not None]
    player.quit()
    rig.wait_silence()
    return gaps(chunks), underruns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--stalls', default='80,130,170,190,230', help='stop lengths in ms, comma-separated')
    ap.add_argument('--reps', type=int, default=5, help='stops of each length per player (default 5)')
    ap.add_argument('--against', help='another practice binary, measured in the same run')
    ap.add_argument('--no-mpv', action='store_true', help='leave mpv out')
    ap.add_argument('--mpv-ao', choices=['alsa', 'pulse'], default='alsa')
    a = ap.parse_args()
    try:
        stalls = [int(s) for s in a.stalls.split(',')]
    except ValueError:
        ap.error('--stalls %s: give lengths in whole milliseconds, comma-separated (80,130,170)' % a.stalls)
    if any(s < 0 or s > 10_000 for s in stalls):
        ap.error('--stalls %s: each length must be 0 to 10000 ms' % a.stalls)
    if a.reps < 1:
        ap.error('--reps %d: at least 1' % a.reps)
    for tool in ('pulseaudio', 'pactl', 'parec') + (() if a.no_mpv else ('mpv',)):
        if shutil.which(tool) is None:
            sys.exit('stall.py: %s not found (apt-get install pulseaudio pulseaudio-utils libasound2-plugins mpv)' % tool)
    practice = os.environ.get('PRACTICE', os.path.join(here, '..', '..', '.build', 'release', 'practice'))
    for binary in [practice] + ([a.against] if a.against else []):
        if not os.access(binary, os.X_OK):
            sys.exit('stall.py: no practice program at %s (make release, or PRACTICE=...; --against a build)' % binary)
    work = tempfile.mkdtemp(prefix='practice-stall-')
    track = os.path.join(work, 'tone.wav')
    ts = np.arange(60 * rt.SR) / rt.SR
    s = 0.5 * np.sin(2 * np.pi * 440 * ts)
    rt.write_wav(track, np.column_stack([s, s]), work)
    rig = rt.Rig(work, 5)
    try:
        rig.start_recording()
        env = dict(rig.env, XDG_STATE_HOME=os.path.join(work, 'state'))
        players = [rt.Practice(practice, env, work)]
        if a.against:
            players.append(rt.Practice(a.against, env, work, name='against'))
        if not a.no_mpv:
            players.append(rt.Mpv(env, work, a.mpv_ao))
        print('date: %s; %d cores; stops of each length: %d' % (time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), os.cpu_count(), a.reps))
        for p in players:
            print('%-8s %s' % (p.name, getattr(p, 'binary', 'mpv --ao=%s' % a.mpv_ao)))
        print('%-10s %s' % ('stop, ms', '  '.join('%-18s' % p.name for p in players)))
        for stall in stalls:
            cells = []
            for p in players:
                heard, underruns = trial(rig, p, track, stall, a.reps)
                cell = '%s heard' % ('?' if heard is None else heard)
                if underruns is not None:
                    cell += ', %d underruns' % underruns
                cells.append('%-18s' % cell)
            print('%-10d %s' % (stall, '  '.join(cells)), flush=True)
    finally:
        rig.stop_recording()
        rt.cleanup()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
