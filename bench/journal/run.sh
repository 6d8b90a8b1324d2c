#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The practice journal: reports over a year of generated history (about 100,000 rows: sessions,
# their speeds, sections and loops), and what recording a session costs a player.
#
#   bench/journal/run.sh          # .build/release/practice (make release); about 5 minutes
#   ROWS=20000 REPS=5 JOURNAL_REPS=2 JOURNAL_SECONDS=20 bench/journal/run.sh
#
# - `practice journal month` (this month, text) and `--json`: whole processes, median of REPS.
# - `practice journal year --html`: the page for the year, its time and size.
# - recording: a player at 0.8x through a real-time PulseAudio null sink, with its journal and
#   with --no-journal, in alternate runs of JOURNAL_SECONDS (bench/realtime's harness, --tests
#   journal); the CPU of the whole process, user+sys over wall time.
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
ROWS="${ROWS:-100000}"
bench_setup journal pulseaudio parec sox
export XDG_DATA_HOME="$WORK/data" TZ=UTC
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; practice: $PRACTICE"

"$PRACTICE" journal today >/dev/null
python3 "$ROOT/Tests/PracticeEndToEndTests/journal-year.py" "$WORK/data/practice/journal.sqlite" --rows "$ROWS" > "$WORK/truth.json"
python3 -c "import json; t = json.load(open('$WORK/truth.json')); print('history: %d rows, %d sessions, %s to %s' % (t['rows'], t['sessions'], t['start'], t['end']))"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
t_month=$(for _ in $(seq "$REPS"); do ms "$PRACTICE" journal month; done | median)
t_month_json=$(for _ in $(seq "$REPS"); do ms "$PRACTICE" journal month --json; done | median)
t_year=$(for _ in $(seq "$REPS"); do ms "$PRACTICE" journal year; done | median)
t_html=$(for _ in $(seq "$REPS"); do ms "$PRACTICE" journal year --html "$WORK/year.html"; done | median)
size=$(stat -c %s "$WORK/year.html")

JOURNAL_REPS="${JOURNAL_REPS:-4}" JOURNAL_SECONDS="${JOURNAL_SECONDS:-30}"
PRACTICE="$PRACTICE" OUT="$WORK/realtime" "$ROOT/bench/realtime/run.sh" --tests journal --cpu-variants 0 --launches 0 --commands 0 \
    --cpu-reps "$JOURNAL_REPS" --cpu-seconds "$JOURNAL_SECONDS" > "$WORK/realtime.log" 2>&1 || { cat "$WORK/realtime.log"; exit 1; }

printf '%-52s %10s\n' "figure" "practice"
printf '%-52s %7s ms   (target <= 100 ms)\n' "journal month (text, whole process)" "$t_month"
printf '%-52s %7s ms\n' "journal month --json" "$t_month_json"
printf '%-52s %7s ms\n' "journal year (text)" "$t_year"
printf '%-52s %7s ms   (target <= 1000 ms)\n' "journal year --html" "$t_html"
printf '%-52s %7s kB   (target <= 1000 kB)\n' "  the page's size" "$((size / 1000))"
sed -n '/^Recording the journal/,/recording costs/p' "$WORK/realtime/results.txt"
