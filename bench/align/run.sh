#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Alignment bench: fingerprinting a 5-minute MP3 (practice's first open, which decodes, checksums
# and fingerprints in one pass) beside Debian's fpcalc on the same file; lining up a sidecar made
# on that MP3 with another copy (1.3 s of silence in front, encoded again); and the next open,
# which reads the kept alignment instead.
#
#   bench/align/run.sh                     # REPS=9 by default
#   PRACTICE=/path/to/practice REPS=15 WORK=/tmp/x bench/align/run.sh
#
# Needs: fpcalc (libchromaprint-tools), lame, sox, python3-numpy, a release build (make release).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
bench_setup align fpcalc lame sox

# Five minutes of generated music (a note every 250 ms from a scale, over a bass note every
# second; no section repeats, as in a real song) as a 128 kbit/s MP3, and another copy of it:
# 1.3 s of silence in front, encoded again.
python3 - <<'PY'
import numpy as np, wave
rate, seconds = 44100, 300
rng = np.random.default_rng(13)
scale = np.array([220.0, 246.94, 261.63, 293.66, 329.63, 349.23, 392.0, 440.0])
step = rate // 4
out = np.zeros(rate * seconds)
t = np.arange(step) / rate
for n, start in enumerate(range(0, rate * seconds, step)):
    f = scale[rng.integers(8)] * (1 if rng.integers(2) == 0 else 2)
    v = 0.25 * np.exp(-t * 6) * (np.sin(2 * np.pi * f * t) + 0.5 * np.sin(4 * np.pi * f * t) + 0.25 * np.sin(6 * np.pi * f * t))
    if n % 4 == 0:
        v += 0.2 * np.exp(-t * 2) * np.sin(2 * np.pi * scale[rng.integers(4)] / 2 * t)
    out[start:start + step] = v[:len(out[start:start + step])]
pcm = (np.clip(out, -1, 1) * 32767).astype('<i2')
with wave.open('song.wav', 'wb') as w:
    w.setnchannels(2); w.setsampwidth(2); w.setframerate(rate)
    w.writeframes(np.repeat(pcm, 2).tobytes())
PY
lame --quiet -b 128 song.wav song.mp3
sox song.wav padded.wav pad 1.3
lame --quiet -b 128 padded.wav copy.mp3
rm -f song.wav padded.wav
echo "song.mp3: $(stat -c %s song.mp3) bytes; copy.mp3 (1.3 s of silence in front): $(stat -c %s copy.mp3) bytes"

"$PRACTICE" markers add song.mp3 Verse 12.5 >/dev/null
for m in 30 60 90 120 150 180 210 240 270; do "$PRACTICE" markers add song.mp3 "m$m" "$m" >/dev/null; done
cp song.mp3.practice.json crew.practice.json

declare -A T
for ((i = 0; i < REPS; i++)); do
    rm -rf cache/practice
    T[first]+="$(ms "$PRACTICE" markers song.mp3) "              # decode + SHA-256 + fingerprint
    T[fpcalc]+="$(ms fpcalc -length 0 song.mp3) "                 # decode (FFmpeg) + fingerprint
    T[cached]+="$(ms "$PRACTICE" markers song.mp3) "              # identity from the cache
    T[copyid]+="$(ms "$PRACTICE" markers add copy.mp3 own 1) "    # the copy's identity, for its own sidecar
    T[plain]+="$(ms "$PRACTICE" markers copy.mp3) "               # its own sidecar: identity cached, nothing to line up
    T[align]+="$(ms "$PRACTICE" markers copy.mp3 --markers crew.practice.json) "   # first: aligns and keeps it
    T[next]+="$(ms "$PRACTICE" markers copy.mp3 --markers crew.practice.json) "    # next open: reads it
    rm -f copy.mp3.practice.json
done
"$PRACTICE" markers copy.mp3 --markers crew.practice.json 2>&1 >/dev/null
python3 - "$REPS" <<PY
import statistics, sys
T = {k: [float(x) for x in v.split()] for k, v in {
    'first': "${T[first]}", 'fpcalc': "${T[fpcalc]}", 'cached': "${T[cached]}", 'copyid': "${T[copyid]}",
    'plain': "${T[plain]}", 'align': "${T[align]}", 'next': "${T[next]}"}.items()}
med = lambda k: statistics.median(T[k])
diff = lambda a, b: statistics.median([x - y for x, y in zip(T[a], T[b])])
ratio = lambda a, b: statistics.median([x / y for x, y in zip(T[a], T[b])])
print()
print('== fingerprinting a 5-minute MP3 (whole process, wall ms, median of %s) ==' % sys.argv[1])
print('practice markers song.mp3 (first open: decode, SHA-256, fingerprint)  %7.1f   (target <= 500)' % med('first'))
print('fpcalc -length 0 song.mp3 (decode with FFmpeg, fingerprint)            %7.1f   practice / fpcalc: %.2f' % (med('fpcalc'), ratio('first', 'fpcalc')))
print('practice markers song.mp3 (identity cached)                           %7.1f' % med('cached'))
print()
print('== lining up the crew sidecar with copy.mp3 (ms, median of per-round differences) ==')
print('alignment (first open with the sidecar, minus the same open without one)  %7.1f   (target <= 50)' % diff('align', 'plain'))
print('next open (the kept alignment read), minus the same open without one      %7.1f' % diff('next', 'plain'))
ok = med('first') <= 500 and diff('align', 'plain') <= 50 and diff('next', 'plain') <= 10
print()
print('VERDICT: %s' % ('targets met' if ok else 'target MISSED'))
PY
