#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Real-time bench: practice against mpv (scaletempo2) through a private PulseAudio null sink.
# See README.md in this folder. All arguments go to run.py (run.sh --help lists them).
#
#   bench/realtime/run.sh                       # the full run, about 7 minutes
#   bench/realtime/run.sh --tests launch,seek,rate --cpu-variants 0    # latencies only, about 1.5 min
#
# Environment:
#   PRACTICE  our player (default: .build/release/practice of this repository)
#   PYTHON    python3 with numpy (default: python3 on PATH, else /usr/bin/python3: see ../numpy-python.sh)
#   OUT       work folder (default /tmp/practice-realtime)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
OUT="${OUT:-/tmp/practice-realtime}"
. "$HERE/../numpy-python.sh"
exec "$PYTHON" "$HERE/run.py" --practice "$PRACTICE" --out "$OUT" "$@"
