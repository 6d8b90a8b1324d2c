#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every fuzz target (Tests/Fuzz/Targets, built by `make fuzz` into .build-fuzz with
# -sanitize=fuzzer,address) for FUZZ_SECONDS each (default 60), or for FUZZ_RUNS inputs each
# when that is set, or until FUZZ_UNTIL inputs in all (across runs: a target that has them is
# skipped); FUZZ_TARGETS picks some (default: all). Inputs are at most FUZZ_MAX_LEN bytes
# (default 2048: every construct of these formats fits, and short inputs run ten times faster;
# 16384 for tags, whose files carry headers and pictures). The corpus each grows stays in
# .build-fuzz/corpus/TARGET (the seeds in Tests/Fuzz/corpus/TARGET are read, never written); the
# inputs run are added up per target in .build-fuzz/runs/TARGET across runs. An input that
# crashes, leaks or hangs (> 10 s) is copied to Tests/Fuzz/crashes/TARGET/, where the tests
# replay it (FuzzCorpusTests) once fixed; the run then exits 1.
set -uo pipefail
cd "$(dirname "$0")/../.."
fuzzer=.build-fuzz/release/practice-fuzz
[ -x "$fuzzer" ] || { echo "run 'make fuzz' (it builds $fuzzer)" >&2; exit 66; }
targets=${FUZZ_TARGETS:-$(ls Tests/Fuzz/corpus)}

mkdir -p .build-fuzz/runs .build-fuzz/logs
failed=0
printf '%-14s %12s %8s %10s %14s  %s\n' target runs seconds exec/s "runs in all" result
for t in $targets; do
    mkdir -p ".build-fuzz/corpus/$t" ".build-fuzz/crashes"
    log=".build-fuzz/logs/$t.log"
    max_len=${FUZZ_MAX_LEN:-2048}
    [ "$t" = tags ] || [ "$t" = container ] && max_len=${FUZZ_MAX_LEN:-16384}
    before=$(cat ".build-fuzz/runs/$t" 2>/dev/null || echo 0)
    if [ -n "${FUZZ_UNTIL:-}" ]; then
        [ "$before" -ge "$FUZZ_UNTIL" ] && { printf '%-14s %12d %8d %10s %14d  %s\n' "$t" 0 0 - "$before" "had them"; continue; }
        limit=(-runs=$(( FUZZ_UNTIL - before )))
    elif [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); else limit=(-max_total_time="${FUZZ_SECONDS:-60}"); fi
    start=$(date +%s)
    PRACTICE_FUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=abort_on_error=1:symbolize=1 \
        "$fuzzer" "${limit[@]}" -timeout=10 -rss_limit_mb=3072 -max_len=$max_len -print_final_stats=1 \
        -artifact_prefix=".build-fuzz/crashes/$t-" ".build-fuzz/corpus/$t" "Tests/Fuzz/corpus/$t" >"$log" 2>&1 &
    child=$!
    # Stopped (Ctrl-C; TERM for a run in the background, where INT is ignored): the fuzzer stops
    # too, and the inputs it ran still count.
    trap 'kill -INT $child 2>/dev/null; wait $child; interrupted=1' INT TERM
    interrupted=0
    wait $child
    status=$?
    [ $interrupted -eq 1 ] && { wait $child 2>/dev/null; status=0; }
    trap - INT TERM
    seconds=$(( $(date +%s) - start ))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # Without final stats (stopped part-way): the last count libFuzzer printed.
    [ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$log" | tail -1)
    runs=${runs:-0}
    total=$(( before + runs ))
    result=ok
    # A fuzzer whose Swift code was built without coverage (swiftc's -sanitize=fuzzer alone, before
    # the Makefile asked for -sanitize-coverage by name) runs fast and finds nothing: libFuzzer then
    # starts with no coverage ("INITED exec/s", not "INITED cov:"), and its inputs do not count.
    if grep -q "Is the code instrumented for coverage" "$log" ||
       { grep -q "INITED" "$log" && ! grep -q "INITED cov:" "$log"; }; then
        status=1 runs=0 total=$before
        result="FAILED: $fuzzer has no coverage; rebuild it from scratch (rm -rf .build-fuzz/x86_64-unknown-linux-gnu; make fuzz)"
        failed=1
    elif [ $status -ne 0 ]; then
        result="FAILED (exit $status, see $log)"
        failed=1
        for a in .build-fuzz/crashes/"$t"-*; do
            [ -e "$a" ] || continue
            mkdir -p "Tests/Fuzz/crashes/$t"
            mv "$a" "Tests/Fuzz/crashes/$t/$(basename "$a" | sed "s/^$t-//")"
            result="$result; input kept in Tests/Fuzz/crashes/$t/"
        done
    else
        echo "$total" > ".build-fuzz/runs/$t"
    fi
    printf '%-14s %12d %8d %10d %14d  %s\n' "$t" "$runs" "$seconds" $(( runs / (seconds > 0 ? seconds : 1) )) "$total" "$result"
    [ $interrupted -eq 1 ] && exit 130
done
exit $failed
