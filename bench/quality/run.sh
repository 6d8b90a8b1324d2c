#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Time-stretch quality comparison: our player against the reference tools,
# all on the same inputs in the same run.  See README.md in this folder.
#
#   bench/quality/run.sh                    # tempo 0.8
#   TEMPOS="0.5 0.8 1.25 1.5" bench/quality/run.sh
#   PRACTICE="swift run -c release practice" bench/quality/run.sh
#
# Environment:
#   PRACTICE  command for our player (default .build/release/practice); it is
#             run as: $PRACTICE render IN -o OUT --rate T --force
#   TEMPOS    tempos to test, 0.8 = slower (default "0.8")
#   OUT       work folder (default /tmp/practice-quality); inputs go to OUT/in
#   PYTHON    python3 with numpy (default: python3 on PATH, else /usr/bin/python3: see ../numpy-python.sh)
#   HARNESS   0 to skip the SoundTouch harness rows (default 1: built with gcc
#             from st_harness.c when libsoundtouch-dev and libsndfile1-dev are
#             installed)
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PRACTICE="${PRACTICE:-.build/release/practice}"
TEMPOS="${TEMPOS:-0.8}"
OUT="${OUT:-/tmp/practice-quality}"
HARNESS="${HARNESS:-1}"
ANALYZE="$HERE/analyze.py"

# SoundTouch settings of the profiles (sequence ms, seek window ms, overlap
# ms, quick seek, AA filter) -- keep in sync with README.md.
PROFILE_MUSIC="50 20 20 1 1"
PROFILE_FINE="50 20 20 0 1"
PROFILE_PERCUSSIVE="30 15 12 0 1"
PROFILE_DEFAULTS="0 0 8 0 1"

need() { command -v "$1" >/dev/null 2>&1 || { echo "run.sh: $1 not found, skipping $2" >&2; return 1; }; }
need sox "everything" || exit 1
. "$HERE/../numpy-python.sh"

mkdir -p "$OUT/in" "$OUT/out"
IN="$OUT/in"

# ---------------------------------------------------------------- inputs
# 24-bit PCM: every tool reads it (soundstretch mislabels 32-bit float output)
# and its floor (about -137 dB THD+N) is far below any stretched figure.
sox -n -r 44100 -c 1 -b 24 "$IN/sine.wav" synth 10 sine 1000 gain -6
sox -n -r 44100 -c 1 -b 24 "$IN/sine997.wav" synth 10 sine 997 gain -6
# 1-ms click (one cycle of 1 kHz, -6 dBFS) every 0.5 s, first at 0.25 s, 30 s
sox -n -r 44100 -c 1 -e floating-point -b 32 "$IN/seg.wav" synth 0.001 sine 1000 gain -6 pad 0.2495 0.2495
sox "$IN/seg.wav" -b 24 "$IN/click.wav" repeat 59
rm -f "$IN/seg.wav"
# music-like stereo: a tremolo chord with pink-noise bursts every 0.25 s, 10 s
sox -n -r 44100 -c 1 -b 24 "$IN/chord.wav" synth 10 sine 220 sine 277.18 sine 329.63 sine 440 sine 554.37 \
    remix 1-5 tremolo 3 40 gain -n -12
sox -n -r 44100 -c 1 -b 24 -R "$IN/burst.wav" synth 0.06 pinknoise fade q 0.002 0.06 0.055 gain -n -10 pad 0 0.19
sox "$IN/burst.wav" "$IN/bursts.wav" repeat 39
sox -m "$IN/chord.wav" "$IN/bursts.wav" -c 2 -b 24 "$IN/music.wav" remix 1 1v0.7
rm -f "$IN/chord.wav" "$IN/burst.wav" "$IN/bursts.wav"
INPUTS="sine click sine997 music"

# ---------------------------------------------------------------- tools
# Each tool function: $1 = input wav, $2 = output wav, $3 = tempo.
# SoundTouch (play's stretcher, `--quality fast`), its fine profile, and Rubber Band (`high`, a render's default).
tool_practice() { $PRACTICE render "$1" -o "$2" --rate "$3" --quality fast --force >/dev/null 2>&1; }
tool_practice_fine() { $PRACTICE render "$1" -o "$2" --rate "$3" --profile fine --force >/dev/null 2>&1; }
tool_practice_high() { $PRACTICE render "$1" -o "$2" --rate "$3" --quality high --force >/dev/null 2>&1; }
# The rubberband program (rubberband-cli): R3 (--fine), offline; -T is the tempo multiplier.
tool_rubberband() { rubberband --fine -q -T "$3" "$1" "$2" >/dev/null 2>&1; }
tool_soundstretch() {
    local pct; pct=$("$PYTHON" -c "print('%+g' % round(($3 - 1) * 100, 6))")
    soundstretch "$1" "$2" -tempo="$pct" >/dev/null 2>&1
}
tool_soundstretch_speech() {
    local pct; pct=$("$PYTHON" -c "print('%+g' % round(($3 - 1) * 100, 6))")
    soundstretch "$1" "$2" -tempo="$pct" -speech >/dev/null 2>&1
}
tool_sox() { sox "$1" "$2" tempo "$3"; }
tool_sox_m() { sox "$1" "$2" tempo -m "$3"; }
tool_mpv() {
    mpv --no-config --no-video --really-quiet --ao=pcm --ao-pcm-file="$2" --af=scaletempo2 --speed="$3" "$1" \
        >/dev/null 2>&1
}
tool_st_defaults() { "$OUT/st_harness" "$1" "$2" "$3" $PROFILE_DEFAULTS >/dev/null; }
tool_st_music() { "$OUT/st_harness" "$1" "$2" "$3" $PROFILE_MUSIC >/dev/null; }
tool_st_fine() { "$OUT/st_harness" "$1" "$2" "$3" $PROFILE_FINE >/dev/null; }
tool_st_percussive() { "$OUT/st_harness" "$1" "$2" "$3" $PROFILE_PERCUSSIVE >/dev/null; }

