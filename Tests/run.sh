#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# make test's runs, once the suites (debug build) and the binary they run (release build) are built.
#
# First the busy part, every core kept busy: the suites that need no quiet machine, each in a test
# process of its own, SHARDS processes at once, the heaviest first (a test process runs its tests
# on one thread per core, and a test waiting for a program it started holds its thread: the
# suites took 172 s with 3 at once, 162 with 4, 147-154 with 5, 170 with 8, and 180 as three fixed
# shards of a third of the suites each, 2026-12-02), EngineTests
# among them (its stress test wants the task pool to itself), then the engine under
# ThreadSanitizer (make check-threads) and make check-install.
# Then the quiet part, alone on the machine: the suites that play through a live sound server in
# real time and measure what is heard to the millisecond (beside a busy build they fail: a pass
# 37 ms long, a stall at the start, even at nice 19, and at SCHED_IDLE with ionice's idle class:
# an MPRIS player not on the bus within 10 s, a jump heard 94 ms off, 2026-12-05; and with a
# compiler beside it at SCHED_IDLE: MPRIS's next landing 6 s off). First eight processes that
# mostly wait and take a tenth of a core each: RealTimeTests (the position reported against the
# one heard, four rates, 42 s), each 30-second study drill of TerminalTests, its other screens in
# two halves, MPRISTests, LyricsFollowTests (lyric lines printed to the millisecond beside a
# real-time player), StallTests (a player stopped for 150 ms heard without a gap): 45 s, where RealTimeTests alone and then the other six took 80 (its medians
# the same to 0.4 ms, four runs); then the screen's count against the beat heard, alone;
# then RemoteTests (headless Chromium driving a player), RemoteTimingTests (what the pages are sent and when, and taps heard, one test at a time) and
# VideoTimingTests (the video's picture against the sound).
# A quiet run that failed is run once more, alone (see again()), and named in the summary; so is
# any run that hung (still running after LIMIT seconds, see passes()). That guard is checked on a
# test that never ends, beside the busy part's suites (`Tests/run.sh guard`, see guard()).
# `Tests/run.sh threads SUITE...` (make check-threads) runs the named suites of the ThreadSanitizer
# build the same way, each in a process of its own, SHARDS at once.
# Every run must run a test: one that runs none (a suite renamed, a filter gone stale) fails.
# The test bundle is run directly, not through `swift test`, which locks the build folder that
# check-install builds the manual in. Each run's output is in .build/test-logs; a failed run's
# is printed whole, and the exit status is 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
make=${MAKE:-make}
shards=${SHARDS:-5}
quiet=(RealTimeTests TerminalTests MPRISTests LyricsFollowTests StallTests RemoteTests RemoteTimingTests VideoTimingTests)
mode=${1:-all}
export SWIFT_BACKTRACE=interactive=no NO_COLOR=1
if [ "$mode" = threads ]; then
    # `make check-threads`: the suites named after it, from the ThreadSanitizer build (any report fails its run).
    bundle=.build-tsan/debug/practicePackageTests.xctest logs=.build-tsan/logs
    export TSAN_OPTIONS=halt_on_error=1
    [ -x "$bundle" ] || { echo "Tests/run.sh: build the suites under ThreadSanitizer first (make check-threads does)" >&2; exit 70; }
else
    bundle=.build/debug/practicePackageTests.xctest logs=${LOGS:-.build/test-logs}
    export PRACTICE_BINARY=$PWD/.build/release/practice
    [ -x "$bundle" ] && [ -x "$PRACTICE_BINARY" ] || { echo "Tests/run.sh: build the suites and the release binary first (make test does)" >&2; exit 70; }
fi

# A test process may run LIMIT seconds, then has KILL_AFTER to write its backtraces (see passes()).
limit=${LIMIT:-600} kill_after=${KILL_AFTER:-30}
# The line that says a run hung, and whether LOG has it.
hang_mark="Tests/run.sh: still running after"
was_hung() { grep -q "^$hang_mark" "$1"; }

# `timeout` puts each run in a process group of its own, which a Ctrl-C at the terminal does not
# reach: it is passed on to them (to their `timeout`, which hands it to the run and what it
# started). Each `timeout` runs in the background and is waited for (`bounded`), so that the trap
# runs at once, and its pid is noted for the trap (a TERM sent to the whole group may have ended
# the subshell that started it).
interrupted() {
    local pid
    trap - INT TERM
    for pid in $(cat "$logs/timeouts" 2>/dev/null); do
        [ "$(ps -o comm= -p "$pid")" = timeout ] && kill -TERM "$pid"
    done
    wait
    exit "$1"
}
trap 'interrupted 130' INT
trap 'interrupted 143' TERM

