# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by bench scripts that time whole `practice` processes (markers, align):
#   source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"; bench_setup NAME TOOL...
# sets ROOT, PRACTICE (a release build unless given), REPS (9 unless given) and WORK (a fresh
# ${TMPDIR:-/tmp}/practice-NAME-bench unless given, made the current folder, with its own
# cache), after checking that the binary and each TOOL are there; `ms CMD…` prints CMD's wall
# time in milliseconds (its output discarded).
set -euo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

bench_setup() {
    local name=$1; shift
    PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
    REPS="${REPS:-9}"
    WORK="${WORK:-${TMPDIR:-/tmp}/practice-$name-bench}"
    [[ -x "$PRACTICE" ]] || { echo "run.sh: no $PRACTICE (run 'make release' or set PRACTICE)" >&2; exit 1; }
    for t in "$@" python3; do command -v "$t" >/dev/null || { echo "run.sh: $t not found" >&2; exit 1; }; done
    rm -rf "$WORK"; mkdir -p "$WORK"; cd "$WORK"
    export XDG_CACHE_HOME="$WORK/cache" PRACTICE_AUTHOR=""
}

ms() { local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1; local t1=$EPOCHREALTIME; python3 -c "print('%.1f' % ((float('$t1') - float('$t0')) * 1000))"; }
