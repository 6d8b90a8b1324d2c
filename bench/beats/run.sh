#!/usr/bin/env bash
# Beats: practice's grid beside Debian's aubio-tools on the same generated drums: the tempo's
# error, the beat F-measure at ±70 ms, and the time to analyse five minutes. See run.py.
#
#   bench/beats/run.sh        # .build/release/practice (make release); about a minute
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
bench_setup beats aubio
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; practice: $PRACTICE; $(aubio --version 2>&1 | head -1)"
python3 "$ROOT/bench/beats/run.py" "$PRACTICE" "$WORK" "$REPS"