TOOLS=()
LABELS=()
add() { TOOLS+=("$1"); LABELS+=("$2"); }

practice_bin="${PRACTICE%% *}"
# the default is relative to the repository root; allow running from elsewhere
if [ "$PRACTICE" = .build/release/practice ] && [ ! -e "$practice_bin" ] && [ -x "$HERE/../../$practice_bin" ]; then
    PRACTICE="$(cd "$HERE/../.." && pwd)/$practice_bin"
    practice_bin="$PRACTICE"
fi
if command -v "$practice_bin" >/dev/null 2>&1 || [ -x "$practice_bin" ]; then
    add tool_practice "practice --quality fast"
    add tool_practice_fine "practice --profile fine"
    add tool_practice_high "practice --quality high"
else
    echo "run.sh: our player ($practice_bin) not found, skipping it (build it or set PRACTICE)" >&2
fi
if [ "$HARNESS" = 1 ] && need gcc "the SoundTouch harness rows" \
    && gcc -O2 "$HERE/st_harness.c" -o "$OUT/st_harness" -lSoundTouchDll -lsndfile 2>"$OUT/harness.log"; then
    add tool_st_music "soundtouch music profile"
    add tool_st_fine "soundtouch fine profile"
    add tool_st_percussive "soundtouch percussive profile"
    add tool_st_defaults "soundtouch defaults"
elif [ "$HARNESS" = 1 ]; then
    echo "run.sh: could not build st_harness (see $OUT/harness.log), skipping its rows" >&2
fi
need rubberband "rubberband --fine" && add tool_rubberband "rubberband --fine"
need soundstretch "soundstretch" && { add tool_soundstretch "soundstretch"; add tool_soundstretch_speech "soundstretch -speech"; }
add tool_sox "sox tempo"
add tool_sox_m "sox tempo -m"
need mpv "mpv scaletempo2" && add tool_mpv "mpv scaletempo2"

# CPU seconds (user + sys, whole process) of one command
cputime() {
    "$PYTHON" - "$@" <<'EOF'
import resource, subprocess, sys
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
rc = subprocess.call(sys.argv[1:])
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
print('%.4f' % ((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)) if rc == 0 else 'fail')
EOF
}
export -f tool_practice tool_practice_fine tool_practice_high tool_rubberband tool_st_fine tool_soundstretch tool_soundstretch_speech tool_sox tool_sox_m tool_mpv \
    tool_st_defaults tool_st_music tool_st_percussive
export PRACTICE OUT PYTHON PROFILE_MUSIC PROFILE_FINE PROFILE_PERCUSSIVE PROFILE_DEFAULTS

# ---------------------------------------------------------------- run
RESULTS="$OUT/results.tsv"
: >"$RESULTS"
for t in $TEMPOS; do
    for i in "${!TOOLS[@]}"; do
        fn="${TOOLS[$i]}"; label="${LABELS[$i]}"
        files=()
        ok=1
        for inp in $INPUTS; do
            o="$OUT/out/${fn#tool_}_${t}_$inp.wav"
            rm -f "$o"
            if [ "$inp" = music ]; then
                cpu=$(cputime bash -c "$fn \"\$1\" \"\$2\" \"\$3\"" _ "$IN/$inp.wav" "$o" "$t")
            else
                "$fn" "$IN/$inp.wav" "$o" "$t" || true
            fi
            if [ -s "$o" ]; then files+=("$o"); else files+=("-"); ok=0; fi
        done
        [ "$ok" = 1 ] || echo "run.sh: $label at tempo $t did not write all outputs" >&2
        speed=$("$PYTHON" -c "import sys; c=sys.argv[1]; print('%.0f' % (10.0 / float(c)) if c not in ('fail','') and float(c) > 0 else '-')" "${cpu:-fail}")
        line=$("$PYTHON" "$ANALYZE" --tsv --tempo "$t" --music-ref "$IN/music.wav" \
            "$label=$(IFS=,; echo "${files[*]}")" | tail -n 1)
        printf '%s\t%s\n' "$line" "$speed" >>"$RESULTS"
    done
