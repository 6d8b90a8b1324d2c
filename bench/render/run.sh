#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Render speed and memory bench: `practice render` against soundstretch (the
# same SoundTouch) and sox `tempo`, on the same inputs, interleaved in one run.
# See README.md in this folder.
#
#   bench/render/run.sh
#   REPS=9 bench/render/run.sh
#   PRACTICE=/path/to/practice WORK=/tmp/somewhere bench/render/run.sh
#
# Environment:
#   PRACTICE   the player binary (default .build/release/practice, relative to
#              the repository root)
#   REPS       timed repetitions per tool, interleaved (default 5)
#   RATE       speed, 0.8 = slower (default 0.8; soundstretch gets -tempo=-20)
#   WORK       work folder (default ${TMPDIR:-/tmp}/practice-render-bench);
#              inputs in WORK/in are kept and reused, outputs in WORK/out
#   SHORT_MIN  LONG_MIN  input lengths in minutes (default 5 and 60)
#   DIAG       1 (default): also time practice --profile soundtouch (the same
#              SoundTouch settings as soundstretch); 0 = skip
#   HIGH       1 (default): also time practice --quality high (Rubber Band R3)
#              and the rubberband program (--fine: R3), 0 = skip
#   CALLGRIND  1 (default): instruction counts on a 10-second excerpt; 0 = skip
#   PYTHON     python3 (default: python3 on PATH)
#
# Needs: sox, soundstretch, /usr/bin/time (GNU time), python3, bash >= 5;
# valgrind for the instruction counts.
set -euo pipefail
export LC_ALL=C

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PRACTICE="${PRACTICE:-.build/release/practice}"
REPS="${REPS:-5}"
RATE="${RATE:-0.8}"
WORK="${WORK:-${TMPDIR:-/tmp}/practice-render-bench}"
SHORT_MIN="${SHORT_MIN:-5}"
LONG_MIN="${LONG_MIN:-60}"
DIAG="${DIAG:-1}"
HIGH="${HIGH:-1}"
CALLGRIND="${CALLGRIND:-1}"
PYTHON="${PYTHON:-python3}"
EXCERPT_S=10

die() { echo "run.sh: $*" >&2; exit 1; }