# Runs `timeout ARGS...` as above; its status.
bounded() {
    timeout "$@" &
    echo $! >> "$logs/timeouts"
    wait $!
}

# Runs the bundle's Swift Testing suites with ARGS, output in LOG; fails unless they ran a test
# and passed (a filter that matches nothing, a suite renamed or a split left empty, passes with
# no test at all). A process still running after LIMIT seconds (the longest took 73-85 s in CI, 148 s on a slow day) has
# hung: it and what it started are sent SIGQUIT, which has the Swift runtime print every thread's
# backtrace into the log, and are killed KILL_AFTER (30) s later, so that a hang fails its run, its place named
# (hung), instead of holding the machine until CI gives up.
passes() {
    local log=$1 status began=$SECONDS; shift
    bounded --signal=QUIT --kill-after="$kill_after" "$limit" "$bundle" --testing-library swift-testing "$@" > "$log" 2>&1
    status=$?
    # (124: stopped by `timeout`; 137: killed after it. Either after less than LIMIT is another
    # end, the out-of-memory killer's say: a failure, not a hang.)
    if (( (status == 124 || status == 137) && SECONDS - began >= limit )); then
        echo "$hang_mark $limit s, so stopped; the tests started and not ended: $(hung "$log")" >> "$log"
        return 1
    fi
    (( status == 0 )) && grep -q 'Test run with [1-9][0-9]* tests\{0,1\} in [0-9]* suites\{0,1\} passed' "$log"
}

# The tests LOG says were started and had not passed or failed when the backtraces were printed,
# on one line.
hung() {
    local before
    before=$(sed '/^\*\*\* Program crashed/q' "$1")
    comm -23 <(sed -n '/^◇ Test case /d; s/^◇ Test \(.*)\) started\.$/\1/p' <<< "$before" | sort) \
             <(sed -n 's/^[✔✘] Test \(.*)\) \(passed\|failed\).*/\1/p' <<< "$before" | sort) | paste -sd ' '
}

# Runs the suites ARGS select, output in .build/test-logs/NAME.log (ARGS in NAME.args, for a
# second run).
run() {
    local name=$1; shift
    printf '%s\0' "$@" > "$logs/$name.args"
    passes "$logs/$name.log" "$@" || echo "$name" >> "$logs/failed"
}

# Each suite named (Module.Suite or Suite) in a test process of its own, SHARDS processes at once
# (those already started in the background among them), in the order given; returns when all have.
each_alone() {
    local suite
    for suite in "$@"; do
        while (( $(jobs -rp | wc -l) >= shards )); do wait -n; done
        run "${suite##*.}" --filter "\\.${suite##*.}/" &
    done
    wait
}

# The runs that failed (those listed in .build/test-logs/failed after its line FROM), run once
# more, one at a time: in the quiet part every run that failed, in the busy part (WHICH=hung)
# those that hung. The quiet part's measurements (to the millisecond, of a real sound server)
# catch the machine as well as the code: on a fresh clone a 2-core machine now and then stalls a
# player or a report for longer than a limit, 21 ms where 20 are allowed, in one run in three, in
# a different test each time. A broken feature fails both runs; a run that passes the second time
# is named in the summary, its first output kept (NAME.first.log) and printed.
again() {
    local from=$1 which=${2:-all} name args
    [ -s "$logs/failed" ] || return 0
    for name in $(tail -n +"$((from + 1))" "$logs/failed"); do
        [ -f "$logs/$name.args" ] || continue
        [ "$which" = hung ] && ! was_hung "$logs/$name.log" && continue
        mv "$logs/$name.log" "$logs/$name.first.log"
        mapfile -d '' args < "$logs/$name.args"
        if passes "$logs/$name.log" "${args[@]}"; then
            grep -vx "$name" "$logs/failed" > "$logs/failed.new"; mv "$logs/failed.new" "$logs/failed"
            echo "$name" >> "$logs/again"
        fi
    done
}

