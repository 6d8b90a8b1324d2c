#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Session bench: practice's interactive session against mpv (scaletempo2, JSON IPC) through a
# private PulseAudio null sink, plus idle CPU and terminal redraws under tmux.
# See README.md in this folder. All arguments go to run.py (run.sh --help lists them).
#
#   bench/session/run.sh                        # everything, about 3.5 minutes
#   bench/session/run.sh --tests idle,terminal  # CPU and redraws only, about 1 minute
#
# Environment:
#   PRACTICE  our player (default: .build/release/practice of this repository)
#   PYTHON    python3 with numpy (default: python3 on PATH, else /usr/bin/python3: see ../numpy-python.sh)
#   OUT       work folder (default /tmp/practice-session)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
OUT="${OUT:-/tmp/practice-session}"
. "$HERE/../numpy-python.sh"
exec "$PYTHON" "$HERE/run.py" --practice "$PRACTICE" --out "$OUT" "$@"
