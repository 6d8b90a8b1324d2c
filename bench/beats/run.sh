#!/usr/bin/env bash
# Beats: practice's grid beside Debian's aubio-tools on the same generated drums: the tempo's
# error, the beat F-measure at ±70 ms, and the time to analyse five minutes; then real songs
# (wesnoth-1.16-music) beside aubio's and librosa's tempo. See run.py.
#
#   bench/beats/run.sh        # .build/release/practice (make release); about a minute
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
bench_setup beats aubio
# librosa (the reference for the real songs' tempo octave) from PyPI, when it is missing.
python3 -c "import librosa" 2>/dev/null || pip install --quiet librosa >/dev/null 2>&1 || echo "run.sh: librosa not installed; its column stays empty" >&2
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; practice: $PRACTICE; $(aubio --version 2>&1 | head -1)"
python3 "$ROOT/bench/beats/run.py" "$PRACTICE" "$WORK" "$REPS"