done

# ---------------------------------------------------------------- table
"$PYTHON" - "$RESULTS" <<'EOF'
import sys
cols = ['label', 'tempo', 'thdn', 'p90', 'alt', 'smear_med', 'smear_mean', 'doubled', 'lost', 'clicks',
        'offset', 'music_db', 'len', 'speed']
rows = [dict(zip(cols, l.rstrip('\n').split('\t'))) for l in open(sys.argv[1]) if l.strip()]
def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None
print()
print('THD+N: 1 kHz sine, median over 4096-sample windows (dB, lower is better); alt: same on 997 Hz.')
print('smear: click track, -20 dB span of each click (ms, median / mean); doubled: clicks heard twice.')
print('speed: input seconds per CPU second for the stereo music file (whole process); len: worst output/expected length.')
print('ratios against the reference row: THD+N and alt as residual-power ratio 10^((x-ref)/10),')
print('smear mean and doubled as x/ref (above 1 = worse than the reference), speed as x/ref (above 1 = faster).')
for tempo in sorted({r['tempo'] for r in rows}, key=float):
    rs = [r for r in rows if r['tempo'] == tempo]
    ref = next((r for r in rs if r['label'] == 'practice --quality fast'), None)
    note = 'practice --quality fast'
    if ref is None:
        ref = next((r for r in rs if r['label'] == 'soundtouch music profile'), rs[0])
        note = ref['label'] + ' (practice not run)'
    print()
    print('tempo %s   reference: %s' % (tempo, note))
    h = ('%-30s %8s %7s %7s %10s %7s %6s %6s %6s | %7s %7s %7s %7s %7s' %
         ('tool', 'THD+N dB', 'p90', 'alt dB', 'smear ms', 'doubled', 'lost', 'speed', 'len',
          'THD+N', 'alt', 'smear', 'doubled', 'speed'))
    print(h)
    print('-' * len(h))
    for r in rs:
        def ratio(k, db=False):
            a, b = num(r[k]), num(ref[k])
            if a is None or b is None:
                return '-'
            if db:
                return '%.2f' % 10 ** ((a - b) / 10)
            if b == 0:
                return '-' if a else '1.00'
            return '%.2f' % (a / b)
        sm = '-' if num(r['smear_med']) is None else '%s/%s' % (r['smear_med'], r['smear_mean'])
        dbl = '-' if num(r['doubled']) is None else '%s/%s' % (r['doubled'], r['clicks'])
        speed = '-' if num(r['speed']) is None else r['speed'] + 'x'
        lens = [num(v) for v in r['len'].split(',') if num(v) is not None]
        worst = '%.3f' % max(lens, key=lambda v: abs(v - 1)) if lens else '-'
        print('%-30s %8s %7s %7s %10s %7s %6s %6s %6s | %7s %7s %7s %7s %7s' %
              (r['label'][:30], r['thdn'], r['p90'], r['alt'], sm, dbl, r['lost'], speed, worst,
               ratio('thdn', True), ratio('alt', True), ratio('smear_mean'), ratio('doubled'), ratio('speed')))
print()
print('raw results: %s' % sys.argv[1])
EOF

# ---------------------------------------------------------------- spectral envelope
# 20 s of a real song (Debian's wesnoth-1.16-music: frantic, from 0:30) at ENVELOPE_TEMPOS by
# each tool; envelope.py gives how far each output's spectral envelope and centroid moved from
# the input's, in cents (ENVELOPE=0 skips it).
SONG=/usr/share/games/wesnoth/1.16/data/core/music/frantic.ogg
if [ "${ENVELOPE:-1}" = 1 ] && [ -r "$SONG" ]; then
    sox "$SONG" -b 24 "$IN/song.wav" trim 30 20
    for t in ${ENVELOPE_TEMPOS:-0.5 1.5}; do
        outputs=()
        for i in "${!TOOLS[@]}"; do
            fn="${TOOLS[$i]}"
            o="$OUT/out/${fn#tool_}_${t}_song.wav"
            rm -f "$o"
            "$fn" "$IN/song.wav" "$o" "$t" || true
            if [ -s "$o" ]; then outputs+=("${LABELS[$i]}=$o"); else echo "run.sh: ${LABELS[$i]} at tempo $t wrote no song" >&2; fi
        done
        echo
        echo "spectral envelope at tempo $t (20 s of frantic; cents from the input's; error = the larger of |centroid| and |shift|):"
        "$PYTHON" "$HERE/envelope.py" --ref "$IN/song.wav" "${outputs[@]}"
    done
elif [ "${ENVELOPE:-1}" = 1 ]; then
    echo "run.sh: $SONG not found (wesnoth-1.16-music), skipping the spectral envelope" >&2
fi
