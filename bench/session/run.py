#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Session bench: the interactive session of `practice` against mpv (scaletempo2, JSON IPC),
through one private PulseAudio null sink, in one run.  See README.md in this folder.

Figures (each for practice and for mpv, then practice / mpv):
  jump    control command written -> new position audible (practice: {"cmd":"jump","marker":N};
          mpv: seek T absolute)
  loop    loop switched on shortly before B: B due -> loop start A audible (the seam's lateness)
  rate    rate command 1.0 -> 0.9 written -> first frame off the 1.0 line (also 0.9 -> 1.0)
  idle    CPU of a paused player over 10 s (/proc utime+stime), controlled and in a terminal
  redraw  terminal updates per second under tmux, playing and paused

Reuses bench/realtime/run.py (the rig, the capture clock, the players, the tone and chirp
analysis). Needs: pulseaudio, pulseaudio-utils, libasound2-plugins, sox, mpv, tmux, python3 with
numpy.
"""
import argparse
import importlib.util
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True          # no __pycache__ in bench/realtime
_spec = importlib.util.spec_from_file_location('realtime_bench', os.path.join(HERE, '..', 'realtime', 'run.py'))
rt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt)

SR = rt.SR
SILENCE = rt.SILENCE
spawn, stop_process, cleanup, run_quiet, write_wav = rt.spawn, rt.stop_process, rt.cleanup, rt.run_quiet, rt.write_wav
med, fmt = rt.med, rt.fmt

CLK_TCK = os.sysconf('SC_CLK_TCK')

# jump.wav: realtime's seek.wav (TONE_A before 30 s, TONE_B after); a marker every 5 s.
TONE_A, TONE_B, SPLIT = rt.TONE_A, rt.TONE_B, rt.SEEK_SPLIT
JUMP_B = rt.SEEK_TARGETS_B
JUMP_A = rt.SEEK_TARGETS_A

# steps.wav: 0.5 s steps of six tones in turn, phase-continuous. Each tone is a whole number of
# cycles per 256 frames (k * 44100 / 256 Hz), so the 256-frame boxcar of tone_amplitude rejects
# the other five completely: 517, 861, 1206, 1550, 1895, 2239 Hz.
STEP = 0.5
STEP_TONES = [m * SR / 256 for m in (3, 5, 7, 9, 11, 13)]
# Loop trials: B on a step boundary, A = B - LOOP_LEN (5 steps: A's tone is neither the tone
# before B nor the one after B, nor any tone heard between the seek and B).
LOOP_B = [12.0, 18.5, 25.0, 31.5, 38.0, 44.5, 51.0, 14.5, 21.0, 27.5, 34.0, 40.5]
LOOP_LEN = 2.5
LOOP_SEEK = 2.0          # each trial seeks to B - 2.0 ...
LOOP_CMD = 0.9           # ... and switches the loop on 0.9 s after that seek (heard near B - 1.15)
LOOP_HOLD = 1.9          # then waits this long after the loop command before switching it off


def step_tone(source_time):
    return STEP_TONES[int(round(source_time / STEP)) % len(STEP_TONES)]


def make_tracks(d, practice_bin):
    os.makedirs(d, exist_ok=True)
    t = {}
    ts = np.arange(int(60 * SR)) / SR
    tw = np.arange(int(0.3 * SR)) / SR
    w = 0.1 * np.sin(2 * np.pi * 100 * tw)
    t['warm'] = os.path.join(d, 'warm.wav')
    write_wav(t['warm'], np.column_stack([w, w]), d)
    # jump.wav: the same signal as bench/realtime's seek.wav, with markers J5 ... J55.
    s = np.where(ts < SPLIT, 0.4 * np.sin(2 * np.pi * TONE_A * ts), 0.4 * np.sin(2 * np.pi * TONE_B * ts))
    t['jump'] = os.path.join(d, 'jump.wav')
    write_wav(t['jump'], np.column_stack([s, s]), d)
    sidecar = t['jump'] + '.practice.json'
    if os.path.exists(sidecar):
        os.remove(sidecar)
    for to in sorted(JUMP_A + JUMP_B):
        run_quiet([practice_bin, 'markers', 'add', t['jump'], 'J%g' % to, '%g' % to])
    # steps.wav: phase-continuous steps (no clicks), so a tone's onset is its step boundary.
    f = np.array([STEP_TONES[k % len(STEP_TONES)] for k in (ts / STEP).astype(int)])
    phase = 2 * np.pi * np.cumsum(f) / SR
    x = 0.4 * np.sin(phase)
    t['steps'] = os.path.join(d, 'steps.wav')
    write_wav(t['steps'], np.column_stack([x, x]), d)
    # chirp.wav: bench/realtime's sawtooth chirp (the frequency heard is the source position).
    u = np.mod(ts, rt.CHIRP_P)
    c = 0.4 * np.sin(2 * np.pi * (rt.CHIRP_F0 * u + rt.CHIRP_K * u * u / 2))
    t['chirp'] = os.path.join(d, 'chirp.wav')
    write_wav(t['chirp'], np.column_stack([c, c]), d)
    return t


# ------------------------------------------------------------------------------------------
# Players: bench/realtime's, plus the session's commands

class Practice(rt.Practice):
    def jump(self, name, to):
        return self._send({'cmd': 'jump', 'marker': name})

    def loop(self, a, b):
        return self._send({'cmd': 'loop', 'start': a, 'end': b})

    def loop_off(self):
        return self._send({'cmd': 'loop'})

    def pause(self):
        return self._send({'cmd': 'pause'})

    def terminal_command(self, track):
        return [self.binary, track, '--device', 'pulse']      # the practice screen


class Mpv(rt.Mpv):
    def _send_many(self, commands):
        data = b''.join((json.dumps({'command': c}) + '\n').encode() for c in commands)
        t = time.monotonic()
        self.sock.sendall(data)
        return t

    def jump(self, name, to):
        return self.seek(to)

    def loop(self, a, b):
        # Both properties in one write: the time is taken before the first byte.
        return self._send_many([['set', 'ab-loop-a', '%g' % a], ['set', 'ab-loop-b', '%g' % b]])

    def loop_off(self):
        return self._send_many([['set', 'ab-loop-a', 'no'], ['set', 'ab-loop-b', 'no']])

    def pause(self):
        return self._send(['set_property', 'pause', True])

    def terminal_command(self, track):
        # mpv's own terminal status line and key input (space pauses), as a user runs it.
        args = ['mpv', '--no-config', '--no-video']
        args += ['--ao=pulse'] if self.ao == 'pulse' else ['--ao=alsa', '--audio-device=alsa/pulse']
        return args + ['--af=scaletempo2', track]


# ------------------------------------------------------------------------------------------
# CPU from /proc

def proc_cpu(pid):
    """(utime+stime s from /proc/PID/stat, run ns summed over threads from schedstat, timeslices
    summed over threads, {thread name: (run ns, timeslices)})."""
    with open('/proc/%d/stat' % pid) as f:
        s = f.read()
    fields = s[s.rindex(')') + 2:].split()
    ticks = (int(fields[11]) + int(fields[12])) / CLK_TCK
    run_ns = slices = 0
    threads = {}
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                ns, _, n = (int(v) for v in f.read().split())
            with open('/proc/%d/task/%s/comm' % (pid, tid)) as f:
                comm = f.read().strip()
        except OSError:
            continue          # the thread ended meanwhile
        run_ns += ns
        slices += n
        threads['%s/%s' % (comm, tid)] = (ns, n)
    return ticks, run_ns, slices, threads


def cpu_window(pid, pa_pid, seconds):
    """CPU of `pid` (and of the pulseaudio server) over `seconds` of wall time from now."""
    a, pa = proc_cpu(pid), proc_cpu(pa_pid)
    t0 = time.monotonic()
    time.sleep(seconds)
    b, pb = proc_cpu(pid), proc_cpu(pa_pid)
    wall = time.monotonic() - t0
    per_thread = []
    for k, (ns, n) in b[3].items():
        ns0, n0 = a[3].get(k, (0, 0))
        per_thread.append((k.split('/')[0], (ns - ns0) / 1e9, (n - n0) / wall))
    per_thread.sort(key=lambda x: -x[2])
    return dict(wall=wall, pct=100 * (b[0] - a[0]) / wall, sched_pct=100 * (b[1] - a[1]) / 1e9 / wall,
                wakeups=(b[2] - a[2]) / wall, server_pct=100 * (pb[1] - pa[1]) / 1e9 / wall,
                server_wakeups=(pb[2] - pa[2]) / wall, t0=t0, t1=t0 + wall,
                threads=[(c, round(s, 4), round(w, 1)) for c, s, w in per_thread[:6]])


def sound_between(rig, t0, t1):
    """Seconds of non-silent audio the monitor delivered between t0 and t1."""
    with rig.lock:
        return sum(n for a, n, p in zip(rig.arrival, rig.nframes, rig.peak) if t0 < a <= t1 and p >= SILENCE) / SR


# ------------------------------------------------------------------------------------------
# Sessions (recording side: only timestamps here; the analysis runs after the capture stops)

def save_events(player, session, first):
    """practice's NDJSON state events of a session, with our clock, to logs/ (for diagnosis)."""
    if player.name != 'practice':
        return
    with open(os.path.join(player.logdir, 'practice-%s-%d.ndjson' % (session, first)), 'w') as f:
        for t, line in player.events:
            f.write('%.4f %s' % (t, line.decode(errors='replace')))


def jump_session(rig, player, track, count, spacing, first):
    """Plays jump.wav at 1.0 from 2 s and jumps back and forth between the two tones' markers."""
    rig.wait_silence(0.3)
    player.launch(track, 1.0, start=2.0, control=True)
    time.sleep(1.5)
    events = []
    region = 'A'
    for i in range(count):
        j = (first + i) // 2
        if region == 'A':
            to, region, old, new = JUMP_B[j % 5], 'B', TONE_A, TONE_B
        else:
            to, region, old, new = JUMP_A[j % 5], 'A', TONE_B, TONE_A
        t = player.jump('J%g' % to, to)
        events.append(dict(player=player.name, t=t, to=to, old=old, new=new, until=t + spacing - 0.05))
        time.sleep(max(0.0, t + spacing - time.monotonic()))
    if player.p.poll() is not None:
        raise RuntimeError('%s exited during the jump session' % player.name)
    player.quit()
    save_events(player, 'jump', first)
    return events


def loop_session(rig, player, track, count, first):
    """Plays steps.wav at 1.0. Each trial seeks to B - 2 s, switches the loop A-B on 0.9 s later
    (the playhead is then inside [A, B), about 1.15 s before B), lets it close once, and
    switches it off."""
    rig.wait_silence(0.3)
    # From 1 s: practice clamps later seeks to the --from position (its playing range starts there).
    player.launch(track, 1.0, start=1.0, control=True)
    time.sleep(1.0)
    events = []
    for i in range(count):
        b = LOOP_B[(first + i) % len(LOOP_B)]
        a = b - LOOP_LEN
        t_seek = player.seek(b - LOOP_SEEK)
        time.sleep(max(0.0, t_seek + LOOP_CMD - time.monotonic()))
        t = player.loop(a, b)
        time.sleep(max(0.0, t + LOOP_HOLD - time.monotonic()))
        t_off = player.loop_off()
        events.append(dict(player=player.name, t_seek=t_seek, t=t, a=a, b=b, until=t_off - 0.02))
        time.sleep(0.1)
    if player.p.poll() is not None:
        raise RuntimeError('%s exited during the loop session' % player.name)
    player.quit()
    save_events(player, 'loop', first)
    return events


def rate_session(rig, player, track, count, hold):
    """Plays chirp.wav at 1.0 from 1 s; count times: rate 0.9 (measured), hold, rate 1.0
    (measured), hold."""
    rig.wait_silence(0.3)
    player.launch(track, 1.0, start=1.0, control=True)
    time.sleep(1.5)
    events = []
    for i in range(count):
        for kind, value in (('1.0->0.9', 0.9), ('0.9->1.0', 1.0)):
            t = player.rate(value)
            events.append(dict(player=player.name, kind=kind, t=t, until=t + hold - 0.05))
            time.sleep(max(0.0, t + hold - time.monotonic()))
    if player.p.poll() is not None:
        raise RuntimeError('%s exited during the rate session' % player.name)
    player.quit()
    save_events(player, 'rate', 0)
    return events


def idle_control_run(rig, player, track, seconds):
    """Starts the player under its control channel, plays 1 s, pauses, waits 1.5 s, and measures
    the paused process over `seconds`."""
    rig.wait_silence(0.3)
    rig.keep = False
    player.launch(track, 1.0, control=True)
    time.sleep(1.0)
    player.pause()
    time.sleep(1.5)
    if player.p.poll() is not None:
        raise RuntimeError('%s exited before the idle window' % player.name)
    w = cpu_window(player.p.pid, rig.daemon.pid, seconds)
    w.update(player=player.name, mode='control', sound_s=sound_between(rig, w['t0'], w['t1']))
    player.quit()
    rig.keep = True
    return w


class Tmux:
    """A private tmux server (its own socket) with one 100 x 30 window; the pane's output is
    piped through a FIFO to a reader thread that timestamps every chunk."""
    COLUMNS, ROWS = 100, 30

    def __init__(self, work, env, name):
        self.sock = os.path.join(work, 'tmux-%s.sock' % name)
        self.fifo = os.path.join(work, 'tmux-%s.fifo' % name)
        self.env = env
        for p in (self.sock, self.fifo):
            if os.path.exists(p):
                os.remove(p)
        os.mkfifo(self.fifo)
        self.chunks = []
        self.started = False

    def tmux(self, *args):
        return subprocess.run(['tmux', '-S', self.sock, '-f', '/dev/null'] + list(args), env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)

    def start(self, argv):
        """Runs argv in the pane (after 0.5 s, so the pipe is attached before its first byte);
        returns its pid (the shell execs it, so the pid stays)."""
        cmd = 'sleep 0.5; exec ' + ' '.join(shlex.quote(a) for a in argv)
        extra = []
        for k in ('XDG_RUNTIME_DIR', 'PULSE_SERVER'):
            extra += ['-e', '%s=%s' % (k, self.env[k])]
        r = self.tmux('new-session', '-d', '-x', str(self.COLUMNS), '-y', str(self.ROWS), '-P', '-F', '#{pane_pid}',
                      *extra, cmd)
        if r.returncode != 0:
            raise RuntimeError('tmux new-session failed: %s' % r.stderr.decode(errors='replace'))
        self.started = True
        self.pid = int(r.stdout.split()[0])
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        r = self.tmux('pipe-pane', '-O', 'cat > %s' % shlex.quote(self.fifo))
        if r.returncode != 0:
            raise RuntimeError('tmux pipe-pane failed: %s' % r.stderr.decode(errors='replace'))
        return self.pid

    def _read(self):
        fd = os.open(self.fifo, os.O_RDONLY)
        while True:
            b = os.read(fd, 1 << 16)
            if not b:
                break
            self.chunks.append((time.monotonic(), b))
        os.close(fd)

    def keys(self, *keys):
        t = time.monotonic()
        self.tmux('send-keys', *keys)
        return t

    def alive(self):
        try:
            os.kill(self.pid, 0)
            return True
        except ProcessLookupError:
            return False

    def stop(self, quit_key):
        """Asks the program to quit with its key, waits up to 3 s, then ends the server."""
        if not self.started:
            return
        if self.alive():
            self.keys(quit_key)
            deadline = time.monotonic() + 3
            while self.alive() and time.monotonic() < deadline:
                time.sleep(0.05)
        if self.alive():
            os.kill(self.pid, signal.SIGTERM)
        self.tmux('kill-server')     # ends the server we started (its own socket), if still there
        self.started = False
        for p in (self.sock, self.fifo):
            if os.path.exists(p):
                os.remove(p)


_tmuxes = []


def terminal_run(rig, work, name, argv, quit_key, play_s, idle_s):
    """The player in a terminal (tmux, 100 x 30): plays `play_s`, space pauses it, and after 1.5 s
    its CPU and its terminal output are measured over `idle_s`."""
    rig.wait_silence(0.3)
    rig.keep = False
    tm = Tmux(work, rig.env, name)
    _tmuxes.append(tm)
    pid = tm.start(argv)
    time.sleep(0.5 + play_s)
    if not tm.alive():
        raise RuntimeError('%s exited in tmux; output: %r' % (name, b''.join(c for _, c in tm.chunks)[-500:]))
    t_pause = tm.keys(' ')
    time.sleep(1.5)
    w = cpu_window(pid, rig.daemon.pid, idle_s)
    screen = tm.tmux('capture-pane', '-p').stdout.decode(errors='replace')
    tm.stop('q')
    rig.keep = True
    w.update(player=name, mode='terminal', t_pause=t_pause, sound_s=sound_between(rig, w['t0'], w['t1']),
             chunks=tm.chunks, screen=screen)
    return w


def update_times(player, chunks):
    """Arrival time of each terminal update (the time of the chunk holding its first byte)."""
    mark = b'\x1b[H' if player == 'practice' else b'\r\x1b[K'
    times, tail = [], b''
    for t, c in chunks:
        data = tail + c
        n = count_updates(player, data) - count_updates(player, tail)
        times += [t] * n
        tail = data[-(len(mark) + 4):]          # an update split between two chunks counts once
    return times


def count_updates(player, data):
    """Terminal updates in `data`: practice frames start with ESC [ H (the ESC [ H ESC [ 2 J that
    clears the screen at start is not one); mpv rewrites its status line after CR ESC [ K."""
    if player == 'practice':
        return data.count(b'\x1b[H') - data.count(b'\x1b[H\x1b[2J')
    return data.count(b'\r\x1b[K')


def analyze_terminal(run):
    chunks = run.pop('chunks')
    if not chunks:
        return dict(run, note='no terminal output captured')
    # Playing window: from 1 s after the first byte to the pause key.
    t_first = chunks[0][0]
    a, b = t_first + 1.0, run['t_pause']
    playing = b''.join(c for t, c in chunks if a <= t < b)
    paused = b''.join(c for t, c in chunks if run['t0'] <= t < run['t1'])
    # Updates per second while playing: (n - 1) over the time from the first to the last update
    # in the window, so the window's edges do not add or drop one.
    times = [t for t in update_times(run['player'], chunks) if a <= t < b]
    rate = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 2 else len(times) / (b - a)
    gaps = np.diff(times) if len(times) > 2 else np.array([np.nan])
    run.update(first_frame=float(t_first), play_window=b - a, updates_in_window=len(times),
               update_interval_ms=(float(1000 * np.median(gaps)), float(1000 * np.min(gaps)), float(1000 * np.max(gaps))),
               updates_playing=rate,
               bytes_playing=len(playing) / (b - a),
               updates_paused=count_updates(run['player'], paused) / run['wall'],
               bytes_paused=len(paused) / run['wall'],
               total_bytes=sum(len(c) for _, c in chunks))
    return run


# ------------------------------------------------------------------------------------------
# Analysis

def onset(t, amp, half, t_from, t_to=None):
    """First time >= t_from where amp rises above half (it must be below half at t_from)."""
    i0 = int(np.searchsorted(t, t_from))
    if i0 >= len(t) or amp[i0] > half:
        return None
    idx = np.nonzero(amp[i0:] > half)[0]
    if len(idx) == 0:
        return None
    ti = float(t[i0 + idx[0]])
    return ti if t_to is None or ti <= t_to else None


def analyze_loop(cap, ev, rate=1.0):
    """See README, 'Loop'. Times of step onsets (a tone crossing half its level) after the seek
    give the heard position; B is due 0.5 s (one step) after the onset of the step before B."""
    a = cap.frame_at(ev['t_seek'])
    b = cap.frame_at(ev['until'])
    x = cap.frames(a, b).mean(axis=1)
    t = cap.time_of_frame(np.arange(a, b))
    B, A = ev['b'], ev['a']
    amp = {f: rt.tone_amplitude(x, f) for f in STEP_TONES}
    level = np.median(np.max(np.array(list(amp.values())), axis=0)[t > ev['t_seek'] + 0.25])
    half = 0.5 * level
    res = dict(ev, level=float(level))
    if level < 0.05:
        res.update(seam=None, note='no steps playing')
        return res
    # The step at B - 1.5 (after the seek to B - 2.0, before the command), then the one at B - 0.5
    # (after the command): if the command moved the heard position, their distance says so.
    r1 = onset(t, amp[step_tone(B - 1.5)], half, ev['t_seek'] + 0.25)
    r2 = onset(t, amp[step_tone(B - 0.5)], half, (r1 or ev['t']) + 0.6) if r1 else None
    if r1 is None or r2 is None:
        res.update(seam=None, note='reference steps not found')
        return res
    res['cmd_after_ref_ms'] = 1000 * (ev['t'] - r1)
    res['cmd_before_b_ms'] = 1000 * (r2 + STEP / rate - ev['t'])
    res['cmd_jump_ms'] = 1000 * (r2 - r1 - 1.0 / rate)
    loudest = np.max(np.array(list(amp.values())), axis=0)
    res['cmd_gap_ms'] = 1000 * float(np.sum((t >= ev['t']) & (t < r2 - 0.05) & (loudest < half))) / SR
    t_b = r2 + STEP / rate                      # B due (one step after the last step began)
    on_a = onset(t, amp[step_tone(A)], half, r2 + 0.1)
    res['seam'] = None if on_a is None else on_a - t_b
    res['seam_error'] = None if on_a is None else abs(on_a - t_b)
    before_b = amp[step_tone(B - 0.5)]
    i = int(np.searchsorted(t, r2 + 0.1))
    off = np.nonzero(before_b[i:] < half)[0]
    res['before_b_stops'] = None if len(off) == 0 else float(t[i + off[0]] - t_b)
    if on_a is not None:
        # Audio from after B heard before A (overshoot), and frames with no step above half (gap).
        win = (t >= r2 + 0.1) & (t < on_a)
        after_b = amp[step_tone(B)]
        res['overshoot_ms'] = 1000 * float(np.sum(win & (after_b > half))) / SR
        res['gap_ms'] = 1000 * float(np.sum(win & (loudest < half))) / SR
    return res


def analyze_rate(cap, ev, tol):
    """bench/realtime's chirp analysis: its '1.0->0.8' branch (first frame off the 1 s/s line)
    for 1.0 -> 0.9, its '0.8->1.0' branch (first frame of the final 1 s/s stretch) for 0.9 -> 1.0."""
    r = rt.analyze_rate(cap, dict(ev, kind='0.8->1.0' if ev['kind'] == '0.9->1.0' else '1.0->0.8'), tol)
    r['kind'] = ev['kind']
    return r


# ------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--practice', default=os.path.join(HERE, '..', '..', '.build', 'release', 'practice'),
                    help='our player (default: .build/release/practice of this repository)')
    ap.add_argument('--out', default='/tmp/practice-session', help='work folder (tracks, logs, results.json)')
    ap.add_argument('--trials', type=int, default=10, help='jumps, loops and rate steps per player (default 10)')
    ap.add_argument('--idle-seconds', type=float, default=10.0, help='paused CPU window (default 10)')
    ap.add_argument('--play-seconds', type=float, default=4.0, help='playing time in the terminal runs (default 4)')
    ap.add_argument('--mpv-ao', choices=['pulse', 'alsa'], default='pulse',
                    help="mpv's output: pulse (--ao=pulse) or alsa (--ao=alsa --audio-device=alsa/pulse); default pulse")
    ap.add_argument('--monitor-latency-ms', type=int, default=5,
                    help="parec --latency-msec on the sink's monitor; sets the sink's block (default 5, as "
                         "Tests/PracticeTestSupport/PulseRig.swift; bench/realtime uses 20)")
    ap.add_argument('--tests', default='jump,loop,rate,idle,terminal',
                    help='which measurements to make, comma-separated (default jump,loop,rate,idle,terminal)')
    ap.add_argument('--tol-ms', type=float, default=1.0,
                    help='rate test: distance from a 1 s/s line that counts as off it (default 1 ms)')
    args = ap.parse_args()

    practice_bin = os.path.abspath(args.practice)
    if not os.access(practice_bin, os.X_OK):
        sys.exit('run.py: %s not found (build it, or pass --practice)' % practice_bin)
    for tool in ('pulseaudio', 'pactl', 'parec', 'sox', 'mpv', 'tmux'):
        if shutil.which(tool) is None:
            sys.exit('run.py: %s not found (apt-get install pulseaudio pulseaudio-utils libasound2-plugins sox mpv tmux)' % tool)
    tests = set(args.tests.split(','))
    unknown = tests - {'jump', 'loop', 'rate', 'idle', 'terminal'}
    if unknown:
        sys.exit('run.py: unknown test(s): %s' % ', '.join(sorted(unknown)))

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, rt._on_signal)
    os.makedirs(args.out, exist_ok=True)
    logdir = os.path.join(args.out, 'logs')
    os.makedirs(logdir, exist_ok=True)
    for f in ('practice.log', 'mpv.log'):
        open(os.path.join(logdir, f), 'w').close()
    started = time.monotonic()
    rig = None
    try:
        print('tracks ...', flush=True)
        tracks = make_tracks(os.path.join(args.out, 'tracks'), practice_bin)
        # norewinds=1 as Tests/PracticeTestSupport/PulseRig.swift (PulseAudio 16's null sink
        # otherwise renders 2 s ahead when no client asks for low latency).
        rig = rt.Rig(args.out, args.monitor_latency_ms, sink_options='norewinds=1')
        rig.start_recording()                    # recorder first (audio-testing.md)
        prac = Practice(practice_bin, rig.env, logdir)
        mpv = Mpv(rig.env, logdir, args.mpv_ao)
        for pl in (prac, mpv):
            rig.warm_up(pl, tracks['warm'])
        pairs = [(prac, mpv), (mpv, prac)]
        half = (args.trials + 1) // 2
        halves = [n for n in (half, args.trials - half)]

        jumps, loops, rates = [], [], []
        if 'jump' in tests:
            print('jump ...', flush=True)
            for i, n in enumerate(halves):
                for pl in pairs[i % 2]:
                    if n:
                        jumps += jump_session(rig, pl, tracks['jump'], n, 1.3, i * half)
        if 'loop' in tests:
            print('loop ...', flush=True)
            for i, n in enumerate(halves):
                for pl in pairs[i % 2]:
                    if n:
                        loops += loop_session(rig, pl, tracks['steps'], n, i * half)
        if 'rate' in tests:
            print('rate ...', flush=True)
            for i, n in enumerate(halves):
                for pl in pairs[i % 2]:
                    if n:
                        rates += rate_session(rig, pl, tracks['chirp'], n, 1.0)
        idles = []
        if 'idle' in tests:
            print('idle, paused (%g s each) ...' % args.idle_seconds, flush=True)
            for pl in (prac, mpv):
                idles.append(idle_control_run(rig, pl, tracks['steps'], args.idle_seconds))
        terms = []
        if 'terminal' in tests:
            print('terminal (tmux %dx%d: %g s playing, then %g s paused) ...'
                  % (Tmux.COLUMNS, Tmux.ROWS, args.play_seconds, args.idle_seconds), flush=True)
            for pl in (mpv, prac):
                terms.append(terminal_run(rig, args.out, pl.name, pl.terminal_command(tracks['steps']),
                                          'q', args.play_seconds, args.idle_seconds))
        rig.wait_silence(0.3)
        rig.stop_recording()
        cap = rt.Capture(rig)
    finally:
        for tm in _tmuxes:
            try:
                tm.stop('q')
            except Exception as e:
                print('cleanup: tmux: %s' % e, file=sys.stderr)
        cleanup()               # players first (started last), then parec, then pulseaudio
        if rig is not None:
            if os.path.exists(rig.log):
                shutil.copy(rig.log, os.path.join(logdir, 'pulse.log'))
            shutil.rmtree(rig.dir, ignore_errors=True)
    measured = time.monotonic() - started

    # ---------------------------------------------------------------------- analysis
    J = [rt.analyze_seek(cap, e) for e in jumps]
    L = [analyze_loop(cap, e) for e in loops]
    R = [analyze_rate(cap, e, args.tol_ms / 1000) for e in rates]
    T = [analyze_terminal(r) for r in terms]

    def by(rows, player, key, **match):
        return [r.get(key) for r in rows if r['player'] == player and all(r.get(k) == v for k, v in match.items())]

    def ms(rows, player, key, **match):
        return [1000 * x for x in by(rows, player, key, **match) if x is not None]

    out = []
    say = out.append
    say('practice: %s' % practice_bin)
    say('mpv:      %s (%s), --af=scaletempo2, JSON IPC' % (
        subprocess.run(['mpv', '--version'], stdout=subprocess.PIPE).stdout.decode().split('\n')[0],
        '--ao=pulse' if args.mpv_ao == 'pulse' else '--ao=alsa --audio-device=alsa/pulse'))
    say('sink:     private PulseAudio null sink (norewinds=1), float32le 44100 Hz stereo; parec --latency-msec=%d'
        % args.monitor_latency_ms)
    say('clock:    %d parec reads, median %d frames, in %d unbroken stretches; read offsets above the envelope: '
        'median %.2f ms, p90 %.2f ms' % (len(cap.n), int(np.median(cap.n)), len(cap.segments),
                                         1000 * np.median(cap.residual), 1000 * np.percentile(cap.residual, 90)))
    say('')
    say('jumps (jump.wav at 1.0; %g Hz <-> %g Hz; ms to the new tone at half level; old tone below half level):' % (TONE_A, TONE_B))
    for r in J:
        say('  %-8s to J%-3g: new %7s ms, old stops %7s ms%s' % (r['player'], r['to'], fmt(r.get('latency'), 1000),
                                                                fmt(r.get('old_stops'), 1000), ('  ' + r['note']) if 'note' in r else ''))
    say('')
    say('loops (steps.wav at 1.0; loop B-%g..B switched on about 1.15 s before B; ms relative to B due):' % LOOP_LEN)
    for r in L:
        say('  %-8s B=%4.1f: A audible %6s ms, before-B stops %6s ms, overshoot %4s ms, gap %4s ms; '
            'command %3s ms after ref, %4s ms before B; at the command: position jump %5s ms, silence %4s ms%s'
            % (r['player'], r['b'], fmt(r.get('seam'), 1000), fmt(r.get('before_b_stops'), 1000),
               fmt(r.get('overshoot_ms')), fmt(r.get('gap_ms')), fmt(r.get('cmd_after_ref_ms'), 1, 0),
               fmt(r.get('cmd_before_b_ms'), 1, 0), fmt(r.get('cmd_jump_ms')), fmt(r.get('cmd_gap_ms')),
               ('  ' + r['note']) if 'note' in r else ''))
    say('')
    say('rate steps (chirp.wav; tol %.1f ms):' % args.tol_ms)
    for r in R:
        if r['kind'] == '1.0->0.9':
            say('  %-8s 1.0->0.9: %7s ms (first frame off the 1 s/s line)%s'
                % (r['player'], fmt(r.get('latency'), 1000), ('  ' + r['note']) if 'note' in r else ''))
    for r in R:
        if r['kind'] == '0.9->1.0':
            say('  %-8s 0.9->1.0: %7s ms  (slope before %s, position jump %s ms, plateau spread %s ms)%s'
                % (r['player'], fmt(r.get('latency'), 1000), fmt(r.get('slope_before'), 1, 3),
                   fmt(r.get('jump_ms'), 1, 1), fmt(r.get('plateau_spread_ms'), 1, 2),
                   ('  ' + r['note']) if 'note' in r else ''))
    say('')
    say('paused (over %g s; %% of one core; wakeups = timeslices/s over all threads; server = pulseaudio meanwhile):' % args.idle_seconds)
    for r in idles + T:
        say('  %-8s %-8s stat %6.3f %%  schedstat %6.3f %%  %6.1f wakeups/s  server %5.3f %% %5.1f wakeups/s  '
            'sound %.1f s  top threads (name, s, wakeups/s): %s'
            % (r['player'], r['mode'], r['pct'], r['sched_pct'], r['wakeups'], r['server_pct'], r['server_wakeups'],
               r['sound_s'], ', '.join('%s %.3f %.1f' % th for th in r['threads'])))
    say('')
    say('terminal (tmux %dx%d; practice: frames, each starting ESC[H; mpv: status-line rewrites, CR ESC[K):' % (Tmux.COLUMNS, Tmux.ROWS))
    for r in T:
        if 'note' in r:
            say('  %-8s %s' % (r['player'], r['note']))
            continue
        say('  %-8s playing %5.2f updates/s (%d in %.1f s; interval median %.0f ms, %.0f..%.0f; %6.0f bytes/s); '
            'paused %5.2f updates/s (%5.0f bytes/s)'
            % (r['player'], r['updates_playing'], r['updates_in_window'], r['play_window'], *r['update_interval_ms'],
               r['bytes_playing'], r['updates_paused'], r['bytes_paused']))

    rows = [
        ('jump -> new position audible, ms', ms(J, 'practice', 'latency'), ms(J, 'mpv', 'latency'), '<= 50 ms', 1, 50.0),
        ('loop: |A audible - B due|, ms', ms(L, 'practice', 'seam_error'), ms(L, 'mpv', 'seam_error'), '<= 50 ms', 1, 50.0),
        ('rate 1.0 -> 0.9 audible, ms', ms(R, 'practice', 'latency', kind='1.0->0.9'),
         ms(R, 'mpv', 'latency', kind='1.0->0.9'), '<= 50 ms', 1, 50.0),
        ('idle paused CPU (control), %', by(idles, 'practice', 'pct'), by(idles, 'mpv', 'pct'), '<= 0.1 %', 3, 0.1),
        ('idle paused CPU (terminal), %', by(T, 'practice', 'pct'), by(T, 'mpv', 'pct'), '<= 0.1 %', 3, 0.1),
        ('redraws/s playing (terminal)', [x for x in by(T, 'practice', 'updates_playing') if x is not None],
         [x for x in by(T, 'mpv', 'updates_playing') if x is not None], '<= 10 /s', 2, 10.0),
        ('redraws/s paused (terminal)', [x for x in by(T, 'practice', 'updates_paused') if x is not None],
         [x for x in by(T, 'mpv', 'updates_paused') if x is not None], '<= 0.2 /s', 2, 0.2),
    ]
    say('')
    say('Medians (ratio = practice / mpv; below 1 = practice lower)')
    head = '%-36s %10s %10s %7s  %-10s %s' % ('figure', 'practice', 'mpv', 'ratio', 'target', 'practice n / range')
    say(head)
    say('-' * len(head))
    summary = {}
    for label, p, m, target, digits, limit in rows:
        mp, mm = med(p), med(m)
        ratio = mp / mm if mp is not None and mm else None
        verdict = '' if mp is None else ('met' if mp <= limit else 'MISSED')
        rng = '-' if not p else '%d: %s..%s' % (len(p), fmt(min(p), 1, digits), fmt(max(p), 1, digits))
        say('%-36s %10s %10s %7s  %-10s %s %s' % (label, fmt(mp, 1, digits), fmt(mm, 1, digits), fmt(ratio, 1, 2), target, rng, verdict))
        summary[label] = dict(practice=mp, mpv=mm, ratio=ratio, practice_all=p, mpv_all=m, target=target)

    def extra(label, p, m, digits=1, ratio=True):
        mp, mm = med(p), med(m)
        r = fmt(mp / mm, 1, 2) if ratio and mp is not None and mm else ''
        say('%-36s %10s %10s %7s  %s' % (label, fmt(mp, 1, digits), fmt(mm, 1, digits), r, 'see README'))
        summary[label] = dict(practice=mp, mpv=mm, practice_all=p, mpv_all=m)

    extra('(jump -> old position silent, ms)', ms(J, 'practice', 'old_stops'), ms(J, 'mpv', 'old_stops'))
    extra('(loop: A audible - B due, signed, ms)', ms(L, 'practice', 'seam'), ms(L, 'mpv', 'seam'), ratio=False)
    extra('(loop: before-B tone stops, ms)', ms(L, 'practice', 'before_b_stops'), ms(L, 'mpv', 'before_b_stops'), ratio=False)
    extra('(loop: overshoot past B, ms)', by(L, 'practice', 'overshoot_ms'), by(L, 'mpv', 'overshoot_ms'), ratio=False)
    extra('(loop: gap at the seam, ms)', by(L, 'practice', 'gap_ms'), by(L, 'mpv', 'gap_ms'), ratio=False)
    extra('(loop command: position jump, ms)', by(L, 'practice', 'cmd_jump_ms'), by(L, 'mpv', 'cmd_jump_ms'), ratio=False)
    extra('(loop command: silence, ms)', by(L, 'practice', 'cmd_gap_ms'), by(L, 'mpv', 'cmd_gap_ms'), ratio=False)
    extra('(rate 0.9 -> 1.0 audible, ms)', ms(R, 'practice', 'latency', kind='0.9->1.0'), ms(R, 'mpv', 'latency', kind='0.9->1.0'))
    extra('(rate 0.9 -> 1.0: position jump, ms)', by(R, 'practice', 'jump_ms', kind='0.9->1.0'),
          by(R, 'mpv', 'jump_ms', kind='0.9->1.0'), ratio=False)
    extra('(idle CPU, control, schedstat, %)', by(idles, 'practice', 'sched_pct'), by(idles, 'mpv', 'sched_pct'), 3)
    extra('(idle CPU, terminal, schedstat, %)', by(T, 'practice', 'sched_pct'), by(T, 'mpv', 'sched_pct'), 3)
    extra('(idle wakeups/s, control)', by(idles, 'practice', 'wakeups'), by(idles, 'mpv', 'wakeups'))
    extra('(idle wakeups/s, terminal)', by(T, 'practice', 'wakeups'), by(T, 'mpv', 'wakeups'))
    extra('(server CPU while paused, control, %)', by(idles, 'practice', 'server_pct'), by(idles, 'mpv', 'server_pct'), 3)
    say('')
    say('measuring took %.0f s; raw results: %s' % (measured, os.path.join(args.out, 'results.json')))
    text = '\n'.join(out)
    print()
    print(text)
    with open(os.path.join(args.out, 'results.json'), 'w') as f:
        json.dump(dict(summary=summary, jumps=J, loops=L, rates=R, idle=idles, terminal=T, args=vars(args)),
                  f, indent=1, default=str)
    with open(os.path.join(args.out, 'results.txt'), 'w') as f:
        f.write(text + '\n')


if __name__ == '__main__':
    try:
        main()
    finally:
        for tm in _tmuxes:
            try:
                tm.stop('q')
            except Exception:
                pass
        cleanup()
