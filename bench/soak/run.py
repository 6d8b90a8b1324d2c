#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Soak bench: `practice play` drilling a loop at 0.8x with a count-in before every pass, for a
long time through a private real-time PulseAudio null sink, beside mpv looping the same region
at 0.8x (--ab-loop, scaletempo2) in the same run.  See README.md in this folder.

Each minute, for each player: underruns (practice's own count, from its state events), the
frames of every pass completed (measured in what the player sent: ALSA's `tee` PCM writes each
player's stream to a file on its way to the sink, and a 5 kHz burst inside the loop marks each
pass, placed to the frame by cross-correlation), RSS and CPU (from /proc).  At the end: the
verdict against the targets (0 underruns, 0 frames of drift, RSS flat within 1 MB after the
first minute) and practice / mpv for CPU and RSS.

Needs: pulseaudio, pulseaudio-utils, libasound2-plugins, mpv, python3 with numpy.
"""
import argparse
import ctypes
import json
import os
import struct
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'realtime'))
import run as rt  # noqa: E402  (the real-time bench's rig: private PulseAudio, processes, signals)

SR = rt.SR
LOOP = (5.0, 9.0)          # seconds of the track
BURST_AT = 5.5             # the 5 kHz burst marking each pass (inside the loop)
BURST_HZ = 5000.0
RATE = 0.8
BPM = 120


def make_track(path, tmp):
    """20 s: a quiet chord with noise, and one 20 ms 5 kHz burst at BURST_AT."""
    n = 20 * SR
    t = np.arange(n) / SR
    rng = np.random.default_rng(7)
    x = sum(0.05 * np.sin(2 * np.pi * f * t) for f in (220.0, 277.18, 329.63)) + 0.01 * rng.standard_normal(n)
    a, m = int(BURST_AT * SR), int(0.02 * SR)
    x[a:a + m] += 0.5 * np.sin(2 * np.pi * BURST_HZ * t[:m]) * np.hanning(m)
    rt.write_wav(path, np.stack([x, x], axis=1), tmp)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long)
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2


def stream_folder(out, asked):
    """Where the tee writes the players' streams: ASKED, else a folder of its own in /dev/shm
    (memory), else OUT.  ALSA's `tee` PCM writes the file from the player's own audio thread, in
    the same call that hands the period to the sink: on a disk, a write held up by another
    program's writes (a build, a test suite, `dd ... conv=fsync`) starved the sink and was counted
    as the player's underrun (9 in 4 minutes beside such a writer, 0 with the streams in memory,
    2026-12-06).  A user's player writes no such file."""
    if asked:
        return asked
    if os.path.isdir('/dev/shm') and os.access('/dev/shm', os.W_OK):
        return os.path.join('/dev/shm', 'practice-soak-%d' % os.getpid())
    return out


