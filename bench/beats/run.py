#!/usr/bin/env python3
"""Beats: practice's grid beside aubio-tools (`aubio beat`, `aubio tempo`) on the same files.

Generated drums whose beats are known (a kick on every beat, hats between, a pad; the same
recipe as the tests' Signals.drums): steady 120 bpm, 100 -> 120 bpm halfway, swing at 100 bpm,
a waltz, and five minutes at 96 bpm for the time an analysis takes. For each: the tempo's
error, and the beat F-measure at +-70 ms (a found beat matches a known one within 70 ms, each
used once: F = 2PR / (P + R)). Both tools run as whole processes (median of REPS for time).
"""
import json, math, os, random, statistics, struct, subprocess, sys, time, wave

PRACTICE, WORK, REPS = sys.argv[1], sys.argv[2], int(sys.argv[3])
RATE = 44100

def drums(beats, seconds, accent_every=4, one_at=0, swing=0.5):
    n = int(seconds * RATE)
    out = [0.0] * n
    rng = random.Random(1)
    for k, t in enumerate(beats):
        accent = 1.0 if (k - one_at) % accent_every == 0 else 0.45
        s = int(t * RATE)
        for i in range(int(0.12 * RATE)):
            if s + i >= n: break
            x = i / RATE
            out[s + i] += accent * 0.8 * math.sin(2 * math.pi * 60 * x) * math.exp(-x * 30)
        if k + 1 < len(beats):
            h = int((t + (beats[k + 1] - t) * swing) * RATE)
            for i in range(int(0.03 * RATE)):
                if h + i >= n: break
                out[h + i] += 0.15 * (rng.random() - 0.5) * math.exp(-i / RATE * 120)
    for i in range(n):
        out[i] += 0.02 * math.sin(2 * math.pi * 220 * i / RATE)
    return out

def write(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(RATE)
        w.writeframes(b"".join(struct.pack("<h", max(-32767, min(32767, int(v * 32767)))) for v in samples))

def steady(bpm, start, seconds):
    p = 60 / bpm
    return [start + k * p for k in range(int((seconds - start) / p))]

cases = []
def case(name, beats, seconds, tempo, **kw):
    path = os.path.join(WORK, name + ".wav")
    write(path, drums(beats, seconds, **kw))
    cases.append((name, path, beats, tempo))

os.makedirs(WORK, exist_ok=True)
case("steady 120", steady(120, 0.5, 60), 60, 120)
change = steady(100, 0.3, 30) ; change += [change[-1] + 0.5 * (k + 1) for k in range(int(30 / 0.5) - 1)]
case("100 -> 120", change, 60, None)
case("swing 100", steady(100, 0.25, 60), 60, 100, swing=0.66)
case("waltz 100", steady(100, 0.4, 60), 60, 100, accent_every=3, one_at=1)
five = os.path.join(WORK, "five minutes.wav")
write(five, drums(steady(96, 0.2, 300), 300))

def f_measure(found, known, window=0.07):
    used = set(); hits = 0
    for t in known:
        best = None
        for j, f in enumerate(found):
            if j in used or abs(f - t) > window: continue
            if best is None or abs(f - t) < abs(found[best] - t): best = j
        if best is not None: used.add(best); hits += 1
    p = hits / len(found) if found else 0; r = hits / len(known) if known else 0
    return 2 * p * r / (p + r) if p + r else 0

def timed(argv):
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, text=True)
    return time.monotonic() - t0, r.stdout

def practice(path):
    side = os.path.join(WORK, "grid.json")
    if os.path.exists(side): os.remove(side)
    secs, out = timed([PRACTICE, "beats", path, "--again", "--json", "--markers", side])
    g = json.loads(out)
    return secs, g["beats"], g["tempo"]

def aubio(path):
    secs, out = timed(["aubio", "beat", path])
    beats = [float(l.split()[0]) for l in out.splitlines() if l.strip()]
    _, out = timed(["aubio", "tempo", path])
    return secs, beats, float(out.split()[0])

print("%-12s %22s %22s" % ("", "practice", "aubio"))
print("%-12s %10s %11s %10s %11s" % ("input", "tempo err", "F(70 ms)", "tempo err", "F(70 ms)"))
for name, path, known, tempo in cases:
    _, pb, pt = practice(path)
    _, ab, at = aubio(path)
    err = lambda t: "—" if tempo is None else "%.2f %%" % (100 * abs(t - tempo) / tempo)
    print("%-12s %10s %11.3f %10s %11.3f" % (name, err(pt), f_measure(pb, known), err(at), f_measure(ab, known)))
tp = statistics.median(practice(five)[0] for _ in range(REPS))
ta = statistics.median(aubio(five)[0] for _ in range(REPS))
print()
print("analysis of 5 minutes (whole process, median of %d): practice %.2f s, aubio beat %.2f s (ratio %.2f); target <= 2 s" % (REPS, tp, ta, tp / ta))

# Real songs (Debian's wesnoth-1.16-music): practice's tempo and the octave it chose, beside
# aubio's and librosa's (its beat tracker, as the issue asks, in the bench only); the CPU and peak
# memory practice used. Each tempo's octave is told against librosa's: the ratio, rounded.
MUSIC = "/usr/share/games/wesnoth/1.16/data/core/music"
try:
    import librosa
except ImportError:
    librosa = None
songs = [s for s in ["wanderer", "frantic", "knalgan_theme", "heroes_rite", "battle", "northerners", "loyalists", "elvish-theme", "traveling_minstrels", "the_city_falls"] if os.path.exists("%s/%s.ogg" % (MUSIC, s))]
if songs:
    print()
    print("real songs: %-20s %8s %9s %8s %8s %8s %10s %8s" % ("", "minutes", "practice", "(other)", "aubio", "librosa", "CPU s/min", "peak MB"))
    for s in songs:
        path = "%s/%s.ogg" % (MUSIC, s)
        side = os.path.join(WORK, "real.json")
        if os.path.exists(side): os.remove(side)
        r = subprocess.run(["/usr/bin/time", "-f", "TIME %U %S %M", PRACTICE, "beats", path, "--again", "--json", "--markers", side], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        user, system, peak = r.stderr.strip().splitlines()[-1].split()[1:4]
        cpu, peak = float(user) + float(system), float(peak) / 1024
        g = json.loads(r.stdout) if r.returncode == 0 else {"tempo": float("nan"), "otherTempo": None}
        minutes = float(json.loads(subprocess.run([PRACTICE, "info", path, "--json"], stdout=subprocess.PIPE, text=True).stdout)["duration"]) / 60
        _, out = timed(["aubio", "tempo", path])
        at = float(out.split()[0])
        lt = float("nan")
        if librosa is not None:
            y, sr = librosa.load(path, sr=22050, mono=True)
            import numpy
            lt = float(numpy.atleast_1d(librosa.beat.beat_track(y=y, sr=sr)[0])[0])
        ratio = g["tempo"] / lt if lt == lt else float("nan")
        print("real songs: %-20s %8.1f %9.2f %8s %8.2f %8.2f %10.2f %8.1f   practice/librosa %.2f" % (s, minutes, g["tempo"], g.get("otherTempo") or "-", at, lt, cpu / minutes, peak, ratio))
