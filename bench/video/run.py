#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Video bench: the dancer's video window (mpv driven by practice over its IPC socket) against
the sound practice plays, and mpv alone on the same files, in one run, under a private Xvfb
(with openbox) and a private PulseAudio whose null sink plays in real time.  See README.md.

Figures:
  sync    picture vs sound at 0.8x through 10 passes of a loop: the frame in mpv's window
          (read with XGetImage from the test video's frame-number blocks) against the position
          heard (practice's `status` just before and just after the read, a few ms apart):
          heard minus the middle of the frame shown, median and 95th percentile of its size
  jump    a jump while playing -> the new place's frame in the window, for practice
          (`{"cmd":"jump"}` on its socket) and for mpv alone (`seek … absolute+exact` on its
          own socket, the picture with its own sound), median and 95th percentile
  cpu     CPU of playing a 720p H.264 video with its sound at 0.8x for CPU_SECONDS: practice
          and the mpv it drives (its picture only), against mpv alone (picture and sound)
"""
import argparse
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location('realtime', os.path.join(HERE, '..', 'realtime', 'run.py'))
rt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt)
FRAMES_PY = os.path.join(ROOT, 'Tests', 'PracticeEndToEndTests', 'video-frames.py')
# The test video's maker and its reader (XGetImage through ctypes), shared with the tests.
_spec = importlib.util.spec_from_file_location('frames', FRAMES_PY)
frames = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(frames)
FPS = 25.0
SONG = '/usr/share/games/wesnoth/1.16/data/core/music/knalgan_theme.ogg'


# ------------------------------------------------------------------------------------------
# The display: Xvfb and openbox; the window read with video-frames.py's Screen (XGetImage).

class Display:
    def __init__(self):
        # Xvfb takes a free display number and says which (-displayfd) once it answers there.
        x = rt.spawn(['Xvfb', '-displayfd', '1', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL)
        self.name = ':%d' % int(x.stdout.readline())
        self.env = dict(os.environ, DISPLAY=self.name)
        rt.spawn(['openbox', '--sm-disable'], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._until(lambda: b'window id' in subprocess.run(['xprop', '-root', '_NET_SUPPORTING_WM_CHECK'], env=self.env,
                                                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout, 'openbox')
        self.screen = frames.Screen(self.name)

    @staticmethod
    def _until(test, what, timeout=20):
        deadline = time.monotonic() + timeout
        while not test():
            if time.monotonic() > deadline:
                raise RuntimeError('no %s within %d s' % (what, timeout))
            time.sleep(0.05)

    def window(self, timeout=30):
        """mpv's window: its id, width and height."""
        found = []

        def look():
            tree = subprocess.run(['xwininfo', '-root', '-tree'], env=self.env, stdout=subprocess.PIPE, text=True).stdout
            for line in tree.splitlines():
                if '("mpv" "mpv")' in line:
                    size = [w for w in line.split() if 'x' in w and '+' in w][0]
                    w, h = size.split('+')[0].split('x')
                    found[:] = [int(line.split()[0], 16), int(w), int(h)]
                    return True
            return False
        self._until(look, "mpv's window", timeout)
        return found

    def frame(self, window):
        """The frame number the test video shows in `window` (read in a few ms), or None."""
        return self.screen.frame(window[0])


# ------------------------------------------------------------------------------------------
# Players: practice on its control socket; mpv alone on its IPC socket.

class Line:
    """A JSON-lines socket, answers read as they come."""

    def __init__(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self.f = self.s.makefile('rb')

    def send(self, obj):
        self.s.sendall((json.dumps(obj) + '\n').encode())

    def close(self):
        # The socket's file descriptor stays open while its reader (makefile) is: both closed.
        self.f.close()
        self.s.close()

    def until(self, test):
        while True:
            line = self.f.readline()
            if not line:
                raise RuntimeError('the socket closed')
            o = json.loads(line)
            if test(o):
                return o


class Practice:
    def __init__(self, binary, env, work, file, args):
        self.sock = tempfile.mktemp(prefix='practice-', suffix='.sock', dir=work)
        self.p = rt.spawn([binary, 'play', file, '--device', 'pulse', '--no-tui', '--no-journal', '--fresh', '--no-mpris',
                           '--control', self.sock] + args, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, 'practice.log'), 'ab'))
        self.c = Line(self.sock)

    def heard(self):
        self.c.send({'cmd': 'status'})
        return self.c.until(lambda o: o.get('event') == 'status')

    def jump(self, to):
        if self.p.poll() is not None:
            raise RuntimeError('practice exited (%s); see its log in %s' % (self.p.returncode, os.path.dirname(self.sock)))
        self.c.send({'cmd': 'jump', 'to': to})

    def pids(self):
        kids = subprocess.run(['pgrep', '-P', str(self.p.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
        return [self.p.pid] + [int(k) for k in kids]

    def quit(self):
        self.c.send({'cmd': 'quit'})
        self.p.wait(20)


class Mpv:
    def __init__(self, env, work, file, args):
        self.sock = tempfile.mktemp(prefix='mpv-', suffix='.sock', dir=work)
        self.p = rt.spawn(['mpv', '--no-config', '--ao=pulse', '--input-ipc-server=' + self.sock, '--keep-open=always',
                           '--hr-seek=yes', '--osd-level=0', '--input-terminal=no', '--terminal=no'] + args + [file],
                          env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.c = Line(self.sock)
        self.request = 0

    def command(self, *args):
        self.request += 1
        self.c.send({'command': list(args), 'request_id': self.request})

    def pids(self):
        return [self.p.pid]

    def quit(self):
        self.command('quit')
        self.p.wait(20)


def cpu_of(pids):
    total = 0.0
    for pid in pids:
        try:
            with open('/proc/%d/stat' % pid) as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rindex(')') + 2:].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    return total


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


# ------------------------------------------------------------------------------------------
# The figures

def sync(binary, rig, disp, work, video):
    """At 0.8x, ten passes of the loop 1-3 s: heard minus the middle of the frame shown."""
    p = Practice(binary, rig.env | {'DISPLAY': disp.name, 'XDG_RUNTIME_DIR': rig.dir}, work, video,
                 ['--loop', '1', '3', '--rate', '0.8'])
    window = disp.window()
    errors, passes, t_end, trace, skipped = [], set(), time.monotonic() + 60, [], {True: 0, False: 0}
    while len(passes) < 11 and time.monotonic() < t_end:
        a = p.heard()
        frame = disp.frame(window)
        b = p.heard()
        passes.add((a.get('loop') or {}).get('pass'))
        # A wrap in between, or a read that took long (the machine busy): no measure.
        if frame is None or b['position'] < a['position'] or b['position'] - a['position'] > 0.02:
            skipped[frame is None] += 1
            continue
        heard = (a['position'] + b['position']) / 2
        errors.append((heard - (frame + 0.5) / FPS) * 1000)
        trace.append((time.monotonic(), heard, frame, errors[-1]))
        time.sleep(0.01)
    p.quit()
    if not errors:
        raise RuntimeError('no reads of the picture in step with two answers (%d without a picture, %d with a wrap or a slow answer)'
                           % (skipped[True], skipped[False]))
    with open(os.path.join(work, 'sync.txt'), 'w') as f:
        f.writelines('%.4f %.4f %d %.1f\n' % t for t in trace)
    size = [abs(e) for e in errors]
    return dict(samples=len(errors), passes=len(passes - {None}), median_ms=statistics.median(errors),
                p95_abs_ms=pct(size, 95), max_abs_ms=max(size), within_frame=sum(1 for s in size if s <= 1000 / FPS) / len(size))


def jumps(player, disp, window, targets, jump):
    """Each jump while playing -> the first read of a frame at or just after its place."""
    out = []
    for to in targets:
        t0 = time.monotonic()
        jump(to)
        want = int(to * FPS)
        while time.monotonic() - t0 < 5:
            f = disp.frame(window)
            if f is not None and want <= f <= want + 12:
                out.append((time.monotonic() - t0) * 1000)
                break
        time.sleep(0.6)
    return out


def jump_figures(binary, rig, disp, work, video):
    targets = [2.0, 6.0, 3.0, 7.0, 1.0, 5.0, 2.5, 6.5, 1.5, 4.5]
    p = Practice(binary, rig.env | {'DISPLAY': disp.name, 'XDG_RUNTIME_DIR': rig.dir}, work, video, [])
    window = disp.window()
    time.sleep(0.5)
    ours = jumps(p, disp, window, targets, p.jump)
    p.quit()
    time.sleep(0.5)
    m = Mpv(rig.env | {'DISPLAY': disp.name}, work, video, [])
    window = disp.window()
    time.sleep(0.5)
    theirs = jumps(m, disp, window, targets, lambda to: m.command('seek', to, 'absolute+exact'))
    m.quit()
    return ours, theirs


def cpu_figures(binary, rig, disp, work, clip, seconds):
    """CPU (% of a core over `seconds`) of practice with the mpv it drives, of practice alone, and
    of mpv alone, each playing `clip` at 0.8x."""
    def ours():
        p = Practice(binary, rig.env | {'DISPLAY': disp.name, 'XDG_RUNTIME_DIR': rig.dir}, work, clip, ['--rate', '0.8'])
        disp.window()
        # Nothing connected while measured, as with mpv alone: a client on the control socket is
        # sent the state ten times a second, which a person playing a video does not have.
        p.c.close()
        time.sleep(1)
        pids = p.pids()
        c0, own0, t0 = cpu_of(pids), cpu_of(pids[:1]), time.monotonic()
        time.sleep(seconds)
        wall = time.monotonic() - t0
        both, own = (cpu_of(pids) - c0) / wall * 100, (cpu_of(pids[:1]) - own0) / wall * 100
        p.c = Line(p.sock)
        p.quit()
        time.sleep(0.5)
        return both, own

    def theirs():
        m = Mpv(rig.env | {'DISPLAY': disp.name}, work, clip, ['--speed=0.8'])
        disp.window()
        time.sleep(1)
        c0, t0 = cpu_of(m.pids()), time.monotonic()
        time.sleep(seconds)
        cpu = (cpu_of(m.pids()) - c0) / (time.monotonic() - t0) * 100
        m.quit()
        time.sleep(0.5)
        return cpu
    return ours, theirs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--practice', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--tests', default='sync,jump,cpu')
    ap.add_argument('--cpu-seconds', type=float, default=20)
    ap.add_argument('--cpu-reps', type=int, default=9, help='cpu: pairs of runs, alternating which plays first (default 9)')
    a = ap.parse_args()
    tests = set(a.tests.split(','))
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix='video-', dir=a.out)
    video = os.path.join(work, 'frames.mp4')
    rt.run_quiet(['python3', FRAMES_PY, 'make', video, '8'])
    clip = os.path.join(work, 'clip-720p.mp4')
    if 'cpu' in tests:
        # 30 s of a real song under a moving 720p picture (H.264, as a tutorial's).
        rt.run_quiet(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25', '-i', SONG, '-t', '30',
                      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '160k', clip])
    disp = Display()
    rig = rt.Rig(work, 20)
    print('date: %s; %d cores; %s; %s' % (time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), os.cpu_count(), a.practice,
                                          subprocess.run(['mpv', '--version'], stdout=subprocess.PIPE, text=True).stdout.split('\n')[0]))
    if 'sync' in tests:
        s = sync(a.practice, rig, disp, work, video)
        print('sync   picture vs sound at 0.8x, %d passes of a 2 s loop, %d reads: heard - frame middle median %+.1f ms, '
              '|.| p95 %.1f ms (goal: <= 40 ms, a frame at 25 fps), max %.1f ms; within a frame: %.0f %%'
              % (s['passes'], s['samples'], s['median_ms'], s['p95_abs_ms'], s['max_abs_ms'], 100 * s['within_frame']))
    if 'jump' in tests:
        ours, theirs = jump_figures(a.practice, rig, disp, work, video)
        if len(ours) < 5 or len(theirs) < 5:
            print('jump   too few jumps seen (practice %d, mpv %d of 10)' % (len(ours), len(theirs)))
        else:
            print('jump   -> the new frame shown, playing: practice median %.1f ms p95 %.1f ms (%d jumps); mpv alone median %.1f ms '
                  'p95 %.1f ms (%d); ratio of medians %.2f (goal: <= 100 ms)'
                  % (statistics.median(ours), pct(ours, 95), len(ours), statistics.median(theirs), pct(theirs, 95), len(theirs),
                     statistics.median(ours) / statistics.median(theirs)))
    if 'cpu' in tests:
        # Alternating which plays first, a.cpu_reps times each; the ratio of each pair, and their median.
        ours_run, theirs_run = cpu_figures(a.practice, rig, disp, work, clip, a.cpu_seconds)
        rows = []
        for k in range(a.cpu_reps):
            if k % 2 == 0:
                (both, own), alone = ours_run(), theirs_run()
            else:
                alone = theirs_run()
                both, own = ours_run()
            rows.append((both, own, alone))
            print('cpu    run %d: practice + its mpv %.1f %% of a core (practice itself %.1f %%), mpv alone %.1f %%, ratio %.2f'
                  % (k + 1, both, own, alone, both / alone))
        ratios = [b / m for b, _, m in rows]
        print('cpu    720p H.264 with its sound at 0.8x, %g s, %d pairs: practice + its mpv %.1f %% of a core (practice itself %.1f %%), '
              'mpv alone %.1f %%; ratio median %.2f (%.2f-%.2f) (goal: <= 1.0)'
              % (a.cpu_seconds, len(rows), statistics.median(b for b, _, _ in rows), statistics.median(o for _, o, _ in rows),
                 statistics.median(m for _, _, m in rows), statistics.median(ratios), min(ratios), max(ratios)))


if __name__ == '__main__':
    try:
        main()
    finally:
        rt.cleanup()
