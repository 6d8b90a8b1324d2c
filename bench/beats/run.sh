#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Beats: practice's grid beside Debian's aubio-tools and librosa on the tests' generated corpus
# (and its held-out tracks): the tempo's octave, the beat F-measure at ±70 ms, the "1"; on
# generated drums, and the time to analyse five minutes; then real songs (wesnoth-1.16-music)
# beside aubio's and librosa's tempo. See run.py.
#
#   bench/beats/run.sh        # .build/release/practice (make release); about ten minutes
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
bench_setup beats aubio
# librosa (the reference for the real songs' tempo octave) from PyPI, when it is missing.
python3 -c "import librosa" 2>/dev/null || pip install --quiet librosa >/dev/null 2>&1 || echo "run.sh: librosa not installed; its column stays empty" >&2
# The corpus, written by the tests' own generator (a debug build of the beat-corpus tool).
(cd "$ROOT" && "${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}" build --product beat-corpus >/dev/null) && "$ROOT/.build/debug/beat-corpus" "$WORK/corpus" >/dev/null
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; practice: $PRACTICE; $(aubio --version 2>&1 | head -1)"
python3 "$ROOT/bench/beats/run.py" "$PRACTICE" "$WORK" "$REPS"
