#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""MPRIS bench: `practice` against mpv with Debian's mpv-mpris plugin, both driven by `playerctl`
(and `busctl` for Rate) on one private session bus, through one private PulseAudio null sink,
in one run.  See README.md in this folder.

Figures (each for practice and for mpv, then practice / mpv):
  seek    `playerctl position X` launched -> first frame of the new position audible
  rate    `busctl set-property … Rate d 1.0` launched -> first frame played at the new rate
  paused  CPU of the whole process, paused with MPRIS on, over --idle-seconds
  playing CPU of the whole process at 0.8x with MPRIS on and no terminal (practice --background,
          mpv with stdin from /dev/null), over --idle-seconds

The capture, its clock and the analysis are bench/realtime's (imported from there).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'realtime'))
import run as rt  # noqa: E402  (bench/realtime/run.py)

MPV_MPRIS = '/usr/lib/mpv-mpris/mpris.so'


def session_bus(env):
    """A private dbus-daemon; its address."""
    p = rt.spawn(['dbus-daemon', '--session', '--nofork', '--print-address=1'], env=env,
                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p.stdout.readline().decode().strip()


class Player:
    def __init__(self, env, logdir):
        self.env, self.logdir, self.p = env, logdir, None

    def launch(self, track, rate, start):
        log = open(os.path.join(self.logdir, self.name + '.log'), 'ab')
        self.p = rt.spawn(self.command(track, rate, start), env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 10
        while self.bus_name not in subprocess.run(['playerctl', '-l'], env=self.env, capture_output=True, text=True).stdout.split():
            if self.p.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError('%s did not appear on the bus; see %s' % (self.name, self.logdir))
            time.sleep(0.02)
        return self.p

    def playerctl(self, *args):
        t = time.monotonic()
        subprocess.run(['playerctl', '-p', self.bus_name] + list(args), env=self.env, check=True, capture_output=True)
        return t

    def seek(self, to):
        return self.playerctl('position', '%g' % to)

    def rate(self, value):
        t = time.monotonic()
        subprocess.run(['busctl', '--user', 'set-property', 'org.mpris.MediaPlayer2.' + self.bus_name, '/org/mpris/MediaPlayer2',
                        'org.mpris.MediaPlayer2.Player', 'Rate', 'd', '%g' % value], env=self.env, check=True, capture_output=True)
        return t

    def quit(self):
        try:
            self.playerctl('stop')
        except Exception:
            pass
        rt.stop_process(self.p)


class Practice(Player):
    name = bus_name = 'practice'

    def __init__(self, binary, env, logdir):
        super().__init__(env, logdir)
        self.binary = binary

    def command(self, track, rate, start):
        # --detached is what `play --background` runs, without leaving this process: the player
        # a desktop's media keys drive with the terminal closed, measured as such.
        return [self.binary, 'play', track, '--rate', '%g' % rate, '--from', '%g' % start, '--device', 'pulse', '--quiet', '--detached']


class Mpv(Player):
    name = bus_name = 'mpv'

    def command(self, track, rate, start):
        return ['mpv', '--no-config', '--no-video', '--input-terminal=no', '--really-quiet', '--ao=pulse', '--af=scaletempo2',
                '--speed=%g' % rate, '--start=%g' % start, '--script=' + MPV_MPRIS, track]




def cpu_window(pid, seconds):
    c0, t0 = rt.cpu_of(pid), time.monotonic()
    time.sleep(seconds)
    return 100 * (rt.cpu_of(pid) - c0) / (time.monotonic() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--practice', default=os.path.join(HERE, '..', '..', '.build', 'release', 'practice'))
    ap.add_argument('--out', default='/tmp/practice-mpris')
    ap.add_argument('--commands', type=int, default=10, help='seeks and rate changes per player (default 10)')
    ap.add_argument('--idle-seconds', type=float, default=30, help='CPU windows, paused and playing (default 30)')
    ap.add_argument('--tol-ms', type=float, default=1.0)
    ap.add_argument('--monitor-latency-ms', type=int, default=5,
                    help="parec --latency-msec on the sink's monitor; sets the sink's block (default 5, as bench/realtime)")
    args = ap.parse_args()
    practice_bin = os.path.abspath(args.practice)
    if not os.access(practice_bin, os.X_OK):
        sys.exit('run.py: %s not found (make release, or pass --practice)' % practice_bin)
    for tool in ('pulseaudio', 'parec', 'sox', 'mpv', 'dbus-daemon', 'playerctl', 'busctl'):
        if shutil.which(tool) is None:
            sys.exit('run.py: %s not found (make deps)' % tool)
    if not os.path.exists(MPV_MPRIS):
        sys.exit('run.py: %s not found (apt-get install mpv-mpris)' % MPV_MPRIS)
    os.makedirs(os.path.join(args.out, 'logs'), exist_ok=True)
    logdir = os.path.join(args.out, 'logs')
    rig = None
    try:
        tracks = rt.make_tracks(os.path.join(args.out, 'tracks'))
        rig = rt.Rig(args.out, args.monitor_latency_ms)
        rig.env['DBUS_SESSION_BUS_ADDRESS'] = session_bus(rig.env)
        rig.env['XDG_STATE_HOME'] = os.path.join(args.out, 'state')
        rig.start_recording()
        prac, mpv = Practice(practice_bin, rig.env, logdir), Mpv(rig.env, logdir)
        players = [prac, mpv]
        seeks, rates = [], []
        half = (args.commands + 1) // 2
        print('seek ...', flush=True)
        for i in range(2):
            for pl in (players if i == 0 else players[::-1]):
                rig.wait_silence(0.3)
                pl.launch(tracks['seek'], 0.8, 2.0)
                time.sleep(1.5)
                region = 'A'
                for k in range(half):
                    j = (i * half + k) // 2
                    to, old, new = (rt.SEEK_TARGETS_B[j % 5], rt.TONE_A, rt.TONE_B) if region == 'A' else (rt.SEEK_TARGETS_A[j % 5], rt.TONE_B, rt.TONE_A)
                    region = 'B' if region == 'A' else 'A'
                    t = pl.seek(to)
                    seeks.append(dict(player=pl.name, t=t, to=to, old=old, new=new, until=t + 1.25))
                    time.sleep(max(0.0, t + 1.3 - time.monotonic()))
                pl.quit()
        print('rate ...', flush=True)
        for i in range(2):
            for pl in (players if i == 0 else players[::-1]):
                rig.wait_silence(0.3)
                pl.launch(tracks['chirp'], 0.8, 1.0)
                time.sleep(1.5)
                for k in range(half):
                    t = pl.rate(1.0)
                    rates.append(dict(player=pl.name, kind='0.8->1.0', t=t, until=t + 1.2))
                    time.sleep(max(0.0, t + 1.25 - time.monotonic()))
                    t = pl.rate(0.8)
                    time.sleep(max(0.0, t + 0.8 - time.monotonic()))
                pl.quit()
        # The tools' own share: playerctl and busctl asking the player something that does not
        # touch the sound (wall time of the whole command).
        floor = {}
        for pl in players:
            pl.launch(tracks['seek'], 0.8, 2.0)
            time.sleep(1)
            ts = []
            for _ in range(args.commands):
                t = pl.playerctl('position')
                ts.append(time.monotonic() - t)
            floor[pl.name] = rt.med(ts)
            pl.quit()
        rig.stop_recording()
        cap = rt.Capture(rig)
        S = [rt.analyze_seek(cap, e) for e in seeks]
        R = [rt.analyze_rate(cap, e, args.tol_ms / 1000) for e in rates]

        print('CPU ...', flush=True)
        cpu = {}
        for pl in players:
            pl.launch(tracks['music'], 0.8, 0.0)
            time.sleep(1)
            pl.playerctl('pause')
            time.sleep(2)
            cpu[(pl.name, 'paused')] = cpu_window(pl.p.pid, args.idle_seconds)
            pl.quit()
        # Playing at 0.8x with no terminal: practice detached (--background), mpv from a pipeline.
        out = subprocess.run([practice_bin, 'play', tracks['music'], '--rate', '0.8', '--device', 'pulse', '--background', '--quiet'],
                             env=rig.env, capture_output=True, text=True, check=True)
        status = json.loads(subprocess.run([practice_bin, 'ctl', 'status', '--json'], env=rig.env, capture_output=True, text=True, check=True).stdout)
        time.sleep(2)
        cpu[('practice', 'playing')] = cpu_window(status['pid'], args.idle_seconds)
        subprocess.run([practice_bin, 'ctl', 'quit'], env=rig.env, check=True)
        mpv.launch(tracks['music'], 0.8, 0.0)
        time.sleep(2)
        cpu[('mpv', 'playing')] = cpu_window(mpv.p.pid, args.idle_seconds)
        mpv.quit()
    finally:
        if rig is not None:
            rig.stop_recording()
        rt.cleanup()

    def med(xs):
        return rt.med([x.get('latency') for x in xs])
    rows = []
    for what, ev in (('seek: playerctl position -> new position heard (ms)', S), ('rate: Rate set -> new rate heard (ms)', R)):
        p = med([e for e in ev if e['player'] == 'practice'])
        m = med([e for e in ev if e['player'] == 'mpv'])
        rows.append((what, None if p is None else 1000 * p, None if m is None else 1000 * m))
    rows.append(("the tool's own time: 'playerctl position' (ms)", 1000 * floor['practice'], 1000 * floor['mpv']))
    for kind, label in (('paused', 'CPU paused, MPRIS on (% of a core)'), ('playing', 'CPU at 0.8x, no terminal, MPRIS on (% of a core)')):
        rows.append((label, cpu[('practice', kind)], cpu[('mpv', kind)]))
    lines = ['%-52s %10s %10s %8s' % ('figure (medians)', 'practice', 'mpv', 'ratio')]
    for label, p, m in rows:
        ratio = '-' if p is None or m in (None, 0) else '%.2f' % (p / m)
        lines.append('%-52s %10s %10s %8s' % (label, rt.fmt(p, 1, 2 if 'CPU' in label else 1), rt.fmt(m, 1, 2 if 'CPU' in label else 1), ratio))
    n = lambda ev, who: sum(1 for e in ev if e['player'] == who and e.get('latency') is not None)
    lines.append('(seeks measured: practice %d, mpv %d; rate changes: practice %d, mpv %d)' % (n(S, 'practice'), n(S, 'mpv'), n(R, 'practice'), n(R, 'mpv')))
    text = '\n'.join(lines)
    print(text)
    with open(os.path.join(args.out, 'results.txt'), 'w') as f:
        f.write(text + '\n')
    with open(os.path.join(args.out, 'results.json'), 'w') as f:
        json.dump(dict(seeks=S, rates=R, floor=floor, cpu={'%s %s' % k: v for k, v in cpu.items()}), f, indent=1, default=str)


if __name__ == '__main__':
    main()