# PRACTICE: absolute, or relative to the repository root, or a command on PATH.
if [[ "$PRACTICE" != /* ]]; then
    if [[ -x "$ROOT/$PRACTICE" ]]; then
        PRACTICE="$ROOT/$PRACTICE"
    elif command -v "$PRACTICE" >/dev/null 2>&1; then
        PRACTICE="$(command -v "$PRACTICE")"
    fi
fi
[[ -x "$PRACTICE" ]] || die "practice binary not found: $PRACTICE (build it or set PRACTICE)"
for t in sox soxi soundstretch "$PYTHON"; do
    command -v "$t" >/dev/null 2>&1 || die "$t not found"
done
[[ -x /usr/bin/time ]] || die "/usr/bin/time (GNU time) not found"
[[ -n "${EPOCHREALTIME:-}" ]] || die "bash >= 5 needed (EPOCHREALTIME)"
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || die "REPS must be a positive integer"
ST_TEMPO=$(awk -v r="$RATE" 'BEGIN { printf "%+g", (r - 1) * 100 }')

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
IN="$WORK/in"; OUTD="$WORK/out"; LOG="$WORK/log"
mkdir -p "$IN" "$OUTD" "$LOG"
RES="$WORK/results.tsv"
: >"$RES"

# ---------------------------------------------------------------- inputs
# An 8-second loop: a plucked melody (16 notes of 0.5 s) over a tremolo chord
# pad (four chords of 2 s) and pink noise at -30 dB, mixed to stereo with
# different panning; repeated to length. 16-bit, 44.1 kHz, stereo.
RECIPE="render-bench inputs v1 short=$SHORT_MIN long=$LONG_MIN excerpt=$EXCERPT_S"
SHORT="$IN/short.wav"; LONG="$IN/long.wav"; SHORT_FLAC="$IN/short.flac"; EXCERPT="$IN/excerpt.wav"
if [[ "$(cat "$IN/recipe.txt" 2>/dev/null)" == "$RECIPE" && -s "$SHORT" && -s "$LONG" && -s "$SHORT_FLAC" && -s "$EXCERPT" ]]; then
    echo "inputs: reusing $IN"
else
    echo "inputs: making them in $IN"
    rm -f "$IN"/*
    (
        cd "$IN"
        R=(-r 44100 -b 16 -c 1)
        notes=(A3 C4 E4 A4 G3 B3 D4 G4 F3 A3 C4 F4 E3 G#3 B3 E4)
        files=()
        for i in "${!notes[@]}"; do
            sox -n "${R[@]}" "n$i.wav" synth 0.5 pluck "${notes[$i]}" fade 0 0.5 0.05
            files+=("n$i.wav")
        done
        sox "${files[@]}" plucks.wav
        sox -n "${R[@]}" c0.wav synth 2 sine A2 sine C3 sine E3 fade 0.05 2 0.05
        sox -n "${R[@]}" c1.wav synth 2 sine G2 sine B2 sine D3 fade 0.05 2 0.05
        sox -n "${R[@]}" c2.wav synth 2 sine F2 sine A2 sine C3 fade 0.05 2 0.05
        sox -n "${R[@]}" c3.wav synth 2 sine E2 sine G#2 sine B2 fade 0.05 2 0.05
        sox c0.wav c1.wav c2.wav c3.wav pad.wav tremolo 5 50
        sox -n "${R[@]}" noise.wav synth 8 pinknoise gain -30
        sox -M plucks.wav pad.wav noise.wav -c 2 loop.wav remix 1v0.7,2v0.5,3 1v0.4,2v0.6,3v0.8 gain -n -3
        sox loop.wav short.wav repeat $(( SHORT_MIN * 60 / 8 + 1 )) trim 0 $(( SHORT_MIN * 60 ))
        sox loop.wav long.wav repeat $(( LONG_MIN * 60 / 8 + 1 )) trim 0 $(( LONG_MIN * 60 ))
        sox short.wav short.flac
        sox short.wav excerpt.wav trim 0 "$EXCERPT_S"
        rm -f n*.wav c?.wav plucks.wav pad.wav noise.wav loop.wav
    )
    echo "$RECIPE" >"$IN/recipe.txt"
fi
SHORT_FRAMES=$(soxi -s "$SHORT"); LONG_FRAMES=$(soxi -s "$LONG")

# ---------------------------------------------------------------- timing
# timed LABEL REP INPUT OUTPUT CMD...: wall time from bash's EPOCHREALTIME (us
# resolution, no extra process), peak RSS from GNU time (%M, KB; a small
# forking parent, so the figure is the tool's own). One line per run in RES.
timed() {
    local label=$1 rep=$2 input=$3 output=$4 t0 t1 rss frames fmt
    shift 4
    [[ "$output" == - ]] || rm -f "$output"
    # CPU from bash's `time` (getrusage of the children, to the millisecond; GNU time's %U and %S
    # are in hundredths, 1.5 % of a 0.7 s render); it includes GNU time's own, under a millisecond.
    local TIMEFORMAT='%3U %3S' status
    t0=$EPOCHREALTIME
    { time /usr/bin/time -f '%M' -o "$LOG/rss.txt" "$@" >"$LOG/$label.out" 2>"$LOG/$label.err"; status=$?; } 2>"$LOG/cpu.txt"
    t1=$EPOCHREALTIME
    if ((status != 0)); then
        echo "run.sh: $label failed: $*" >&2
        tail -n 5 "$LOG/$label.err" >&2
        exit 1
    fi
    rss=$(tail -n 1 "$LOG/rss.txt")
    read -r user sys < <(tail -n 1 "$LOG/cpu.txt")
    if [[ "$output" == - ]]; then
        frames=0; fmt=-
    else
        frames=$(soxi -s "$output"); fmt="$(soxi -c "$output")ch/$(soxi -b "$output")bit/$(soxi -r "$output")"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$rep" "$t0" "$t1" "$rss" "$(soxi -s "$input" 2>/dev/null || echo 0)" \
        "$frames" "$fmt" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" >>"$RES"
}

run_tool() { # run_tool LABEL REP INPUT
    local label=$1 rep=$2 in=$3 o="$OUTD/$1.wav"
    case "$label" in
        practice|practice-flac|practice-long)   # SoundTouch, as soundstretch (a render's default is Rubber Band: practice-high)
            timed "$label" "$rep" "$in" "$o" "$PRACTICE" render "$in" -o "$o" --rate "$RATE" --force -q --quality fast ;;
        soundstretch)
            timed "$label" "$rep" "$in" "$o" soundstretch "$in" "$o" -tempo="$ST_TEMPO" ;;
        sox)
            timed "$label" "$rep" "$in" "$o" sox "$in" "$o" tempo "$RATE" ;;
        practice-st)
            timed "$label" "$rep" "$in" "$o" "$PRACTICE" render "$in" -o "$o" --rate "$RATE" --force -q --profile soundtouch ;;
        c-loop)
            timed "$label" "$rep" "$in" "$o" "$CLOOP" "$in" "$o" "$RATE" ;;
        practice-high)
            timed "$label" "$rep" "$in" "$o" "$PRACTICE" render "$in" -o "$o" --rate "$RATE" --force -q --quality high ;;
        rubberband)
            timed "$label" "$rep" "$in" "$o" rubberband --fine -q -T "$RATE" "$in" "$o" ;;
        *) die "unknown tool $label" ;;
    esac
}

TOOLS=(practice soundstretch sox)
if [[ "$DIAG" == 1 ]]; then
    TOOLS+=(practice-st)
    # The same-settings C loop (c_loop.c: libsndfile and SoundTouch's C API, read, stretch, write).
    CLOOP="$WORK/c_loop"
    if gcc -O2 "$HERE/c_loop.c" -o "$CLOOP" -lSoundTouchDll -lsndfile -lm 2>"$LOG/c_loop.err"; then
        TOOLS+=(c-loop)
    else
        echo "run.sh: cannot build c_loop.c (gcc, libsndfile1-dev, libsoundtouch-dev), skipping it" >&2
    fi
fi
if [[ "$HIGH" == 1 ]]; then
    TOOLS+=(practice-high)
    if command -v rubberband >/dev/null 2>&1; then TOOLS+=(rubberband); else echo "run.sh: rubberband not found (rubberband-cli), skipping it" >&2; fi
fi
n=${#TOOLS[@]}
echo "speed: $REPS interleaved repetitions of ${TOOLS[*]} on the ${SHORT_MIN}-minute WAV (plus one warm-up each)"
for ((rep = 0; rep <= REPS; rep++)); do      # rep 0 = warm-up, not counted
    for ((k = 0; k < n; k++)); do              # rotate the order every repetition
        run_tool "${TOOLS[$(( (k + rep) % n ))]}" "$rep" "$SHORT"
    done
    printf '  repetition %d/%d done\n' "$rep" "$REPS"
done

echo "memory: practice --version, render of the ${LONG_MIN}-minute WAV and the ${SHORT_MIN}-minute FLAC"
for rep in 1 2 3; do
    timed practice-version "$rep" "$SHORT" - "$PRACTICE" --version
    run_tool practice-flac "$rep" "$SHORT_FLAC"
done
run_tool practice-long 1 "$LONG"
rm -f "$OUTD/practice-long.wav"

# ---------------------------------------------------------------- callgrind
CG="$WORK/callgrind"
# valgrind 3.19 gives up on some Swift 6.3 binaries ("Possibly corrupted debuginfo file"): probe first.
if [[ "$CALLGRIND" == 1 ]] && command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1 \
    && ! valgrind --tool=callgrind --callgrind-out-file=/dev/null "$PRACTICE" --version >/dev/null 2>&1; then
    echo "callgrind: skipped (valgrind cannot read $PRACTICE)"
    CALLGRIND=0
fi
if [[ "$CALLGRIND" == 1 ]] && command -v valgrind >/dev/null 2>&1 && command -v callgrind_annotate >/dev/null 2>&1; then
    echo "callgrind: instruction counts on a ${EXCERPT_S}-second excerpt"
    mkdir -p "$CG"; rm -f "$CG"/*
    cg() { # cg LABEL CMD...
        local label=$1; shift
        valgrind --tool=callgrind --callgrind-out-file="$CG/$label.out" "$@" >"$LOG/cg-$label.out" 2>"$LOG/cg-$label.err" \
            || { echo "run.sh: callgrind $label failed" >&2; tail -n 5 "$LOG/cg-$label.err" >&2; exit 1; }
        callgrind_annotate --auto=no --threshold=100 "$CG/$label.out" >"$CG/$label.txt" 2>/dev/null
    }
    cg practice "$PRACTICE" render "$EXCERPT" -o "$OUTD/cg-practice.wav" --rate "$RATE" --force -q --quality fast
    cg soundstretch soundstretch "$EXCERPT" "$OUTD/cg-soundstretch.wav" -tempo="$ST_TEMPO"
    cg practice-version "$PRACTICE" --version
    if [[ "$DIAG" == 1 ]]; then
        cg practice-st "$PRACTICE" render "$EXCERPT" -o "$OUTD/cg-practice-st.wav" --rate "$RATE" --force -q --profile soundtouch
    fi
else
    echo "callgrind: skipped"
    rm -rf "$CG"
fi

# ---------------------------------------------------------------- report
echo
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC');  machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //');  load average at start: $LOAD0, at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "practice: $PRACTICE ($("$PRACTICE" --version));  soundstretch $(soundstretch 2>&1 | grep -m1 -o 'v[0-9][0-9.]*');  $(sox --version 2>&1 | grep -o 'SoX v[0-9.]*')"
"$PYTHON" - "$RES" "$CG" "$RATE" "$REPS" "$SHORT_MIN" "$LONG_MIN" "$EXCERPT_S" "$PRACTICE" "$ST_TEMPO" "$OUTD" <<'EOF'
import os, re, statistics, sys
res, cgdir, rate, reps, short_min, long_min, excerpt_s, practice, st_tempo, outd = sys.argv[1:]
rate = float(rate)
rows = []
for line in open(res):
    label, rep, t0, t1, rss, inframes, outframes, fmt, cpu = line.rstrip('\n').split('\t')
    rows.append(dict(label=label, rep=int(rep), wall=float(t1) - float(t0), rss=int(rss),
                     inframes=int(inframes), outframes=int(outframes), fmt=fmt, cpu=float(cpu)))
def runs(label, counted=True):
    return [r for r in rows if r['label'] == label and (r['rep'] > 0 or not counted)]
def med(xs): return statistics.median(xs)
MB = 1024.0  # GNU time's %M is in KB; 1 MB = 1024 KB here

def length_check(rs):
    bad = [r for r in rs if r['outframes'] and abs(r['outframes'] - r['inframes'] / rate) > 0.001 * r['inframes'] / rate]
    fmts = sorted({r['fmt'] for r in rs})
    return ('ok' if not bad else 'BAD %d' % len(bad)), ','.join(fmts)

secs = int(short_min) * 60
commands = {
    'practice': 'practice render IN -o OUT --rate %g --force -q --quality fast' % rate,
    'soundstretch': 'soundstretch IN OUT -tempo=%s' % st_tempo,
    'sox': 'sox IN OUT tempo %g' % rate,
    'practice-st': 'practice render IN -o OUT --rate %g --force -q --profile soundtouch' % rate,
    'practice-high': 'practice render IN -o OUT --rate %g --force -q --quality high (the default)' % rate,
    'rubberband': 'rubberband --fine -q -T %g IN OUT' % rate,
    'c-loop': 'c_loop IN OUT %g  (bench/render/c_loop.c)' % rate,
}
tools = [t for t in commands if runs(t)]
by_rep = {t: {r['rep']: r['wall'] for r in runs(t)} for t in tools}
cpu_by_rep = {t: {r['rep']: r['cpu'] for r in runs(t)} for t in tools}
def ratio(a, b, of=by_rep):
    common = sorted(set(of[a]) & set(of[b]))
    return med([of[a][i] / of[b][i] for i in common])

print()
print('== Speed: %s-minute stereo 44.1 kHz 16-bit WAV -> 16-bit WAV, rate %g, %s interleaved repetitions ==' % (short_min, rate, reps))
print('wall: median (min-max) seconds; xRT: input seconds per wall second; RSS: peak over the repetitions')
h = '%-19s %-70s %14s %7s %7s %9s %8s %s' % ('tool', 'command', 'wall s', 'xRT', 'CPU s', 'RSS MB', 'length', 'format')
print(h); print('-' * len(h))
for t in tools:
    w = [r['wall'] for r in runs(t)]
    ok, fmts = length_check(runs(t))
    print('%-19s %-70s %6.3f (%.2f-%.2f) %6.0fx %7.3f %9.1f %8s %s' % (t, commands[t], med(w), min(w), max(w), secs / med(w),
          med([r['cpu'] for r in runs(t)]), max(r['rss'] for r in runs(t)) / MB, ok, fmts))
print()
print('median of per-repetition ratios:')
r_st = ratio('practice', 'soundstretch')
print('  practice / soundstretch          %.2f' % r_st)
print('  practice / sox                   %.2f' % ratio('practice', 'sox'))
if 'practice-st' in tools:
    r_q = ratio('practice-st', 'soundstretch')
    print('  practice --profile soundtouch / soundstretch (same SoundTouch settings)        %.2f' % r_q)
    print('  practice / practice --profile soundtouch                                        %.2f' % ratio('practice', 'practice-st'))
if 'c-loop' in tools:
    print('  practice --profile soundtouch / the C loop (same libraries and settings): wall %.2f (goal <= 0.70), CPU %.3f (goal <= 1.00)'
          % (ratio('practice-st', 'c-loop'), ratio('practice-st', 'c-loop', cpu_by_rep)))
if 'practice-high' in tools and 'rubberband' in tools:
    print('  practice --quality high / rubberband --fine (R3; ours with its short window)  %.2f' % ratio('practice-high', 'rubberband'))
    try:
        import numpy as np, wave
        def pcm(path):
            with wave.open(path) as w:
                return np.frombuffer(w.readframes(w.getnframes()), dtype='<i2').astype(np.int32)
        a, b = pcm(os.path.join(outd, 'practice-st.wav')), pcm(os.path.join(outd, 'soundstretch.wav'))
        # Over the first 10 s of output: the render's first piece, which is one stream's (after it,
        # the pieces made on the other core are renditions of their own; see SplitRender).
        n = min(len(a), len(b), 441000 * 2); d = np.abs(a[:n] - b[:n])
        print('  output check, the first 10 s: practice --profile soundtouch vs soundstretch: max |difference| %d LSB '
              '(%.0f%% of samples differ), lengths %d / %d frames' % (d.max(), 100.0 * np.count_nonzero(d) / n, len(a) // 2, len(b) // 2))
    except ImportError:
        print('  (no numpy: output check skipped)')

print()
print('== Memory: peak RSS of practice (max over runs) ==')
mem = [('practice --version (start-up only)', 'practice-version', None),
       ('render %s-min WAV' % short_min, 'practice', int(short_min)),
       ('render %s-min FLAC' % short_min, 'practice-flac', int(short_min)),
       ('render %s-min WAV' % long_min, 'practice-long', int(long_min))]
h = '%-36s %5s %10s %10s %8s' % ('run', 'runs', 'RSS MB', 'wall s', 'length')
print(h); print('-' * len(h))
peak = {}
for name, label, minutes in mem:
    rs = runs(label)
    peak[label] = max(r['rss'] for r in rs)
    wall = '%.2f' % med([r['wall'] for r in rs])
    ok = '-' if minutes is None else length_check(rs)[0]
    print('%-36s %5d %10.1f %10s %8s' % (name, len(rs), peak[label] / MB, wall, ok))
d_long = (peak['practice-long'] - peak['practice']) / MB
d_flac = (peak['practice-flac'] - peak['practice']) / MB
print('difference %s-min - %s-min WAV: %+.2f MB;  %s-min FLAC - WAV: %+.2f MB' % (long_min, short_min, d_long, short_min, d_flac))
long_wall = med([r['wall'] for r in runs('practice-long')])
print('%s-min render: %.1f s = %.0fx real time (%.2f s per 5 min; the %s-min WAV took %.2f s)' % (
    long_min, long_wall, int(long_min) * 60 / long_wall, long_wall * 5 / int(long_min), short_min, med([r['wall'] for r in runs('practice')])))

cg = {}
if os.path.isdir(cgdir):
    line_re = re.compile(r'^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?:\s+\[(.*)\])?\s*$')
    for f in sorted(os.listdir(cgdir)):
        if not f.endswith('.txt'): continue
        label = f[:-4]
        total, objs, funcs = 0, {}, []
        for l in open(os.path.join(cgdir, f)):
            if 'PROGRAM TOTALS' in l:
                total = int(l.split()[0].replace(',', '')); continue
            m = line_re.match(l)
            if not m: continue
            ir = int(m.group(1).replace(',', '')); fn = m.group(2); obj = m.group(3) or '?'
            o = os.path.basename(obj)
            if obj == '?' and fn.startswith('./elf/'): o = 'ld-linux'
            grp = ('SoundTouch' if 'SoundTouch' in o else 'libsndfile' if 'sndfile' in o else 'libc' if o.startswith('libc.') else
                   'Swift runtime + Foundation' if '/opt/swift' in obj or 'swift' in o.lower() or 'Foundation' in o or 'dispatch' in o.lower() else
                   'dynamic loader' if o.startswith('ld-linux') else 'program' if o in ('practice', 'soundstretch') else 'other')
            objs[grp] = objs.get(grp, 0) + ir
            funcs.append((ir, fn, o))
        cg[label] = dict(total=total, objs=objs, funcs=sorted(funcs, reverse=True))
if cg:
    print()
    print('== Instructions (callgrind Ir, %s-second excerpt, rate %g; repeatable) ==' % (excerpt_s, rate))
    groups = ['SoundTouch', 'libsndfile', 'libc', 'Swift runtime + Foundation', 'dynamic loader', 'program', 'other']
    h = '%-19s %14s ' % ('tool', 'total Ir') + ' '.join('%14s' % g[:14] for g in groups)
    print(h); print('-' * len(h))
    for label in ['practice', 'soundstretch', 'practice-st', 'practice-version']:
        if label not in cg: continue
        c = cg[label]
        print('%-19s %14s ' % (label, '{:,}'.format(c['total'])) + ' '.join('%14s' % '{:,}'.format(c['objs'].get(g, 0)) for g in groups))
    p, s = cg['practice'], cg['soundstretch']
    print('practice / soundstretch: %.2f (total), %.2f (inside SoundTouch), %.2f (total minus practice start-up)' % (
        p['total'] / s['total'], p['objs'].get('SoundTouch', 0) / s['objs'].get('SoundTouch', 1),
        (p['total'] - cg['practice-version']['total']) / s['total']))
    if 'practice-st' in cg:
        q, sq = cg['practice-st'], cg['soundstretch']
        print('practice --profile soundtouch / soundstretch: %.2f (total), %.2f (inside SoundTouch)' % (
            q['total'] / sq['total'], q['objs'].get('SoundTouch', 0) / sq['objs'].get('SoundTouch', 1)))
    for label in ['practice', 'soundstretch']:
        print('top functions, %s:' % label)
        for ir, fn, o in cg[label]['funcs'][:5]:
            print('  %5.1f%%  %-80s %s' % (100.0 * ir / cg[label]['total'], fn.replace('???:', '')[:80], o))
    print('(libSoundTouchDll.so, which practice links, carries its own symbol-less copy of SoundTouch; its')
    print(' functions show as addresses. Full listings: %s/*.txt)' % cgdir)

print()
speed_ok = r_st <= 1.1
# What the target guards is growth with the input's length. (With the render over both cores,
# the peak moves by a few MB from run to run, in either direction: the threads' buffers.)
rss_ok = d_long <= 2.0
print('VERDICT: speed %s (practice/soundstretch %.2f, target <= 1.10); memory %s (%s-min vs %s-min peak RSS %+.2f MB, target: at most 2 MB more)' % (
    'PASS' if speed_ok else 'FAIL', r_st, 'PASS' if rss_ok else 'FAIL', long_min, short_min, d_long))
print('raw results: %s' % res)
EOF
