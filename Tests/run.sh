#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make test's runs, once the suites (debug build) and the binary they run (release build) are built.
#
# Two lanes at once, because the suites' time goes two ways: most of them keep both cores busy,
# and four of them mostly wait (they play through a live sound server in real time, drive a
# screen in tmux, or players from playerctl).
#   - the real-time lane, at normal priority, one suite after another: EngineTests (its stress
#     test wants the task pool to itself), RealTimeTests, TerminalTests, MPRISTests;
#   - the busy lane, at the lowest priority (nice 19: whatever the real-time lane needs comes
#     first), every other suite in SHARDS test processes at once (a test process runs its tests
#     on one thread per core, and a test that waits for a program holds its thread), then the
#     engine under ThreadSanitizer (make check-threads), then make check-install.
# The test bundle is run directly, not through `swift test`, which locks the build folder that
# check-install builds the manual in. Each run's output is in .build/test-logs; a failed run's
# is printed whole, and the exit status is 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
make=${MAKE:-make}
bundle=.build/debug/practicePackageTests.xctest
logs=.build/test-logs
shards=${SHARDS:-3}
realtime=(EngineTests RealTimeTests TerminalTests MPRISTests)
export PRACTICE_BINARY=$PWD/.build/release/practice SWIFT_BACKTRACE=interactive=no NO_COLOR=1
[ -x "$bundle" ] && [ -x "$PRACTICE_BINARY" ] || { echo "Tests/run.sh: build the suites and the release binary first (make test does)" >&2; exit 70; }

# A regular expression matching the suites given one per line on stdin, for --filter.
suites_filter() { sed 's/\./\\./g; s#$#/#' | paste -sd '|' | sed 's/.*/(&)/'; }

realtime_lane() {
    for suite in "${realtime[@]}"; do
        "$bundle" --testing-library swift-testing --filter "\\.$suite/" > "$logs/$suite.log" 2>&1 || echo "$suite" >> "$logs/failed"
    done
}

busy_lane() {
    local all pids=() i
    all=$("$bundle" --testing-library swift-testing --list-tests | sed 's#/.*##' | sort -u \
        | grep -vE "\\.($(IFS='|'; echo "${realtime[*]}"))\$")
    for ((i = 0; i < shards; i++)); do
        ( "$bundle" --testing-library swift-testing \
            --filter "$(awk -v n="$shards" -v i="$i" 'NR % n == i' <<< "$all" | suites_filter)" \
            > "$logs/shard-$i.log" 2>&1 || echo "shard-$i" >> "$logs/failed" ) &
        pids+=($!)
    done
    "$bundle" --testing-library xctest > "$logs/xctest.log" 2>&1 || echo xctest >> "$logs/failed"
    wait "${pids[@]}"
    "$make" --no-print-directory check-threads > "$logs/check-threads.log" 2>&1 || echo check-threads >> "$logs/failed"
    "$make" --no-print-directory check-install > "$logs/check-install.log" 2>&1 || echo check-install >> "$logs/failed"
}

if [ "${1:-}" = busy-lane ]; then busy_lane; exit 0; fi

start=$SECONDS
rm -rf "$logs" && mkdir -p "$logs"
realtime_lane &
realtime_pid=$!
nice -n 19 "$0" busy-lane &
busy_pid=$!
wait "$realtime_pid" "$busy_pid"

for log in "$logs"/*.log; do
    run=$(basename "$log" .log)
    if grep -qx "$run" "$logs/failed" 2>/dev/null; then
        echo "==== $run failed; its output:"
        cat "$log"
    fi
done
for log in "$logs"/*.log; do
    printf '%-16s %s\n' "$(basename "$log" .log)" "$(grep -E 'Test run with|Executed [0-9]+ tests|ThreadSanitizer|check-install:|Build complete' "$log" | tail -n 1)"
done
echo "Tests/run.sh: $((SECONDS - start)) s"
if [ -s "$logs/failed" ]; then
    echo "Failed: $(paste -sd ' ' "$logs/failed")" >&2
    exit 1
fi
