#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Real-time bench: `practice play` against mpv (scaletempo2), through one private PulseAudio
null sink, in one run.  See README.md in this folder.

Figures (each for practice and for mpv, then practice / mpv):
  cpu     CPU of real-time playback at 0.8x over 60 s (user+sys of the whole process / wall)
  launch  launch -> first audible sample (first non-silent frame on the sink's monitor), beside aplay
          writing the same track through the same PCM: the floor
  seek    seek command written -> first frame of the new position audible
  rate    rate command 0.8 -> 1.0 written -> first frame played at the new rate
  remote  the phone remote (practice only; headless Chromium as the phone, paired): a tap on a
          marker's button -> the new position audible (beside mpv's seek over its IPC socket,
          the seek test's, in the same run), and the page's load -> live (drawn from the
          player's state over its WebSocket)
  phones  what the phone remote costs the player (practice only): CPU at 0.8x once settled and
          peak RSS, without --remote, with it and no page open, and with two phones paired and
          live (two browser contexts of headless Chromium, each with its own cookie), alternately

Needs: pulseaudio, pulseaudio-utils (pactl, parec), libasound2-plugins (ALSA 'pulse' PCM),
sox, mpv, python3 with numpy; for remote, chromium.
"""
import argparse
import ctypes
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

SR = 44100
CH = 2
FRAME_BYTES = 4 * CH                  # float32le stereo on the sink and in parec
SILENCE = 1e-3                        # |x| above this (-60 dBFS) counts as sound

# Test signals (made by make_tracks)
SEEK_SPLIT = 30.0                     # seek.wav: tone A before, tone B after this source time
TONE_A, TONE_B = 440.0, 1250.0
CHIRP_F0, CHIRP_F1, CHIRP_P = 300.0, 3300.0, 1.5   # chirp.wav: sawtooth chirp, period CHIRP_P s
CHIRP_K = (CHIRP_F1 - CHIRP_F0) / CHIRP_P          # Hz per second of source: 2 Hz per ms
SEEK_TARGETS_B = [35.0, 40.0, 45.0, 50.0, 55.0]
SEEK_TARGETS_A = [5.0, 10.0, 15.0, 20.0, 25.0]

# ------------------------------------------------------------------------------------------
# Processes: everything we start is listed, asked to die with us (PR_SET_PDEATHSIG), and
# stopped by pid in cleanup(), which runs on normal exit, on exceptions and on SIGINT/TERM/HUP.

_children = []
_libc = ctypes.CDLL(None, use_errno=True)


def _die_with_parent():
    _libc.prctl(1, signal.SIGKILL)    # PR_SET_PDEATHSIG: killed if run.py dies, even by SIGKILL


def spawn(args, **kw):
    p = subprocess.Popen(args, preexec_fn=_die_with_parent, **kw)
    _children.append(p)
    return p


def stop_process(p, sig=signal.SIGTERM, timeout=3.0):
    if p.poll() is not None:
        return
    try:
        p.send_signal(sig)
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(5)
    except ProcessLookupError:
        pass


def cleanup():
    while _children:
        p = _children.pop()
        try:
            stop_process(p)
        except Exception as e:  # keep going: the others still need stopping
            print('cleanup: %s: %s' % (p.args[0], e), file=sys.stderr)


def _on_signal(sig, frame):
    raise SystemExit(128 + sig)


def run_quiet(args, env=None, timeout=120):
    r = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError('%s failed (%d): %s' % (' '.join(args), r.returncode, r.stderr.decode(errors='replace')[-2000:]))
    return r.stdout


# ------------------------------------------------------------------------------------------
# Signals

def write_wav(path, x, tmp):
    """x: float array, frames x 2. Written as 32-bit float WAV through sox (exact)."""
    raw = os.path.join(tmp, 'tmp.f32')
    np.ascontiguousarray(x, dtype='<f4').tofile(raw)
    run_quiet(['sox', '-t', 'f32', '-r', str(SR), '-c', '2', raw, '-e', 'floating-point', '-b', '32', path])
    os.remove(raw)


def read_wav(path, tmp):
    """Any file sox reads -> float64 frames x channels (stereo kept)."""
    raw = os.path.join(tmp, 'read.f32')
    run_quiet(['sox', path, '-t', 'f32', '-r', str(SR), '-c', '2', raw])
    x = np.fromfile(raw, dtype='<f4').astype(np.float64).reshape(-1, 2)
    os.remove(raw)
    return x


def make_launch_tracks(d):
    """launch.wav and warm.wav in `d` (also for bench/realtime/first-write.py)."""
    os.makedirs(d, exist_ok=True)
    t = {}
    rng = np.random.default_rng(1)
    n = int(1.0 * SR)
    tt = np.arange(n) / SR
    # launch.wav: 1 s of chord + noise, loud from sample 0 (cosines: sample 0 is the peak).
    x = sum(0.12 * np.cos(2 * np.pi * f * tt) for f in (220.0, 277.18, 329.63, 440.0))
    x = x + 0.05 * rng.standard_normal(n)
    x[-441:] *= np.linspace(1, 0, 441)
    t['launch'] = os.path.join(d, 'launch.wav')
    write_wav(t['launch'], np.column_stack([x, 0.8 * x]), d)
    # warm.wav: 0.3 s, 100 Hz, quiet: absorbs the fresh server's first-stream penalty.
    tw = np.arange(int(0.3 * SR)) / SR
    w = 0.1 * np.sin(2 * np.pi * 100 * tw)
    t['warm'] = os.path.join(d, 'warm.wav')
    write_wav(t['warm'], np.column_stack([w, w]), d)
    return t


def make_tracks(d):
    os.makedirs(d, exist_ok=True)
    t = {}
    # music.wav (sox): a tremolo chord with pink-noise bursts every 0.25 s, stereo, 16-bit, 75 s.
    # The same recipe as bench/quality, made longer. Used for the CPU figure.
    music = os.path.join(d, 'music.wav')
    chord, burst, bursts = (os.path.join(d, n) for n in ('chord.wav', 'burst.wav', 'bursts.wav'))
    run_quiet(['sox', '-n', '-r', str(SR), '-c', '1', '-b', '24', chord, 'synth', '75', 'sine', '220', 'sine', '277.18',
               'sine', '329.63', 'sine', '440', 'sine', '554.37', 'remix', '1-5', 'tremolo', '3', '40', 'gain', '-n', '-12'])
    run_quiet(['sox', '-n', '-r', str(SR), '-c', '1', '-b', '24', '-R', burst, 'synth', '0.06', 'pinknoise',
               'fade', 'q', '0.002', '0.06', '0.055', 'gain', '-n', '-10', 'pad', '0', '0.19'])
    run_quiet(['sox', burst, bursts, 'repeat', '299'])
    run_quiet(['sox', '-m', chord, bursts, '-c', '2', '-b', '16', music, 'remix', '1', '1v0.7'])
    for f in (chord, burst, bursts):
        os.remove(f)
    t['music'] = music
    t['music_float'] = os.path.join(d, 'music_float.wav')     # for aplay (writes what it reads)
    run_quiet(['sox', music, '-e', 'floating-point', '-b', '32', t['music_float']])

    tmp = d
    t.update(make_launch_tracks(d))
    # seek.wav: 60 s, TONE_A until SEEK_SPLIT, TONE_B after.
    ts = np.arange(int(60 * SR)) / SR
    s = np.where(ts < SEEK_SPLIT, 0.4 * np.sin(2 * np.pi * TONE_A * ts), 0.4 * np.sin(2 * np.pi * TONE_B * ts))
    t['seek'] = os.path.join(d, 'seek.wav')
    write_wav(t['seek'], np.column_stack([s, s]), tmp)
    # chirp.wav: 60 s of a sawtooth chirp, CHIRP_F0 -> CHIRP_F1 linearly every CHIRP_P s. A
    # pitch-preserving stretch keeps the frequency, so the frequency heard tells the source
    # position (mod CHIRP_P) to 0.5 ms per Hz.
    u = np.mod(ts, CHIRP_P)
    c = 0.4 * np.sin(2 * np.pi * (CHIRP_F0 * u + CHIRP_K * u * u / 2))
    t['chirp'] = os.path.join(d, 'chirp.wav')
    write_wav(t['chirp'], np.column_stack([c, c]), tmp)
    return t


# ------------------------------------------------------------------------------------------
# The rig: private PulseAudio with a real-time null sink, parec on its monitor.

class Rig:
    def __init__(self, work, monitor_latency_ms, sink_options=''):
        """`sink_options`: more module-null-sink arguments (bench/session adds norewinds=1)."""
        self.dir = tempfile.mkdtemp(prefix='pulse-', dir=work)
        os.makedirs(os.path.join(self.dir, 'pulse'))
        # Players keep their journal here, not in the person's.
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.dir, PULSE_SERVER='unix:%s/pulse/native' % self.dir,
                        XDG_DATA_HOME=os.path.join(self.dir, 'data'))
        self.log = os.path.join(self.dir, 'pulse.log')
        self.daemon = spawn(['pulseaudio', '-n', '--daemonize=no', '--exit-idle-time=-1', '--disallow-exit', '--enable-memfd=no',
                             '--use-pid-file=no', '--log-target=file:' + self.log,
                             '-L', ('module-null-sink sink_name=practice_sink format=float32le rate=%d channels=2 %s'
                                    % (SR, sink_options)).rstrip(),
                             '-L', 'module-native-protocol-unix auth-anonymous=1 socket=%s/pulse/native' % self.dir],
                            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while True:
            if self.daemon.poll() is not None:
                raise RuntimeError('pulseaudio exited (%s); see %s' % (self.daemon.returncode, self.log))
            if subprocess.run(['pactl', 'info'], env=self.env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError('pulseaudio did not answer within 15 s; see %s' % self.log)
            time.sleep(0.02)
        run_quiet(['pactl', 'set-default-sink', 'practice_sink'], env=self.env)
        self.monitor_latency_ms = monitor_latency_ms
        self.lock = threading.Lock()
        self.arrival = []          # time.monotonic() after each read
        self.nframes = []          # frames in each read
        self.peak = []             # max |x| in each read
        self.data = []             # bytes of each read, or None when not kept
        self.keep = True
        self.recorder = None

    def start_recording(self):
        self.recorder = spawn(['parec', '-d', 'practice_sink.monitor', '--format=float32le', '--rate=%d' % SR,
                               '--channels=2', '--latency-msec=%d' % self.monitor_latency_ms],
                              env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        fd = self.recorder.stdout.fileno()
        carry = b''
        while True:
            b = os.read(fd, 1 << 16)
            now = time.monotonic()
            if not b:
                break
            b = carry + b
            usable = len(b) // FRAME_BYTES * FRAME_BYTES
            chunk, carry = b[:usable], b[usable:]
            if not chunk:
                continue
            x = np.frombuffer(chunk, dtype='<f4')
            with self.lock:
                self.arrival.append(now)
                self.nframes.append(usable // FRAME_BYTES)
                self.peak.append(float(np.max(np.abs(x))))
                self.data.append(chunk if self.keep else None)

    def reads(self):
        with self.lock:
            return len(self.arrival)

    def warm_up(self, player, track, tries=5):
        """Plays `track` until the monitor has carried it (a fresh server's first stream comes
        out about 2 s late, and now and then not at all)."""
        for _ in range(tries):
            t = time.monotonic()
            player.launch(track, 1.0).wait(30)
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                if self.loud_since(t):
                    return
                time.sleep(0.05)
        raise RuntimeError('%s: the warm-up clip never reached the monitor in %d tries' % (player.name, tries))

    def check(self):
        """Raises if the server or the recorder has gone away."""
        for p, what in ((self.daemon, 'pulseaudio'), (self.recorder, 'parec')):
            if p is not None and p.poll() is not None:
                raise RuntimeError('%s exited during the run (status %s); its log is kept in logs/pulse.log'
                                   % (what, p.returncode))

    def loud_since(self, t):
        with self.lock:
            return any(p >= SILENCE for a, p in zip(self.arrival[-5000:], self.peak[-5000:]) if a > t)

    def wait_silence(self, seconds=0.3, timeout=10):
        """Waits until the monitor has carried only silence, or nothing, for `seconds`."""
        self.check()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.loud_since(time.monotonic() - seconds):
                return
            time.sleep(0.05)
        raise RuntimeError('the monitor did not fall silent within %g s' % timeout)

    def stop_recording(self):
        if self.recorder is not None:
            stop_process(self.recorder)
            self.reader.join(5)


class Capture:
    """What parec delivered, with a clock: frame n (counted from the first read) is played on
    the sink's nominal clock at c + n / SR, where c is the lower envelope (10th percentile over
    +-2 s) of arrival - frames received before that read / SR. The monitor stops delivering
    while nothing plays, so c is found separately for each stretch of reads without a pause
    (> GAP s between reads). See README: 'The clock'."""
    GAP = 0.1

    def __init__(self, rig):
        with rig.lock:
            self.arrival = np.array(rig.arrival)
            self.n = np.array(rig.nframes, dtype=np.int64)
            self.data = list(rig.data)
        self.end = np.cumsum(self.n)
        self.start = self.end - self.n
        self.o = self.arrival - self.start / SR
        breaks = np.nonzero(np.diff(self.arrival) > self.GAP)[0] + 1
        self.segments = list(zip(np.concatenate([[0], breaks]), np.concatenate([breaks, [len(self.arrival)]])))
        self.env = np.empty(len(self.arrival))
        for i0, i1 in self.segments:
            t = self.arrival[i0:i1]
            o = self.o[i0:i1]
            grid = np.arange(t[0], t[-1] + 0.25, 0.25)
            lo = np.searchsorted(t, grid - 2.0)
            hi = np.searchsorted(t, grid + 2.0)
            e = np.array([np.percentile(o[a:b], 10) if b > a else np.nan for a, b in zip(lo, hi)])
            ok = np.isfinite(e)
            e = np.interp(grid, grid[ok], e[ok])
            g = np.clip(np.round((t - t[0]) / 0.25).astype(int), 0, len(grid) - 1)
            self.env[i0:i1] = e[g]
        # spread of the offsets above the envelope: how closely reads follow a real-time clock
        self.residual = self.o - self.env

    def time_of_frame(self, frames):
        frames = np.asarray(frames)
        k = np.clip(np.searchsorted(self.end, frames, side='right'), 0, len(self.end) - 1)
        return self.env[k] + frames / SR

    def first_frame_after(self, t):
        """The first frame of the first read that arrived after time t."""
        k = int(np.searchsorted(self.arrival, t))
        return int(self.start[min(k, len(self.start) - 1)])

    def frame_at(self, t):
        """The frame whose nominal time is t (in a pause of the monitor: the next frame)."""
        k = int(np.clip(np.searchsorted(self.arrival, t), 0, len(self.arrival) - 1))
        return int(max(self.start[k], min(self.end[k], round((t - self.env[k]) * SR))))

    def frames(self, a, b):
        """Captured frames [a, b) as float64 (frames x 2)."""
        k0 = int(np.searchsorted(self.end, a, side='right'))
        k1 = int(np.searchsorted(self.start, b, side='left'))
        parts = []
        for k in range(k0, k1):
            if self.data[k] is None:
                raise RuntimeError('capture frames %d-%d were not kept' % (a, b))
            parts.append(self.data[k])
        x = np.frombuffer(b''.join(parts), dtype='<f4').astype(np.float64).reshape(-1, 2)
        off = a - int(self.start[k0])
        return x[off:off + (b - a)]


# ------------------------------------------------------------------------------------------
# Players

class Practice:
    name = 'practice'

    def __init__(self, binary, env, logdir, name='practice'):
        self.binary, self.env, self.logdir, self.name = binary, env, logdir, name
        self.extra = os.environ.get('PRACTICE_ARGS', '').split()   # e.g. --no-mpris, to find what a launch costs
        self.p = None

    def command(self, track, rate, start=None, control=False):
        args = [self.binary, 'play', track, '--rate', '%g' % rate, '--device', 'pulse'] + self.extra
        if start is not None:
            args += ['--from', '%g' % start]
        if control:
            args += ['--control', 'stdin']
        return args

    def launch(self, track, rate, start=None, control=False):
        log = open(os.path.join(self.logdir, self.name + '.log'), 'ab')
        self.p = spawn(self.command(track, rate, start, control), env=self.env,
                       stdin=subprocess.PIPE if control else subprocess.DEVNULL,
                       stdout=subprocess.PIPE if control else subprocess.DEVNULL, stderr=log)
        log.close()
        self.events = []
        if control:
            threading.Thread(target=self._drain, args=(self.p.stdout,), daemon=True).start()
        return self.p

    def _drain(self, f):
        for line in f:
            self.events.append((time.monotonic(), line))

    def _send(self, obj):
        line = (json.dumps(obj) + '\n').encode()
        t = time.monotonic()
        self.p.stdin.write(line)
        self.p.stdin.flush()
        return t

    def seek(self, to):
        return self._send({'cmd': 'seek', 'to': to})

    def rate(self, value):
        return self._send({'cmd': 'rate', 'value': value})

    def quit(self):
        try:
            self._send({'cmd': 'quit'})
            self.p.wait(3)
        except Exception:
            pass
        stop_process(self.p)


class Mpv:
    name = 'mpv'

    def __init__(self, env, logdir, ao):
        self.env, self.logdir, self.ao = env, logdir, ao
        self.p = None
        self.sock_path = os.path.join(logdir, 'mpv.sock')

    def command(self, track, rate, start=None, control=False):
        args = ['mpv', '--no-config', '--no-video', '--input-terminal=no', '--really-quiet']
        args += ['--ao=pulse'] if self.ao == 'pulse' else ['--ao=alsa', '--audio-device=alsa/pulse']
        args += ['--af=scaletempo2', '--speed=%g' % rate]
        if start is not None:
            args += ['--start=%g' % start]
        if control:
            args += ['--input-ipc-server=' + self.sock_path]
        return args + [track]

    def launch(self, track, rate, start=None, control=False):
        if control and os.path.exists(self.sock_path):
            os.remove(self.sock_path)
        log = open(os.path.join(self.logdir, 'mpv.log'), 'ab')
        self.p = spawn(self.command(track, rate, start, control), env=self.env,
                       stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        self.sock = None
        if control:
            deadline = time.monotonic() + 10
            while True:
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.connect(self.sock_path)
                    break
                except OSError:
                    s.close()
                    if self.p.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError('mpv IPC socket did not appear')
                    time.sleep(0.02)
            self.sock = s
            threading.Thread(target=self._drain, daemon=True).start()
        return self.p

    def _drain(self):
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def _send(self, command):
        line = (json.dumps({'command': command}) + '\n').encode()
        t = time.monotonic()
        self.sock.sendall(line)
        return t

    def seek(self, to):
        return self._send(['seek', to, 'absolute'])

    def rate(self, value):
        return self._send(['set_property', 'speed', value])

    def quit(self):
        try:
            self._send(['quit'])
            self.p.wait(3)
        except Exception:
            pass
        try:
            self.sock.close()
        except Exception:
            pass
        stop_process(self.p)


class Aplay:
    """The launch's floor: ALSA's own player writing the track's samples as they are (no decoding
    beyond WAV, no stretching, no threads), through the same ALSA pulse PCM with practice's
    period and buffer (10/100 ms). Launches only; it plays at 1x whatever rate is asked."""
    name = 'aplay'

    def __init__(self, env, logdir):
        self.env, self.logdir = env, logdir

    def launch(self, track, rate, start=None, control=False):
        log = open(os.path.join(self.logdir, 'aplay.log'), 'ab')
        p = spawn(['aplay', '-q', '-D', 'pulse', '--period-time=10000', '--buffer-time=100000', track],
                  env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        return p


# ------------------------------------------------------------------------------------------
# Measurements (recording side: only timestamps here; analysis after the capture stops)

def process_cpu(pid):
    """CPU seconds (user + sys) of process `pid` so far, from /proc."""
    with open('/proc/%d/stat' % pid) as f:
        s = f.read()
    fields = s[s.rindex(')') + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def cpu_run(rig, name, argv, seconds, settle=None):
    """Runs `argv` (a player at 0.8x) for `seconds` of wall time; CPU of the whole process, and
    with `settle`, also from `settle` seconds in to the end (`settled_pct`: a drilled loop's
    repeats once its passes are made)."""
    rig.wait_silence(0.3)
    rig.keep = False
    k0 = rig.reads()
    t0 = time.monotonic()
    p = spawn(argv, env=rig.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid = p.pid
    settled = None
    if settle is not None:
        time.sleep(max(0.0, t0 + settle - time.monotonic()))
        settled = (time.monotonic(), process_cpu(pid))
    time.sleep(max(0.0, t0 + seconds - time.monotonic()))
    if p.poll() is not None:
        raise RuntimeError('%s exited early (%s) during the CPU run' % (name, p.returncode))
    threads = []
    try:
        for tid in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/stat' % (pid, tid)) as f:
                s = f.read()
            comm = s[s.index('(') + 1:s.rindex(')')]
            fields = s[s.rindex(')') + 2:].split()
            threads.append((comm, (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')))
        with open('/proc/%d/stat' % pid) as f:
            s = f.read()
        fields = s[s.rindex(')') + 2:].split()
        stat_cpu = (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    except OSError:
        stat_cpu = float('nan')
    t_stat = time.monotonic()
    settled_pct = 100 * (stat_cpu - settled[1]) / (t_stat - settled[0]) if settled else None
    p.send_signal(signal.SIGTERM)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.monotonic()
    p.returncode = status
    k1 = rig.reads()
    rig.keep = True
    cpu = ru.ru_utime + ru.ru_stime
    with rig.lock:
        n = rig.nframes[k0:k1]
        pk = rig.peak[k0:k1]
    sound = sum(a for a, b in zip(n, pk) if b >= SILENCE) / SR
    return dict(player=name, argv=argv, wall=t1 - t0, cpu=cpu, pct=100 * cpu / (t1 - t0),
                stat_pct=100 * stat_cpu / (t_stat - t0), settle=settle, settled_pct=settled_pct, sound_s=sound, rss_kb=ru.ru_maxrss,
                threads=sorted(threads, key=lambda x: -x[1])[:6])


def launch_run(rig, player, track, rate):
    rig.wait_silence(0.3)
    t0 = time.monotonic()
    p = player.launch(track, rate)
    try:
        p.wait(15)
    except subprocess.TimeoutExpired:
        stop_process(p)
        raise RuntimeError('%s did not finish a 1 s track in 15 s' % player.name)
    if p.returncode != 0:
        rig.check()
        raise RuntimeError('%s failed (status %s); see %s' % (player.name, p.returncode, player.logdir))
    time.sleep(0.2)
    return dict(player=player.name, t0=t0, t1=time.monotonic(), rc=p.returncode)


def seek_plan(count, first):
    """The seeks of a session: (target, old tone, new tone), from tone A's region to B's and back,
    the `first`-th onwards (the sessions of a run go on where the one before stopped)."""
    region = 'A'
    for i in range(count):
        j = (first + i) // 2
        if region == 'A':
            yield SEEK_TARGETS_B[j % 5], TONE_A, TONE_B
            region = 'B'
        else:
            yield SEEK_TARGETS_A[j % 5], TONE_B, TONE_A
            region = 'A'


def seek_session(rig, player, track, count, spacing, first):
    """Plays seek.wav at 0.8 from 2 s and seeks back and forth between the two tones."""
    rig.wait_silence(0.3)
    player.launch(track, 0.8, start=2.0, control=True)
    time.sleep(1.5)
    events = []
    for to, old, new in seek_plan(count, first):
        t = player.seek(to)
        events.append(dict(player=player.name, t=t, to=to, old=old, new=new, until=t + spacing - 0.05))
        time.sleep(max(0.0, t + spacing - time.monotonic()))
    if player.p.poll() is not None:
        raise RuntimeError('%s exited during the seek session' % player.name)
    player.quit()
    return events


def marker_name(to):
    return ('A' if to < SEEK_SPLIT else 'B') + '%g' % to


def remote_client():
    """The tests' phone (Tests/PracticeEndToEndTests/remote-client.py): Chromium over DevTools."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'Tests', 'PracticeEndToEndTests', 'remote-client.py')
    spec = importlib.util.spec_from_file_location('remote_client', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def remote_session(rig, binary, logdir, track, count, spacing, first, loads):
    """Plays seek.wav at 0.8 from 2 s with the phone remote on; Chromium, paired as a phone,
    loads the page `loads` times (ms from navigation to the page live) and taps the markers'
    buttons between the two tones, as seek_session seeks."""
    rc = remote_client()
    rig.wait_silence(0.3)
    state = os.path.join(logdir, 'remote-state')
    env = dict(rig.env, XDG_STATE_HOME=state)
    log = open(os.path.join(logdir, 'practice-remote.log'), 'ab')
    p = spawn([binary, 'play', track, '--rate', '0.8', '--from', '2', '--device', 'pulse', '--control', 'stdin', '--no-journal',
               '--remote', '--remote-bind', '127.0.0.1:0'], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
              stderr=subprocess.PIPE)
    pairing = None
    for line in p.stderr:
        log.write(line)
        text = line.decode(errors='replace')
        if 'open HTTP://' in text:
            pairing = text.split('open ')[1].split(')')[0]
            break
    threading.Thread(target=lambda: [log.write(l) for l in p.stderr], daemon=True).start()
    if pairing is None:
        raise RuntimeError('practice did not say where its remote is (see %s)' % log.name)
    chrome, port = rc.chromium(popen=spawn)
    d = rc.phone(rc.page_target(port), pairing)
    origin = pairing.split('/P/')[0].lower()
    load_ms = []
    for _ in range(loads):
        d.call('Page.navigate', url=origin + '/')
        d.until(rc.LIVE + " && performance.getEntriesByName('practice-live').length > 0")
        load_ms.append(d.js("performance.getEntriesByName('practice-live')[0].startTime"))
    time.sleep(1.0)
    events = []
    for to, old, new in seek_plan(count, first):
        button = json.dumps('[data-marker="%s"]' % marker_name(to))
        t = time.monotonic()
        d.js('document.querySelector(%s).click()' % button)
        events.append(dict(player='practice (phone)', t=t, to=to, old=old, new=new, until=t + spacing - 0.05))
        time.sleep(max(0.0, t + spacing - time.monotonic()))
    if p.poll() is not None:
        raise RuntimeError('practice exited during the remote session')
    stop_process(chrome)
    try:
        p.stdin.write(b'{"cmd":"quit"}\n')
        p.stdin.flush()
        p.wait(3)
    except Exception:
        pass
    stop_process(p)
    log.close()
    return events, load_ms


def cpu_of(pid):
    """CPU seconds of the whole process: the sum of its threads' time on a CPU from
    /proc/PID/task/*/schedstat (nanoseconds; the tick-based utime and stime in /proc/PID/stat
    are 10 ms steps, too coarse for a paused player, and miss short wake-ups)."""
    total = 0
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass   # a thread that ended meanwhile
    return total / 1e9


def phones_run(rig, binary, logdir, track, seconds, variant):
    """practice playing `track` at 0.8: `variant` 'off' (no --remote), 'idle' (--remote, no page) or
    'phones' (two phones paired and live: each a browser context of its own in one headless
    Chromium, so each its own cookie, as two phones are). CPU of the player's threads over
    `seconds` from 1 s after the phones are live (or the same moment without them), and the whole
    process's peak RSS."""
    rig.wait_silence(0.3)
    rig.keep = False
    state = tempfile.mkdtemp(prefix='state-', dir=logdir)
    env = dict(rig.env, XDG_STATE_HOME=state)
    argv = [binary, 'play', track, '--rate', '0.8', '--device', 'pulse', '--no-journal']
    if variant != 'off':
        argv += ['--remote', '--remote-bind', '127.0.0.1:0']
    log = open(os.path.join(logdir, 'practice-phones.log'), 'ab')
    p = spawn(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t_start = time.monotonic()
    pages, chrome = [], None
    if variant != 'off':
        pairing = None
        for line in p.stderr:
            log.write(line)
            if b'open HTTP://' in line:
                pairing = line.decode(errors='replace').split('open ')[1].split(')')[0]
                break
        if pairing is None:
            raise RuntimeError('practice did not say where its remote is (see %s)' % log.name)
    threading.Thread(target=lambda: [log.write(l) for l in p.stderr], daemon=True).start()
    if variant == 'phones':
        rc = remote_client()
        chrome, port = rc.chromium(popen=spawn)
        import urllib.request
        browser = rc.DevTools(json.load(urllib.request.urlopen('http://127.0.0.1:%s/json/version' % port))['webSocketDebuggerUrl'])
        for i in range(2):
            if i > 0:
                # The next phone's code: what `practice remote` prints for a player already running.
                out = subprocess.run([binary, 'remote'], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=10).stdout.decode()
                pairing = out.split('(or open ')[1].split(')')[0]
            context = browser.call('Target.createBrowserContext')['browserContextId']
            target = browser.call('Target.createTarget', url='about:blank', browserContextId=context)['targetId']
            pages.append(rc.phone('ws://127.0.0.1:%s/devtools/page/%s' % (port, target), pairing))
    else:
        time.sleep(max(0.0, t_start + 1.5 - time.monotonic()))   # as long as two phones take to pair
    time.sleep(1.0)
    if p.poll() is not None:
        raise RuntimeError('practice exited early (%s) during the phones run' % p.returncode)
    c0, t0 = cpu_of(p.pid), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_of(p.pid), time.monotonic()
    live = [d.js("document.getElementById('link').textContent") for d in pages]
    if p.poll() is not None:
        raise RuntimeError('practice exited early (%s) during the phones run' % p.returncode)
    if chrome is not None:
        stop_process(chrome)
    p.send_signal(signal.SIGTERM)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status
    log.close()
    shutil.rmtree(state, ignore_errors=True)
    rig.keep = True
    return dict(player='practice', variant=variant, pct=100 * (c1 - c0) / (t1 - t0), wall=t1 - t0,
                rss_kb=ru.ru_maxrss, pages=live)


def rate_session(rig, player, track, count, hold, rest):
    """Plays chirp.wav at 0.8; switches to 1.0 (measured), holds, back to 0.8, rests."""
    rig.wait_silence(0.3)
    player.launch(track, 0.8, start=1.0, control=True)
    time.sleep(1.5)
    events = []
    for i in range(count):
        t = player.rate(1.0)
        events.append(dict(player=player.name, kind='0.8->1.0', t=t, until=t + hold - 0.05))
        time.sleep(max(0.0, t + hold - time.monotonic()))
        t = player.rate(0.8)
        events.append(dict(player=player.name, kind='1.0->0.8', t=t, until=t + rest - 0.05))
        time.sleep(max(0.0, t + rest - time.monotonic()))
    if player.p.poll() is not None:
        raise RuntimeError('%s exited during the rate session' % player.name)
    player.quit()
    return events


# ------------------------------------------------------------------------------------------
# Analysis

def boxcar(x, n):
    """Centred moving average (same length)."""
    c = np.cumsum(np.concatenate([np.zeros(1), x]))
    out = (c[n:] - c[:-n]) / n
    pad_l = (n - 1) // 2
    return np.concatenate([np.full(pad_l, out[0]), out, np.full(len(x) - len(out) - pad_l, out[-1])])


def tone_amplitude(x, f, n=256):
    """Amplitude of the component at f Hz, by complex demodulation and an n-frame boxcar."""
    ph = np.exp(-2j * np.pi * f * np.arange(len(x)) / SR)
    z = x * ph
    return 2 * np.abs(boxcar(z.real, n) + 1j * boxcar(z.imag, n))


def analytic(x):
    n = len(x)
    X = np.fft.fft(x)
    h = np.zeros(n)
    h[0] = 1
    if n % 2 == 0:
        h[n // 2] = 1
        h[1:n // 2] = 2
    else:
        h[1:(n + 1) // 2] = 2
    return np.fft.ifft(X * h)


def analyze_launch(cap, run, ref):
    a = cap.first_frame_after(run['t0'])
    b = cap.frame_at(run['t1'])
    x = cap.frames(a, b)
    loud = np.nonzero(np.max(np.abs(x), axis=1) >= SILENCE)[0]
    if len(loud) == 0:
        return dict(run, latency=None, note='no sound captured')
    n = a + int(loud[0])
    lat = float(cap.time_of_frame(n) - run['t0'])
    # Head: which frame of the player's own render is the first one captured?
    head = None
    refm = ref.mean(axis=1)
    ref_first = int(np.nonzero(np.abs(refm) >= SILENCE)[0][0])
    L = 4096
    seg = cap.frames(n, n + L).mean(axis=1)
    if len(seg) == L:
        span = refm[ref_first:ref_first + int(0.5 * SR) + L]
        best, best_h = -1.0, None
        # normalised cross-correlation over lags 0 .. 0.5 s
        corr = np.correlate(span, seg, mode='valid')
        e = np.sqrt(np.convolve(span ** 2, np.ones(L), mode='valid') * np.sum(seg ** 2)) + 1e-12
        r = corr / e
        best_h = int(np.argmax(r))
        best = float(r[best_h])
        if best > 0.9:
            head = best_h
    return dict(run, latency=lat, head=head,
                corrected=None if head is None else lat - head / SR)


def analyze_seek(cap, ev):
    a = cap.frame_at(ev['t'] - 0.15)
    b = cap.frame_at(ev['until'])
    x = cap.frames(a, b).mean(axis=1)
    t = cap.time_of_frame(np.arange(a, b))
    old = tone_amplitude(x, ev['old'])
    new = tone_amplitude(x, ev['new'])
    before = (t < ev['t'] - 0.01)
    level = np.median(old[before]) if before.any() else np.nan
    after = t >= ev['t']
    res = dict(ev, level=float(level))
    if not np.isfinite(level) or level < 0.05:
        res.update(latency=None, note='old tone not playing before the command')
        return res
    on = np.nonzero(after & (new > 0.5 * level))[0]
    off = np.nonzero(after & (old < 0.5 * level))[0]
    res['latency'] = float(t[on[0]] - ev['t']) if len(on) else None
    res['old_stops'] = float(t[off[0]] - ev['t']) if len(off) else None
    return res


def chirp_lag(x):
    """For captured chirp frames x (mono): d[n] = (source position heard, mod CHIRP_P) - n / SR,
    unwrapped, or nan where the chirp is not clean (silence, wrap of the sawtooth, splices)."""
    z = analytic(x)
    amp = boxcar(np.abs(z), 64)
    phase = np.unwrap(np.angle(z))
    inst = np.diff(phase) * SR / (2 * np.pi)
    inst = np.concatenate([inst, inst[-1:]])
    f = boxcar(inst, 64)
    level = np.median(amp[amp > 0.05]) if np.any(amp > 0.05) else 0
    ok = (amp > 0.5 * level) & (f > CHIRP_F0 + 40) & (f < CHIRP_F1 - 40)
    # The sawtooth's wrap (3300 -> 300 Hz) smears over the smoothing window: drop every frame
    # within 128 frames of a fast frequency change (> 200 Hz over 64 frames; the chirp itself
    # moves 3 Hz, a stretcher's splice some tens of Hz).
    g = np.abs(np.roll(f, -32) - np.roll(f, 32))
    ok &= boxcar((g > 200).astype(float), 257) == 0
    pos = (f - CHIRP_F0) / CHIRP_K
    d = pos - np.arange(len(x)) / SR
    out = np.full(len(x), np.nan)
    if ok.any():
        out[ok] = np.unwrap(d[ok], period=CHIRP_P)
    return out


def analyze_rate(cap, ev, tol):
    a = cap.frame_at(ev['t'] - 0.3)
    b = cap.frame_at(ev['until'])
    m = 4096                      # margin: the FFT-based analytic signal is wrong near the ends
    x = cap.frames(a - m, b + m).mean(axis=1)
    t = cap.time_of_frame(np.arange(a, b))
    d = chirp_lag(x)[m:m + (b - a)]
    ok = np.isfinite(d)
    res = dict(ev)
    if ev['kind'] == '0.8->1.0':
        # New rate heard = start of the final stretch where the source position advances at
        # exactly one second per second (d constant): after the last frame that is off it.
        tail = ok & (t >= ev['until'] - 0.3)
        if tail.sum() < 1000:
            res.update(latency=None, note='no clean chirp at the end of the window')
            return res
        final = np.median(d[tail])
        spread = np.percentile(np.abs(d[tail] - final), 99)
        res['plateau_spread_ms'] = float(1000 * spread)
        off = np.nonzero(ok & (np.abs(d - final) > tol))[0]
        off = off[t[off] >= ev['t'] - 0.25]
        if len(off) == 0:
            res.update(latency=None, note='no frame at the old rate in the window')
            return res
        last = off[-1]
        nxt = np.nonzero(ok & (np.arange(len(d)) > last))[0]
        res['latency'] = float(t[nxt[0]] - ev['t']) if len(nxt) else None
        # the slope before the command: should be -0.2 s per s at 0.8
        pre = ok & (t < ev['t']) & (t > ev['t'] - 0.25)
        if pre.sum() > 1000:
            slope, icpt = np.polyfit(t[pre] - ev['t'], d[pre], 1)
            res['slope_before'] = float(slope)
            if res['latency'] is not None:
                # source position heard right after the change minus where the old rate would
                # have been at that moment: 0 for a seamless change
                res['jump_ms'] = float(1000 * (final - (icpt + slope * res['latency'])))
    else:
        # Leaving 1.0: first frame after the command whose source position is off the
        # one-second-per-second line (a splice of the stretcher, or the restart of the stream).
        pre = ok & (t < ev['t']) & (t > ev['t'] - 0.25)
        if pre.sum() < 1000:
            res.update(latency=None, note='no clean chirp before the command')
            return res
        base = np.median(d[pre])
        off = np.nonzero(ok & (t >= ev['t']) & (np.abs(d - base) > tol))[0]
        res['latency'] = float(t[off[0]] - ev['t']) if len(off) else None
    return res


# ------------------------------------------------------------------------------------------

def med(xs):
    xs = [x for x in xs if x is not None]
    return float(np.median(xs)) if xs else None


def fmt(v, unit_scale=1.0, digits=1):
    return '-' if v is None else '%.*f' % (digits, v * unit_scale)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--practice', default=os.path.join(here, '..', '..', '.build', 'release', 'practice'),
                    help='our player (default: .build/release/practice of this repository)')
    ap.add_argument('--out', default='/tmp/practice-realtime', help='work folder (tracks, logs, results.json)')
    ap.add_argument('--cpu-seconds', type=float, default=60.0, help='wall time of each CPU run (default 60)')
    ap.add_argument('--cpu-reps', type=int, default=2, help='CPU runs per player, interleaved (default 2)')
    ap.add_argument('--launches', type=int, default=5, help='launches per player (default 5)')
    ap.add_argument('--commands', type=int, default=10, help='seeks and rate changes per player (default 10)')
    ap.add_argument('--mpv-ao', choices=['pulse', 'alsa'], default='pulse',
                    help="mpv's output: pulse (--ao=pulse) or alsa (--ao=alsa --audio-device=alsa/pulse, "
                         "the ALSA pulse PCM that practice uses); default pulse")
    ap.add_argument('--monitor-latency-ms', type=int, default=5,
                    help="parec --latency-msec on the sink's monitor; sets the sink's block (default 5: "
                         "at 20 the sink's own blocks are most of every command's latency, for both players)")
    ap.add_argument('--cpu-variants', type=float, default=15, metavar='SECONDS',
                    help='CPU variants (practice without stretch, other profiles, aplay) run for '
                         'SECONDS each; 0 leaves them out (default 15)')
    ap.add_argument('--against', metavar='BINARY',
                    help="launch: another build of practice launched in turn with the others (the same player's "
                         'binary before a change), reported beside it')
    ap.add_argument('--launch-container', choices=['wav', 'm4a'], default='wav',
                    help='the launch track as a WAV (default) or an M4A (AAC, decoded through FFmpeg)')
    ap.add_argument('--tests', default='launch,seek,rate,remote,cpu',
                    help='which measurements to make, comma-separated (default launch,seek,rate,remote,cpu)')
    ap.add_argument('--phone-seconds', type=float, default=30.0, help='phones: CPU measured over this long a run (default 30)')
    ap.add_argument('--phone-reps', type=int, default=3, help='phones: runs of each variant, alternately (default 3)')
    ap.add_argument('--page-loads', type=int, default=5, help='remote: loads of the page (default 5)')
    ap.add_argument('--tol-ms', type=float, default=1.0,
                    help='rate test: distance from the 1 s/s line that counts as off it (default 1 ms)')
    args = ap.parse_args()

    practice_bin = os.path.abspath(args.practice)
    if not os.access(practice_bin, os.X_OK):
        sys.exit('run.py: %s not found (build it, or pass --practice)' % practice_bin)
    if args.against and not os.access(args.against, os.X_OK):
        sys.exit('run.py: --against %s: no such program' % args.against)
    for tool in ('pulseaudio', 'pactl', 'parec', 'sox', 'mpv') + (('chromium',) if {'remote', 'phones'} & set(args.tests.split(',')) else ()):
        if shutil.which(tool) is None:
            sys.exit('run.py: %s not found (apt-get install pulseaudio pulseaudio-utils libasound2-plugins sox mpv chromium; '
                     'or leave out the remote test: --tests launch,seek,rate,cpu)' % tool)

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)
    os.makedirs(args.out, exist_ok=True)
    logdir = os.path.join(args.out, 'logs')
    os.makedirs(logdir, exist_ok=True)
    for f in ('practice.log', 'mpv.log', 'aplay.log'):
        open(os.path.join(logdir, f), 'w').close()
    started = time.monotonic()
    rig = None
    try:
        print('tracks ...', flush=True)
        tracks = make_tracks(os.path.join(args.out, 'tracks'))
        if args.launch_container != 'wav':
            # The launch track in another container (a store's M4A: AAC through FFmpeg), both
            # players and their references taking the same file.
            other = os.path.join(args.out, 'tracks', 'launch.' + args.launch_container)
            run_quiet(['ffmpeg', '-v', 'error', '-y', '-i', tracks['launch'], '-c:a', 'aac', '-b:a', '256k', '-movie_timescale', '44100', other])
            tracks['launch'] = other
        # The players' own renders of launch.wav at 0.8: what each should play first.
        ref_p = os.path.join(args.out, 'tracks', 'ref_practice.wav')
        ref_m = os.path.join(args.out, 'tracks', 'ref_mpv.wav')
        # --quality fast: play's stretcher (render's own default is Rubber Band's).
        run_quiet([practice_bin, 'render', tracks['launch'], '-o', ref_p, '--rate', '0.8', '--force',
                   '--quality', 'fast', '--sample-format', 'float', '--quiet'])
        run_quiet(['mpv', '--no-config', '--no-video', '--really-quiet', '--ao=pcm', '--ao-pcm-file=' + ref_m,
                   '--audio-format=float', '--af=scaletempo2', '--speed=0.8', tracks['launch']])
        refs = {'practice': read_wav(ref_p, args.out), 'mpv': read_wav(ref_m, args.out)}
        with_floor = shutil.which('aplay') is not None and tracks['launch'].endswith('.wav')
        if with_floor:
            refs['aplay'] = read_wav(tracks['launch'], args.out)   # it plays the track itself
        else:
            print('run.py: no aplay (alsa-utils) or not a WAV: launches without the floor', file=sys.stderr)

        rig = Rig(args.out, args.monitor_latency_ms)
        rig.start_recording()                    # recorder first (audio-testing.md)
        prac = Practice(practice_bin, rig.env, logdir)
        mpv = Mpv(rig.env, logdir, args.mpv_ao)
        against = Practice(os.path.abspath(args.against), rig.env, logdir, name='against') if args.against else None
        if against:
            refs['against'] = refs['practice']
        # warm-up: one short clip through each player
        for pl in (prac, mpv) + ((against,) if against else ()):
            rig.warm_up(pl, tracks['warm'])
        pairs = [(prac, mpv), (mpv, prac)]

        print('launch ...', flush=True)
        tests = set(args.tests.split(','))
        launches = []
        # The players in turn, each launch's order rotated: practice, mpv and aplay (the floor).
        order = [prac, mpv] + ([against] if against else []) + ([Aplay(rig.env, logdir)] if with_floor else [])
        for i in range(args.launches if 'launch' in tests else 0):
            for k in range(len(order)):
                launches.append(launch_run(rig, order[(i + k) % len(order)], tracks['launch'], 0.8))

        print('seek ...', flush=True)
        seeks = []
        half = (args.commands + 1) // 2
        for i, n in enumerate((half, args.commands - half)):
            for pl in pairs[i % 2]:
                if n and 'seek' in tests:
                    seeks += seek_session(rig, pl, tracks['seek'], n, 1.3, i * half)

        taps, loads = [], []
        if 'remote' in tests:
            print('remote ...', flush=True)
            # The markers the page's buttons jump to: the seek test's places (A5 … B55).
            if os.path.exists(tracks['seek'] + '.practice.json'):
                os.remove(tracks['seek'] + '.practice.json')
            for to in SEEK_TARGETS_A + SEEK_TARGETS_B:
                run_quiet([practice_bin, 'markers', 'add', tracks['seek'], marker_name(to), '%g' % to])
            for i, n in enumerate((half, args.commands - half)):
                if n:
                    e, l = remote_session(rig, practice_bin, logdir, tracks['seek'], n, 1.3, i * half, args.page_loads if i == 0 else 0)
                    taps += e
                    loads += l

        phones = []
        if 'phones' in tests:
            print('phones (%d x %g s each: no remote, remote and no page, two phones) ...' % (args.phone_reps, args.phone_seconds), flush=True)
            # A beat grid at 120 bpm, as `practice beats` leaves one: the page's eight-count changes
            # at every beat, so the phones are sent a state a beat (a song without one: a state a second).
            phones_track = os.path.join(args.out, 'tracks', 'phones.wav')
            shutil.copy(tracks['music'], phones_track)
            for f in (phones_track + '.practice.json',):
                if os.path.exists(f):
                    os.remove(f)
            run_quiet([practice_bin, 'beats', phones_track, '--bpm', '120', '--one', '1'])
            order = ['off', 'idle', 'phones']
            for i in range(args.phone_reps):
                for variant in (order if i % 2 == 0 else order[::-1]):
                    phones.append(phones_run(rig, practice_bin, logdir, phones_track, args.phone_seconds, variant))

        print('rate ...', flush=True)
        rates = []
        for i, n in enumerate((half, args.commands - half)):
            for pl in pairs[i % 2]:
                if n and 'rate' in tests:
                    rates += rate_session(rig, pl, tracks['chirp'], n, 1.3, 1.0)

        print('cpu (%d x %g s per player) ...' % (args.cpu_reps, args.cpu_seconds), flush=True)
        cpus = []
        for i in range(args.cpu_reps if 'cpu' in tests else 0):
            for pl in pairs[i % 2]:
                cpus.append(cpu_run(rig, pl.name, pl.command(tracks['music'], 0.8), args.cpu_seconds))
        journal = []
        if 'journal' in tests:
            # What recording the session costs: the same player with its journal and with
            # --no-journal, alternately, each run a fresh session.
            print('journal on / off (%d x %g s each) ...' % (args.cpu_reps, args.cpu_seconds), flush=True)
            runs = [('practice (journal)', []), ('practice --no-journal', ['--no-journal'])]
            for i in range(args.cpu_reps):
                for name, extra in (runs if i % 2 == 0 else runs[::-1]):
                    journal.append(cpu_run(rig, name, prac.command(tracks['music'], 0.8) + extra, args.cpu_seconds))
        variants = []
        if args.cpu_variants > 0:
            # Where practice's CPU goes: the same run without the stretcher, with SoundTouch's
            # own settings, and plain aplay through the same ALSA pulse PCM with practice's
            # period/buffer (10/100 ms) and with aplay's defaults (float input, no processing).
            print('cpu variants (%g s each) ...' % args.cpu_variants, flush=True)
            fl = tracks['music_float']
            for name, argv, settle in [
                    ('practice --rate 1 (no stretch)', prac.command(tracks['music'], 1.0), 5),
                    ('practice --profile soundtouch', prac.command(tracks['music'], 0.8) + ['--profile', 'soundtouch'], None),
                    ('practice --profile percussive', prac.command(tracks['music'], 0.8) + ['--profile', 'percussive'], None),
                    ('practice --quality high', prac.command(tracks['music'], 0.8) + ['--quality', 'high'], 5),
                    # A drilled loop at high quality: 2 s passes after a 0.5 s gap, the first
                    # live, the rest from the passes made ahead (by the practice-cache thread);
                    # "from 5 s": the repeats alone, the pass made.
                    ('practice --quality high, loop', prac.command(tracks['music'], 0.8) + ['--quality', 'high', '--loop', '10', '12', '--gap', '0.5'], 5),
                    ('practice --quality fast, loop', prac.command(tracks['music'], 0.8) + ['--loop', '10', '12', '--gap', '0.5'], 5),
                    # A plain loop (seamless): its pass as it repeats made ahead, faded into at a wrap.
                    ('practice --quality high, plain loop', prac.command(tracks['music'], 0.8) + ['--quality', 'high', '--loop', '10', '12'], 5),
                    ('aplay -D pulse 10/100 ms', ['aplay', '-q', '-D', 'pulse', '--period-time=10000', '--buffer-time=100000', fl], None),
                    ('aplay -D pulse defaults', ['aplay', '-q', '-D', 'pulse', fl], None)]:
                if argv[0] == 'aplay' and shutil.which('aplay') is None:
                    print('run.py: aplay not found (alsa-utils), skipping "%s"' % name, file=sys.stderr)
                    continue
                variants.append(cpu_run(rig, name, argv, args.cpu_variants, settle if settle is not None and settle < args.cpu_variants else None))
        rig.wait_silence(0.3)
        rig.stop_recording()
        cap = Capture(rig)
    finally:
        cleanup()               # players first (started last), then parec, then pulseaudio
        if rig is not None:
            if os.path.exists(rig.log):
                shutil.copy(rig.log, os.path.join(logdir, 'pulse.log'))
            shutil.rmtree(rig.dir, ignore_errors=True)
    measured = time.monotonic() - started

    # ---------------------------------------------------------------------- analysis
    L = [analyze_launch(cap, r, refs[r['player']]) for r in launches]
    S = [analyze_seek(cap, e) for e in seeks]
    R = [analyze_rate(cap, e, args.tol_ms / 1000) for e in rates]
    T = [analyze_seek(cap, e) for e in taps]

    def by(rows, player, key, **match):
        return [r.get(key) for r in rows if r['player'] == player and all(r.get(k) == v for k, v in match.items())]

    out = []
    say = out.append
    say('practice: %s' % practice_bin)
    say('mpv:      %s (%s), --af=scaletempo2' % (subprocess.run(['mpv', '--version'], stdout=subprocess.PIPE).stdout.decode().split('\n')[0],
                                                  '--ao=pulse' if args.mpv_ao == 'pulse' else '--ao=alsa --audio-device=alsa/pulse'))
    say('sink:     private PulseAudio null sink, float32le 44100 Hz stereo; parec --latency-msec=%d' % args.monitor_latency_ms)
    say('clock:    %d parec reads, median %d frames, in %d unbroken stretches; read offsets above the envelope: '
        'median %.2f ms, p90 %.2f ms' % (len(cap.n), int(np.median(cap.n)), len(cap.segments),
                                         1000 * np.median(cap.residual), 1000 * np.percentile(cap.residual, 90)))
    say('')
    say('CPU runs (0.8x, music.wav, whole process, user+sys / wall):')
    for c in cpus:
        say('  %-8s %6.3f %% over %.1f s  (/proc stat: %.2f %%; sound captured %.1f s; max RSS %.1f MB; threads: %s)'
            % (c['player'], c['pct'], c['wall'], c['stat_pct'], c['sound_s'], c['rss_kb'] / 1024,
               ', '.join('%s %.2fs' % t for t in c['threads'])))
    if journal:
        on = [c['pct'] for c in journal if c['player'] == 'practice (journal)']
        off = [c['pct'] for c in journal if c['player'] == 'practice --no-journal']
        pairs_on_off = [a - b for a, b in zip(on, off)]
        say('Recording the journal (0.8x, music.wav, whole process, user+sys / wall, alternate runs):')
        for c in journal:
            say('  %-22s %6.3f %% over %.1f s' % (c['player'], c['pct'], c['wall']))
        say('  median with the journal %.3f %%, without %.3f %%: recording costs %.3f %% of a core (median of the %d pairs; target <= 0.02 %%)'
            % (med(on), med(off), med(pairs_on_off), len(pairs_on_off)))
    for c in variants:
        settled = '; from %g s on %.3f %%' % (c['settle'], c['settled_pct']) if c.get('settled_pct') is not None else ''
        say('  %-31s %6.3f %% over %.1f s%s  (threads: %s)'
            % (c['player'], c['pct'], c['wall'], settled, ', '.join('%s %.2fs' % t for t in c['threads'])))
    say('')
    say('launches (launch.wav at 0.8x; ms to the first non-silent frame; head = frames of the player\'s own render missing before it):')
    for r in L:
        say('  %-8s %7s ms  head %5s frames  -> track start at %7s ms  rc=%s'
            % (r['player'], fmt(r.get('latency'), 1000), r.get('head'), fmt(r.get('corrected'), 1000), r.get('rc')))
    say('')
    say('seeks (seek.wav at 0.8x; %g Hz <-> %g Hz; ms to the new tone at half level; old tone below half level):' % (TONE_A, TONE_B))
    for r in S:
        say('  %-8s to %4.0f s: new %7s ms, old stops %7s ms%s' % (r['player'], r['to'], fmt(r.get('latency'), 1000),
                                                                   fmt(r.get('old_stops'), 1000), ('  ' + r['note']) if 'note' in r else ''))
    say('')
    if T:
        say('taps on the phone page (a marker\'s button; seek.wav at 0.8x; ms from the tap to the new tone at half level):')
        for r in T:
            say('  phone    to %4.0f s: new %7s ms, old stops %7s ms%s' % (r['to'], fmt(r.get('latency'), 1000),
                                                                       fmt(r.get('old_stops'), 1000), ('  ' + r['note']) if 'note' in r else ''))
        say('  page load -> live (ms from navigation, %d loads): %s' % (len(loads), ', '.join(fmt(x, 1, 1) for x in loads)))
        say('')
    if phones:
        say('what the phone remote costs (music.wav with a 120 bpm beat grid, at 0.8x; CPU of the player\'s threads over %g s once settled; peak RSS of the process):' % args.phone_seconds)
        for c in phones:
            say('  %-7s %6.3f %% of a core, peak RSS %6.1f MB%s' % (c['variant'], c['pct'], c['rss_kb'] / 1024,
                                                                  ('  pages: ' + ', '.join(c['pages'])) if c['pages'] else ''))
        cost = {v: med([c['pct'] for c in phones if c['variant'] == v]) for v in ('off', 'idle', 'phones')}
        rss = {v: med([c['rss_kb'] / 1024 for c in phones if c['variant'] == v]) for v in ('off', 'idle', 'phones')}
        say('  medians: without --remote %.3f %%, %.1f MB; --remote, no page %.3f %%, %.1f MB; two phones %.3f %%, %.1f MB'
            % (cost['off'], rss['off'], cost['idle'], rss['idle'], cost['phones'], rss['phones']))
        # Issue 31's figures: the server's CPU with two phones connected against without them
        # (the remote serving, no page open), and the peak RSS --remote adds.
        say('  two phones live: %+.3f %% of a core against the remote with no page (target <= 0.1 %%: %s), %+.3f %% against no remote; '
            'peak RSS %+.1f MB against no remote (target <= 10 MB: %s)'
            % (cost['phones'] - cost['idle'], 'met' if cost['phones'] - cost['idle'] <= 0.1 else 'MISSED', cost['phones'] - cost['off'],
               rss['phones'] - rss['off'], 'met' if rss['phones'] - rss['off'] <= 10 else 'MISSED'))
        say('')
    say('rate changes (chirp.wav; ms to the first frame of the final 1 s/s stretch, tol %.1f ms; slope before = d(lag)/dt, -0.2 at 0.8x):' % args.tol_ms)
    for r in R:
        if r['kind'] == '0.8->1.0':
            say('  %-8s 0.8->1.0: %7s ms  (slope before %s, position jump %s ms, plateau spread %s ms)%s'
                % (r['player'], fmt(r.get('latency'), 1000), fmt(r.get('slope_before'), 1, 3), fmt(r.get('jump_ms'), 1, 1),
                   fmt(r.get('plateau_spread_ms'), 1, 2),
                   ('  ' + r['note']) if 'note' in r else ''))
    for r in R:
        if r['kind'] == '1.0->0.8':
            say('  %-8s 1.0->0.8: %7s ms (first frame off the 1 s/s line)' % (r['player'], fmt(r.get('latency'), 1000)))

    # per-repetition CPU ratios
    cp = by(cpus, 'practice', 'pct')
    cm = by(cpus, 'mpv', 'pct')
    cpu_ratio = med([a / b for a, b in zip(cp, cm)])
    rows = [
        ('CPU at 0.8x, % of one core', '%', cp, cm, cpu_ratio, '<= 1 %', 3, 1.0),
        ('launch -> first audible, ms', 'ms', [x * 1000 for x in by(L, 'practice', 'latency') if x is not None],
         [x * 1000 for x in by(L, 'mpv', 'latency') if x is not None], None, '<= 20 ms', 1, 20.0),
        ('seek -> new position audible, ms', 'ms', [x * 1000 for x in by(S, 'practice', 'latency') if x is not None],
         [x * 1000 for x in by(S, 'mpv', 'latency') if x is not None], None, '<= 10 ms', 1, 10.0),
        ('phone tap -> new position audible, ms', 'ms', [x * 1000 for x in by(T, 'practice (phone)', 'latency') if x is not None],
         [x * 1000 for x in by(S, 'mpv', 'latency') if x is not None], None, '<= 50 ms', 1, 50.0),
        ('phone page load -> live, ms', 'ms', loads, [], None, '<= 200 ms', 1, 200.0),
        ('rate 0.8 -> 1.0 audible, ms', 'ms', [x * 1000 for x in by(R, 'practice', 'latency', kind='0.8->1.0') if x is not None],
         [x * 1000 for x in by(R, 'mpv', 'latency', kind='0.8->1.0') if x is not None], None, '<= 10 ms', 1, 10.0),
    ]
    say('')
    say('Medians (ratio = practice / mpv; below 1 = practice lower; CPU ratio = median of per-repetition ratios)')
    head = '%-36s %10s %10s %7s  %-10s %s' % ('figure', 'practice', 'mpv', 'ratio', 'target', 'practice n / range')
    say(head)
    say('-' * len(head))
    summary = {}
    for label, unit, p, m, ratio, target, digits, limit in rows:
        mp, mm = med(p), med(m)
        if ratio is None and mp is not None and mm:
            ratio = mp / mm
        verdict = '' if mp is None else ('met' if mp <= limit else 'MISSED')
        rng = '-' if not p else '%d: %s..%s' % (len(p), fmt(min(p), 1, digits), fmt(max(p), 1, digits))
        say('%-36s %10s %10s %7s  %-10s %s %s' % (label, fmt(mp, 1, digits), fmt(mm, 1, digits), fmt(ratio, 1, 2), target, rng, verdict))
        summary[label] = dict(practice=mp, mpv=mm, ratio=ratio, practice_all=p, mpv_all=m, target=target)
    corr_p = [x * 1000 for x in by(L, 'practice', 'corrected') if x is not None]
    corr_m = [x * 1000 for x in by(L, 'mpv', 'corrected') if x is not None]
    say('%-36s %10s %10s %7s  %s' % ('(launch -> track start, head-corrected)', fmt(med(corr_p)), fmt(med(corr_m)),
                                      fmt(med(corr_p) / med(corr_m) if corr_p and corr_m else None, 1, 2), 'see README'))
    def launch_beside(name, label, short):
        # Another launcher's line beside practice's: its median, practice's ratio to it, its range.
        other = [x * 1000 for x in by(L, name, 'latency') if x is not None]
        if not other:
            return
        lat_p = [x * 1000 for x in by(L, 'practice', 'latency') if x is not None]
        corr = [x * 1000 for x in by(L, name, 'corrected') if x is not None]
        say('%-36s %10s %10s %7s  %s' % (label, fmt(med(other)), '', fmt(med(lat_p) / med(other) if lat_p else None, 1, 2),
                                          'ratio = practice / %s; %d: %s..%s; head-corrected %s'
                                          % (short, len(other), fmt(min(other), 1, 1), fmt(max(other), 1, 1), fmt(med(corr)))))
    # The floor: what any ALSA program pays here before its first sample is heard.
    launch_beside('aplay', '(launch: aplay -D pulse, the floor)', 'aplay')
    # --against: the other build, launched in turn with this one.
    launch_beside('against', '(launch: --against, the other build)', 'it')
    op = [x * 1000 for x in by(S, 'practice', 'old_stops') if x is not None]
    om = [x * 1000 for x in by(S, 'mpv', 'old_stops') if x is not None]
    say('%-36s %10s %10s %7s  %s' % ('(seek -> old position silent)', fmt(med(op)), fmt(med(om)),
                                      fmt(med(op) / med(om) if op and om else None, 1, 2), 'see README'))
    jp = [x for x in by(R, 'practice', 'jump_ms', kind='0.8->1.0') if x is not None]
    jm = [x for x in by(R, 'mpv', 'jump_ms', kind='0.8->1.0') if x is not None]
    say('%-36s %10s %10s %7s  %s' % ('(rate 0.8 -> 1.0: position jump, ms)', fmt(med(jp)), fmt(med(jm)), '', 'see README'))
    bp = [x * 1000 for x in by(R, 'practice', 'latency', kind='1.0->0.8') if x is not None]
    bm = [x * 1000 for x in by(R, 'mpv', 'latency', kind='1.0->0.8') if x is not None]
    say('%-36s %10s %10s %7s  %s' % ('(rate 1.0 -> 0.8, first splice)', fmt(med(bp)), fmt(med(bm)),
                                      fmt(med(bp) / med(bm) if bp and bm else None, 1, 2), 'see README'))
    say('')
    say('measuring took %.0f s; raw results: %s' % (measured, os.path.join(args.out, 'results.json')))
    text = '\n'.join(out)
    print()
    print(text)
    with open(os.path.join(args.out, 'results.json'), 'w') as f:
        json.dump(dict(summary=summary, cpu=cpus, journal=journal, cpu_variants=variants, launches=L, seeks=S, rates=R, taps=T, page_loads=loads, phones=phones,
                       args=vars(args)), f, indent=1, default=str)
    with open(os.path.join(args.out, 'results.txt'), 'w') as f:
        f.write(text + '\n')


if __name__ == '__main__':
    try:
        main()
    finally:
        cleanup()