class Stream:
    """Follows a WAV file that ALSA's `tee` PCM is writing, and finds the bursts in it.  What it
    has read is given back to the file system as it goes (a hole punched in the file), so that
    two hours of streams in memory hold only what is not read yet."""
    def __init__(self, path):
        self.path = path
        self.offset = None          # where the samples start
        self.dtype = None
        self.channels = 2
        self.frames = 0             # frames read so far
        self.buf = np.zeros(0)      # the latest frames read (at most 4 s)
        self.buf_start = 0          # the stream frame of buf[0]
        self.template = None
        self.bursts = []            # frame of each burst, in the stream
        self.last_edge = -SR

    def _header(self, f):
        head = f.read(4096)
        if len(head) < 44 or head[:4] != b'RIFF':
            return False
        k = 12
        while k + 8 <= len(head):
            cid, size = head[k:k + 4], struct.unpack('<I', head[k + 4:k + 8])[0]
            if cid == b'fmt ':
                fmt, ch, _, _, _, bits = struct.unpack('<HHIIHH', head[k + 8:k + 24])
                self.channels = ch
                self.dtype = {(3, 32): '<f4', (1, 16): '<i2', (1, 32): '<i4'}.get((fmt, bits))
                if fmt == 0xFFFE:   # WAVE_FORMAT_EXTENSIBLE: the subformat's first two bytes
                    sub = struct.unpack('<H', head[k + 32:k + 34])[0]
                    self.dtype = {(3, 32): '<f4', (1, 16): '<i2', (1, 32): '<i4'}.get((sub, bits))
            if cid == b'data':
                self.offset = k + 8
                return self.dtype is not None
            k += 8 + size + (size & 1)
        return False

    def poll(self):
        if not os.path.exists(self.path):
            return
        with open(self.path, 'r+b') as f:   # (r+: a hole is punched only through a writable descriptor)
            if self.offset is None and not self._header(f):
                return
            width = np.dtype(self.dtype).itemsize * self.channels
            f.seek(self.offset + self.frames * width)
            raw = f.read()
            read_to = self.offset + (self.frames + len(raw) // width) * width
            if read_to > 65536:   # (keeps the header, and whole pages from the start)
                _libc.fallocate(f.fileno(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, (read_to & ~4095) - 4096)
        n = len(raw) // width
        if n == 0:
            return
        x = np.frombuffer(raw[:n * width], dtype=self.dtype).reshape(-1, self.channels)[:, 0].astype(np.float64)
        if self.dtype != '<f4':
            x /= float(2 ** (8 * np.dtype(self.dtype).itemsize - 1))
        self.frames += n
        self.buf = np.concatenate([self.buf, x])
        self._find()
        keep = 4 * SR                               # what the next look needs of what came before
        if len(self.buf) > keep:
            self.buf_start += len(self.buf) - keep
            self.buf = self.buf[-keep:]

    def _find(self):
        """Bursts in the buffer: 256-frame blocks whose 5 kHz power stands out (clicks are 1 and
        1.5 kHz), each placed to the frame against the first one by cross-correlation."""
        block, x = 256, self.buf
        blocks = len(x) // block
        if blocks == 0:
            return
        w = np.exp(-2j * np.pi * BURST_HZ * np.arange(block) / SR)
        power = np.abs(x[:blocks * block].reshape(blocks, block) @ w) ** 2 / block
        for b in np.nonzero(power > 2.0)[0]:
            i = int(b) * block
            edge = self.buf_start + i
            if edge - self.last_edge < SR:
                continue                            # the same burst, or one already placed
            if i < 2048 or i + 6144 > len(x):
                if i + 6144 > len(x):
                    return                          # placed at the next look, with what follows it
                continue
            window = x[i - 2048:i + 4096]
            if self.template is None:
                self.template = window.copy()
                self.bursts.append(edge - 2048)
            else:
                c = np.correlate(window, self.template, mode='full')
                self.bursts.append(edge - 2048 + int(np.argmax(c)) - (len(self.template) - 1))
            self.last_edge = edge


def proc_cpu(pid):
    with open('/proc/%d/stat' % pid) as f:
        s = f.read()
    fields = s[s.rindex(')') + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def proc_rss_kb(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--practice', default=os.path.join(here, '..', '..', '.build', 'release', 'practice'))
    ap.add_argument('--minutes', type=float, default=120.0, help='how long (default 120)')
    ap.add_argument('--out', default='/tmp/practice-soak', help='work folder (track, log.jsonl, results.json)')
    ap.add_argument('--no-mpv', action='store_true', help='practice alone')
    ap.add_argument('--streams', help='folder for the players\' streams (default: one of its own in /dev/shm, '
                    'so that no write of them waits for a disk; else the work folder)')
    a = ap.parse_args()
    for tool in ('pulseaudio', 'pactl') + (() if a.no_mpv else ('mpv',)):
        if not rt.shutil.which(tool):
            sys.exit('run.py: %s not found (apt-get install pulseaudio pulseaudio-utils libasound2-plugins mpv)' % tool)
    os.makedirs(a.out, exist_ok=True)
    for name in os.listdir(a.out):
        if name.endswith('.wav') or name.endswith('.jsonl'):
            os.remove(os.path.join(a.out, name))
    streams = stream_folder(a.out, a.streams)
    os.makedirs(streams, exist_ok=True)
    track = os.path.join(a.out, 'loop.wav')
    make_track(track, a.out)
    rt.signal.signal(rt.signal.SIGTERM, rt._on_signal)
    rig = rt.Rig(a.out, 20)
    try:
        env = dict(rig.env, XDG_STATE_HOME=os.path.join(a.out, 'state'), XDG_CACHE_HOME=os.path.join(a.out, 'cache'))
        players = {}
        ours = os.path.join(streams, 'practice-stream.wav')
        p = rt.spawn([a.practice, 'play', track, '--device', "tee:pulse,'%s',wav" % ours, '--control', 'stdin',
                      '--loop', str(LOOP[0]), str(LOOP[1]), '--rate', str(RATE), '--count-in', '4', '--count-in-every',
                      '--bpm', str(BPM), '--fresh', '--no-journal', '--quiet', '--no-mpris'],
                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        state = {'underruns': 0, 'lines': 0, 'underrun_at': []}
        started = time.time()

        def follow():
            for line in p.stdout:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                count = e.get('underruns', state['underruns'])
                if count > state['underruns']:   # when each was told (UTC), to set beside what else ran
                    state['underrun_at'] += [time.strftime('%H:%M:%S', time.gmtime())] * (count - state['underruns'])
                state['underruns'] = count
                state['lines'] += 1
        threading.Thread(target=follow, daemon=True).start()
        players['practice'] = (p, Stream(ours))
        if not a.no_mpv:
            theirs = os.path.join(streams, 'mpv-stream.wav')
            m = rt.spawn(['mpv', '--no-config', '--no-video', '--really-quiet', '--ao=alsa',
                          "--audio-device=alsa/tee:pulse,'%s',wav" % theirs, '--speed=%s' % RATE,
                          '--ab-loop-a=%s' % LOOP[0], '--ab-loop-b=%s' % LOOP[1], '--start=%s' % LOOP[0], track],
                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            players['mpv'] = (m, Stream(theirs))
        log = open(os.path.join(a.out, 'log.jsonl'), 'w')
        t0 = time.monotonic()
        cpu0 = {name: proc_cpu(pp.pid) for name, (pp, _) in players.items()}
        rows = []
        minute = 0
        print('minute  player    underruns  passes  frames/pass (min..max)   RSS MB   CPU %')
        while minute < a.minutes:
            next_t = t0 + 60 * (minute + 1)
            while time.monotonic() < next_t:
                time.sleep(min(5.0, max(0.0, next_t - time.monotonic())))
                for _, s in players.values():
                    s.poll()
            minute += 1
            for name, (pp, s) in players.items():
                if pp.poll() is not None:
                    raise RuntimeError('%s exited during the soak (%s)' % (name, pp.returncode))
                cpu = proc_cpu(pp.pid)
                lengths = np.diff(s.bursts).tolist()
                row = dict(minute=minute, player=name, underruns=state['underruns'] if name == 'practice' else None,
                           passes=len(lengths), rss_kb=proc_rss_kb(pp.pid),
                           cpu_pct=100 * (cpu - cpu0[name]) / 60, frames=s.frames,
                           pass_min=min(lengths) if lengths else None, pass_max=max(lengths) if lengths else None)
                cpu0[name] = cpu
                rows.append(row)
                log.write(json.dumps(row) + '\n')
                log.flush()
                print('%6d  %-8s  %9s  %6d  %-22s  %7.2f  %6.3f' % (
                    minute, name, '-' if row['underruns'] is None else row['underruns'], row['passes'],
                    '-' if not lengths else '%d..%d' % (row['pass_min'], row['pass_max']),
                    row['rss_kb'] / 1024, row['cpu_pct']), flush=True)
        results = {}
        for name, (pp, s) in players.items():
            mine = [r for r in rows if r['player'] == name]
            lengths = np.diff(s.bursts)
            rss = [r['rss_kb'] for r in mine[1:]] or [mine[0]['rss_kb']]
            results[name] = dict(
                minutes=minute, passes=len(lengths), underruns=mine[-1]['underruns'],
                underrun_at=state['underrun_at'] if name == 'practice' else None,
                frames_per_pass_min=int(lengths.min()) if len(lengths) else None,
                frames_per_pass_max=int(lengths.max()) if len(lengths) else None,
                drift_frames=int(lengths.max() - lengths.min()) if len(lengths) else None,
                rss_first_mb=rss[0] / 1024, rss_last_mb=rss[-1] / 1024, rss_spread_mb=(max(rss) - min(rss)) / 1024,
                cpu_pct=float(np.mean([r['cpu_pct'] for r in mine])))
        expected = (4 * 60 / BPM / RATE + (LOOP[1] - LOOP[0]) / RATE) * SR
        results['expected_frames_per_pass'] = expected
        with open(os.path.join(a.out, 'results.json'), 'w') as f:
            json.dump(results, f, indent=1)
        r = results['practice']
        print()
        print('practice: %d min, %d passes, %s underruns, frames per pass %s..%s (%.0f expected: a count-in of 4 at %d bpm and the loop, at %.1fx), '
              'drift %s frames, RSS %.2f -> %.2f MB (spread %.2f MB after the first minute), CPU %.3f %%'
              % (r['minutes'], r['passes'], r['underruns'], r['frames_per_pass_min'], r['frames_per_pass_max'], expected, BPM, RATE,
                 r['drift_frames'], r['rss_first_mb'], r['rss_last_mb'], r['rss_spread_mb'], r['cpu_pct']))
        if r['underrun_at']:
            print('practice\'s underruns, when each was told (UTC, the run began %s): %s'
                  % (time.strftime('%H:%M:%S', time.gmtime(started)), ' '.join(r['underrun_at'])))
        ok = r['underruns'] == 0 and r['drift_frames'] == 0 and r['rss_spread_mb'] <= 1.0 and r['passes'] > 0
        if 'mpv' in results:
            m = results['mpv']
            print('mpv:      %d passes, frames per pass %s..%s (drift %s), RSS %.2f -> %.2f MB (spread %.2f MB), CPU %.3f %%'
                  % (m['passes'], m['frames_per_pass_min'], m['frames_per_pass_max'], m['drift_frames'],
                     m['rss_first_mb'], m['rss_last_mb'], m['rss_spread_mb'], m['cpu_pct']))
            print('practice / mpv: CPU %.2f, RSS %.2f (the same loop at %.1fx; mpv has no count-in)'
                  % (r['cpu_pct'] / m['cpu_pct'], r['rss_last_mb'] / m['rss_last_mb'], RATE))
        print('targets (0 underruns, 0 drift, RSS flat within 1 MB): %s' % ('met' if ok else 'MISSED'))
        return 0 if ok else 1
    finally:
        for _, (pp, _) in list(locals().get('players', {}).items()):
            rt.stop_process(pp)
        rt.cleanup()
        for name in ('practice-stream.wav', 'mpv-stream.wav'):
            try:
                os.remove(os.path.join(streams, name))   # (their read part given back as they went)
            except OSError:
                pass
        if streams != a.out and streams != a.streams:
            try:
                os.rmdir(streams)
            except OSError:
                pass


if __name__ == '__main__':
    sys.exit(main())
