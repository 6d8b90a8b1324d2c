#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# MPRIS bench: practice against mpv with mpv-mpris, driven by playerctl and busctl on a private
# session bus, through a private PulseAudio null sink. See README.md in this folder.
#
#   bench/mpris/run.sh                  # about 3 minutes
#
# Environment:
#   PRACTICE  our player (default: .build/release/practice of this repository)
#   PYTHON    python3 with numpy (default: see ../numpy-python.sh)
#   OUT       work folder (default /tmp/practice-mpris)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
OUT="${OUT:-/tmp/practice-mpris}"
. "$HERE/../numpy-python.sh"
exec "$PYTHON" "$HERE/run.py" --practice "$PRACTICE" --out "$OUT" "$@"
