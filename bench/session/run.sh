#!/usr/bin/env bash
# Session bench: practice's interactive session against mpv (scaletempo2, JSON IPC) through a
# private PulseAudio null sink, plus idle CPU and terminal redraws under tmux.
# See README.md in this folder. All arguments go to run.py (run.sh --help lists them).
#
#   bench/session/run.sh                        # everything, about 3.5 minutes
#   bench/session/run.sh --tests idle,terminal  # CPU and redraws only, about 1 minute
#
# Environment:
#   PRACTICE  our player (default: .build/release/practice of this repository)
#   PYTHON    python3 with numpy (default: /root/.pyenv/shims/python3 if present, else python3)
#   OUT       work folder (default /tmp/practice-session)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
OUT="${OUT:-/tmp/practice-session}"
if [ -z "${PYTHON:-}" ]; then
    if [ -x /root/.pyenv/shims/python3 ]; then PYTHON=/root/.pyenv/shims/python3; else PYTHON=python3; fi
fi
"$PYTHON" -c 'import numpy' 2>/dev/null || { echo "run.sh: $PYTHON has no numpy" >&2; exit 1; }
exec "$PYTHON" "$HERE/run.py" --practice "$PRACTICE" --out "$OUT" "$@"