busy() {
    local all ordered suite
    all=$("$bundle" --testing-library swift-testing --list-tests | sed 's#/.*##' | sort -u \
        | grep -vE "\\.($(IFS='|'; echo "${quiet[*]}")|EngineTests|HangGuardTests)\$")
    # The heaviest first (CPU seconds, each alone, 2026-12-02: VideoTests 61, CopiesTests 42,
    # EdgeTests 32, RealMusicTests 26, ContainerCommandTests 15, BeatBoundsTests 15), so that
    # what starts last is short and no core idles at the end. Only an order: a suite not named
    # runs after them, and a name that no longer exists is skipped.
    local heavy=(VideoTests CopiesTests EdgeTests RealMusicTests ContainerCommandTests BeatBoundsTests FaultTests PlayerTests RenderTests)
    ordered=$({ for suite in "${heavy[@]}"; do grep -E "\\.$suite\$" <<< "$all"; done
                grep -vE "\\.($(IFS='|'; echo "${heavy[*]}"))\$" <<< "$all"; })
    run EngineTests --filter '\.EngineTests/' &
    { guard > "$logs/guard.log" 2>&1 || echo guard >> "$logs/failed"; } &
    # Each suite in a process of its own, SHARDS processes at a time (those two among them).
    each_alone $ordered
    again 0 hung
    part_took suites
    # Each a build, then its checks: 15 minutes at most (the ThreadSanitizer build and its suites
    # take 2, the install 1), so that a build that hangs fails the run too.
    bounded --kill-after=30 900 "$make" --no-print-directory check-threads > "$logs/check-threads.log" 2>&1 || echo check-threads >> "$logs/failed"
    part_took check-threads
    bounded --kill-after=30 900 "$make" --no-print-directory check-install > "$logs/check-install.log" 2>&1 || echo check-install >> "$logs/failed"
    part_took check-install
}

quiet() {
    local from
    from=$(cat "$logs/failed" 2>/dev/null | wc -l)
    # The processes that mostly wait, eight at once: the engine's position against what is heard
    # (four rates, one after the other), each study drill (30 s of a real-time player each), the
    # other screens in two halves (a process runs them one at a time: their players are timed
    # against what is heard), the MPRIS players, the lyrics follower, the stalled player.
    local screens drill half=() other=() i=0 t
    run RealTimeTests --filter '\.RealTimeTests/' &
    screens=$("$bundle" --testing-library swift-testing --list-tests | sed -n 's#^[^/]*\.TerminalTests/\([A-Za-z0-9_]*\)(.*#\1#p')
    for drill in $(grep '^theStudysTask' <<< "$screens"); do
        run "TerminalTests-$drill" --filter "\\.TerminalTests/$drill\\(" &
    done
    for t in $(grep -vE '^(theStudysTask|theCountIsInStep)' <<< "$screens"); do
        if (( i++ % 2 )); then other+=("$t"); else half+=("$t"); fi
    done
    run TerminalTests-1 --filter "\\.TerminalTests/($(IFS='|'; echo "${half[*]}"))\\(" &
    run TerminalTests-2 --filter "\\.TerminalTests/($(IFS='|'; echo "${other[*]}"))\\(" &
    run MPRISTests --filter '\.MPRISTests/' &
    run LyricsFollowTests --filter '\.LyricsFollowTests/' &
    run StallTests --filter '\.StallTests/' &
    wait
    # The count on the screen against the beat heard, to 30 ms: alone (beside the drills and the
    # MPRIS players it drew 31-59 ms late on a slow day).
    run TerminalTests-count --filter '\.TerminalTests/theCountIsInStep'
    # The phone remote in headless Chromium, whose taps it checks in a real-time player's events
    # (beside a busy build a tap's answer came late): after the screens, which it would load.
    run RemoteTests --filter '\.RemoteTests/'
    # What the remote's pages are sent, and when, and its taps heard: one at a time, alone.
    run RemoteTimingTests --filter '\.RemoteTimingTests/'
    # The dancer's video in step with the sound at the real-time sink, to a frame.
    run VideoTimingTests --filter '\.VideoTimingTests/'
    again "$from"
    part_took quiet
}

