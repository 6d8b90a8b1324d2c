#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Video bench: the picture in mpv's window against the sound practice plays, and mpv alone on
# the same files, in one run under a private Xvfb (openbox) and a real-time PulseAudio null
# sink. See README.md in this folder. All arguments go to run.py (run.sh --help lists them).
#
#   bench/video/run.sh                     # sync, jump and cpu: about 9 minutes
#   bench/video/run.sh --tests sync,jump   # without the CPU runs: about 1 minute
#
# Environment:
#   PRACTICE  our player (default: .build/release/practice of this repository)
#   OUT       work folder (default /tmp/practice-video)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
OUT="${OUT:-/tmp/practice-video}"
. "$HERE/../numpy-python.sh"
for t in Xvfb openbox xwininfo xprop mpv ffmpeg pulseaudio pactl; do
    command -v "$t" >/dev/null || { echo "run.sh: $t not found (make deps)" >&2; exit 1; }
done
exec "$PYTHON" "$HERE/run.py" --practice "$PRACTICE" --out "$OUT" "$@"
