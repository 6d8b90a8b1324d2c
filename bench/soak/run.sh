#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Soak bench: practice drilling a loop at 0.8x with count-ins for two hours through a private
# real-time PulseAudio null sink, beside mpv looping the same region (README.md in this folder).
#
#   bench/soak/run.sh                 # two hours (the figure in the README)
#   bench/soak/run.sh --minutes 5     # the short version, part of the bench set
#
# Environment: PRACTICE (default .build/release/practice), PYTHON (python3 with numpy), OUT (default /tmp/practice-soak).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
OUT="${OUT:-/tmp/practice-soak}"
[[ -x "$PRACTICE" ]] || { echo "run.sh: no $PRACTICE (run 'make release' or set PRACTICE)" >&2; exit 1; }
. "$HERE/../numpy-python.sh"
exec "$PYTHON" "$HERE/run.py" --practice "$PRACTICE" --out "$OUT" "$@"
