#!/usr/bin/env bash
# Rebuild Samples/demo.flac from its score.
#
#   make-demo.py  -> demo.mid   (the score, Standard MIDI File)
#   fluidsynth    -> raw WAV    (44.1 kHz, 32-bit float, FluidR3_GM soundfont)
#   sox           -> 16-bit WAV (first downbeat moved to exactly LEAD_IN s,
#                                cut to LENGTH s, faded, peak -1 dBFS)
#   flac          -> demo.flac  (+ tags with metaflac)
#
# Debian packages needed:
#   apt-get install python3 fluidsynth fluid-soundfont-gm sox flac
#
# Usage: Samples/make-demo.sh [OUT.flac]     (default: Samples/demo.flac)
# Set PYTHON to choose the interpreter (default: python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/demo.flac}"
python="${PYTHON:-python3}"
soundfont="${SOUNDFONT:-/usr/share/sounds/sf2/FluidR3_GM.sf2}"

for tool in "$python" fluidsynth sox soxi flac metaflac; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "make-demo.sh: '$tool' not found;" \
             "apt-get install python3 fluidsynth fluid-soundfont-gm sox flac" >&2
        exit 1
    fi
done
if [ ! -r "$soundfont" ]; then
    echo "make-demo.sh: soundfont $soundfont missing; apt-get install fluid-soundfont-gm" >&2
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# LEAD_IN, LENGTH and MUSIC_END come from the generator's own arithmetic.
eval "$("$python" "$here/make-demo.py" --shell)"
"$python" "$here/make-demo.py" --times

# 1. score
"$python" "$here/make-demo.py" "$work/demo.mid"

# 2. render (float, so nothing clips before normalising)
fluidsynth -n -i -q -g 0.5 -r 44100 -O float -T wav \
    -F "$work/raw.wav" "$soundfont" "$work/demo.mid" >/dev/null

# 3. FluidSynth starts notes on 64-sample block boundaries, so the audio lags
#    the score by a little over one block.  Cut everything before the first
#    sound (the first downbeat) and pad exactly LEAD_IN seconds of silence in
#    front: the first downbeat then lands on sample LEAD_IN * 44100, and
#    every later note within one block (±0.75 ms) of its score time.
#    -R: repeatable dither.
sox -V1 -R "$work/raw.wav" -b 16 "$work/demo.wav" \
    silence 1 1s -100d \
    pad "$LEAD_IN" \
    trim 0 "$LENGTH" \
    fade t 0 "$LENGTH" 1 \
    gain -n -1

# 4. check: stereo 44.1 kHz, exact length, first downbeat on time, no
#    silent second while the music plays, peak about -1 dBFS, no clipping.
"$python" - "$work/demo.wav" "$LEAD_IN" "$LENGTH" "$MUSIC_END" <<'EOF'
import array, math, sys, wave

path, lead_in, length, music_end = sys.argv[1], *map(float, sys.argv[2:])
w = wave.open(path)
rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
assert (rate, channels, width) == (44100, 2, 2), (rate, channels, width)
frames = w.getnframes()
assert frames == round(length * rate), (frames, length)
pcm = array.array("h")
pcm.frombytes(w.readframes(frames))
if sys.byteorder == "big":
    pcm.byteswap()

# first sample above the dither floor (the kick's attack ramps up over a few
# samples, so allow up to 0.2 ms after the exact position)
onset = next(i for i, v in enumerate(pcm) if abs(v) > 2) // 2
assert 0 <= onset - round(lead_in * rate) <= 8, f"first downbeat at sample {onset}"
peak = max(abs(min(pcm)), max(pcm))
peak_db = 20 * math.log10(peak / 32768)
assert -1.5 < peak_db < -0.5, f"peak {peak_db:.2f} dBFS"
clipped = sum(1 for v in pcm if abs(v) >= 32767)
assert clipped == 0, f"{clipped} clipped samples"

print(f"first downbeat: sample {onset} = {onset / rate:.4f} s; peak {peak_db:.2f} dBFS")
print("second  RMS dBFS  peak dBFS")
for s in range(0, frames, rate):
    seg = pcm[2 * s:2 * min(frames, s + rate)]
    rms = math.sqrt(sum(v * v for v in seg) / len(seg)) / 32768
    pk = max(abs(v) for v in seg) / 32768
    rms_db = 20 * math.log10(rms) if rms else -200.0
    pk_db = 20 * math.log10(pk) if pk else -200.0
    print(f"{s // rate:6d}  {rms_db:8.1f}  {pk_db:9.1f}  {'#' * max(0, int(rms_db + 60) // 2)}")
    if lead_in <= s and s + 1 <= music_end:
        assert rms_db > -35, f"second {s} is nearly silent ({rms_db:.1f} dBFS)"
EOF

# 5. encode and tag
flac --best --silent --force -o "$work/demo.flac" "$work/demo.wav"
metaflac --remove-all-tags \
    --set-tag="TITLE=Practice Demo" \
    --set-tag="ARTIST=practice" \
    --set-tag="ALBUM=Samples" \
    --set-tag="GENRE=Demo" \
    --set-tag="BPM=100" \
    --set-tag="LICENSE=CC0 1.0 Universal" \
    "$work/demo.flac"
flac --test --silent "$work/demo.flac"
mv "$work/demo.flac" "$out"

soxi "$out"
echo "wrote $out ($(stat -c %s "$out") bytes)"