# The runner's own guard against a hang, checked on HangGuardTests' test that never ends: run by
# `Tests/run.sh hang` (its limit 10 s, and 5 s more to write its backtraces), it is stopped and named, its threads' backtraces are in its
# log, it is run once more and fails; and a SIGINT to `Tests/run.sh hang`'s process group, as a
# Ctrl-C at a terminal sends, ends it with 130 at once, leaving no test process or `timeout`.
guard() {
    local dir=$logs/guard-hang status began=$SECONDS pid log
    local hung_line="$hang_mark 10 s, so stopped; the tests started and not ended: aTestThatNeverEnds()"
    started() { grep -q '^◇ Test aTestThatNeverEnds() started' "$dir/HangGuard.log" 2>/dev/null; }
    # Ends what a failed check left (the runner PIDS, and the test process and its `timeout`).
    clear_up() { kill -KILL "$@" 2>/dev/null; pkill -KILL -f 'HangGuardTests/'; }
    # (Itself bounded: were the guard broken, the check must not hang in its turn. A Ctrl-C in
    # these 30 s may leave its test process, asleep, to its own limit: gone 15 s later at most.)
    bounded --kill-after=5 120 env LOGS="$dir" LIMIT=10 KILL_AFTER=5 Tests/run.sh hang > "$logs/guard-hang.out" 2>&1
    status=$?
    (( status == 124 || status == 137 )) && clear_up
    local first=$dir/HangGuard.first.log ok=1
    for log in "$first" "$dir/HangGuard.log"; do grep -qxF "$hung_line" "$log" || ok=0; done
    if (( status != 1 || !ok )) || ! grep -qx HangGuard "$dir/failed" \
        || ! grep -q '^\*\*\* Signal 3: Backtracing' "$first" || ! grep -q '^Thread 0 ' "$first" \
        || ! grep -q 'hung in aTestThatNeverEnds()' "$logs/guard-hang.out"; then
        echo "guard: a test that never ends was not stopped, named, run again and failed as it should (status $status); Tests/run.sh hang printed:"
        cat "$logs/guard-hang.out" "$first" 2>/dev/null
        return 1
    fi
    local took=$((SECONDS - began))
    # (In a process group of its own, as a terminal's foreground job is, and with SIGINT as a
    # terminal leaves it: bash starts a script's background commands with SIGINT ignored.)
    dir=$logs/guard-interrupted
    LOGS=$dir env --default-signal=INT setsid Tests/run.sh hang > "$logs/guard-interrupted.out" 2>&1 &
    pid=$!
    for _ in $(seq 600); do started && break; sleep 0.1; done
    if ! started; then
        echo "guard: the test that never ends had not started 60 s after Tests/run.sh hang did"
        clear_up "$pid"
        return 1
    fi
    kill -INT -- "-$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        echo "guard: Tests/run.sh hang still running 5 s after a SIGINT to its process group"
        clear_up "$pid"
        return 1
    fi
    wait "$pid"
    status=$?
    if (( status != 130 )) || pgrep -f 'HangGuardTests/' > /dev/null; then
        echo "guard: a SIGINT to Tests/run.sh hang's process group: status $status (130 wanted); left running: $(pgrep -af 'HangGuardTests/' | paste -sd ';')"
        clear_up
        return 1
    fi
    echo "guard: a test that never ends was stopped after 10 s, named, its threads' backtraces kept, run again and failed ($took s); a Ctrl-C ended the runner with 130, nothing left"
}

# Each part's seconds, named on the last line: where the time goes.
parts= mark=$SECONDS
part_took() { parts+="${parts:+, }$1 $((SECONDS - mark)) s"; mark=$SECONDS; }

start=$SECONDS
rm -rf "$logs" && mkdir -p "$logs"
case "$mode" in
    busy) busy ;;
    quiet) quiet ;;
    all) busy; quiet ;;
    threads) shift; each_alone "$@"; suites=$# ;;
    guard) guard > "$logs/guard.log" 2>&1 || echo guard >> "$logs/failed" ;;
    # (For `guard` only: the test that never ends, stopped after LIMIT seconds and run once more.)
    hang) export PRACTICE_TEST_HANG=1; run HangGuard --filter '\.HangGuardTests/'; again 0 hung ;;
    *) echo "usage: Tests/run.sh [busy|quiet|threads SUITE...|guard]" >&2; exit 64 ;;
esac

for log in "$logs"/*.log; do
    run=$(basename "$log" .log)
    if grep -qx "$run" "$logs/failed" 2>/dev/null; then
        echo "==== $run failed; its output:"
        cat "$log"
        if [ -f "$logs/$run.first.log" ]; then
            echo "==== $run's first run, which failed too:"
            cat "$logs/$run.first.log"
        fi
    elif grep -qx "$run" "$logs/again" 2>/dev/null; then
        echo "==== $run failed, then passed on a second run; the first run's output:"
        cat "$logs/$run.first.log"
    fi
done
for log in "$logs"/*.log; do
    run=$(basename "$log" .log)
    [[ $run == *.first ]] && continue
    again=
    if grep -qx "$run" "$logs/again" 2>/dev/null; then
        again=" (on a second run)"
        was_hung "$logs/$run.first.log" && again=" (on a second run; the first hung in $(hung "$logs/$run.first.log"))"
    elif was_hung "$log"; then
        again=" hung in $(hung "$log")"
    fi
    printf '%-16s %s%s\n' "$run" "$(grep -E 'Test run with|ThreadSanitizer|check-install:|^guard:|Build complete' "$log" | tail -n 1)" "$again"
done
if [ "$mode" = threads ] && [ ! -s "$logs/failed" ]; then
    # (The line make test's summary shows for `make check-threads`.)
    cat "$logs"/*.log | sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} in.*passed.*/\1/p' \
        | awk -v suites="$suites" '{ n += $1 } END { print "check-threads: " n " tests in " suites " suites passed under ThreadSanitizer, no report" }'
fi
echo "Tests/run.sh: $((SECONDS - start)) s${parts:+ ($parts)}"
if [ -s "$logs/failed" ]; then
    echo "Failed: $(paste -sd ' ' "$logs/failed")" >&2
    exit 1
fi
