#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sidecar bench: whole-process wall time of `practice markers` on a sidecar with 10,000 markers
# (list and add), against jq reading the same file; importing them as Audacity labels, against jq
# making a JSON list of the labels; and the decoded-audio checksum of a
# 5-minute MP3 (first time and cached), against mpg123 | sha256sum (the same decoder).
#
#   bench/markers/run.sh                     # REPS=9 by default
#   PRACTICE=/path/to/practice REPS=15 WORK=/tmp/x bench/markers/run.sh
#
# Needs: jq, mpg123 (Debian packages), a release build (make release).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
bench_setup markers jq mpg123 sha256sum

# A 10 s track and a sidecar with 10,000 markers (one every 1 ms), written by practice itself.
"$PRACTICE" render "$ROOT/Samples/demo.flac" -o track.wav --to 10 -q
python3 - <<'PY'
import json, uuid
markers = [{"id": str(uuid.UUID(int=i + 1)), "name": "m%05d" % i, "time": i / 1000,
            "updatedAt": "2026-11-20T10:01:00.000Z"} for i in range(10000)]
json.dump({"format": "practice-markers", "version": 1, "markers": markers}, open("seed.json", "w"))
PY
cp seed.json track.wav.practice.json
"$PRACTICE" markers add track.wav seed 9.9999 >/dev/null      # computes and caches the identity; rewrites in our form
echo "sidecar: $(stat -c %s track.wav.practice.json) bytes, $(jq '.markers | length' track.wav.practice.json) markers"

# The same 10,000 as Audacity labels, imported into a copy of the track without a sidecar.
jq -r '.markers[] | "\(.time)\t\(.time)\t\(.name)"' seed.json > labels.txt
cp track.wav imported.wav
"$PRACTICE" markers import imported.wav labels.txt >/dev/null   # the copy's identity computed and cached
echo "labels: $(wc -l < labels.txt) lines"

# A 5-minute MP3: the demo's 21 bars looped six times (302.4 s).
"$PRACTICE" render "$ROOT/Samples/demo.flac" -o long.mp3 --loop 0.5 50.9 --times 6 -q
echo "mp3: $(stat -c %s long.mp3) bytes, $("$PRACTICE" info long.mp3 --json | jq .duration) s"

declare -A T
for ((i = 0; i < REPS; i++)); do
    T[list]+="$(ms "$PRACTICE" markers track.wav) "
    T[jq]+="$(ms jq -r '.markers[] | [.time, .name] | @tsv' track.wav.practice.json) "
    T[add]+="$(ms "$PRACTICE" markers add track.wav "added $i" "5.$i") "
    T[json]+="$(ms "$PRACTICE" markers track.wav --json) "
    rm -f imported.wav.practice.json
    T[import]+="$(ms "$PRACTICE" markers import imported.wav labels.txt) "
    T[jqimport]+="$(ms jq -R -n '[inputs | split("\t") | {time: (.[0] | tonumber), name: .[2]}]' labels.txt) "
    rm -rf cache/practice
    T[hash]+="$(ms "$PRACTICE" markers add long.mp3 "x$i" 1) "   # first add: decodes, hashes and fingerprints (cache emptied above)
    T[cached]+="$(ms "$PRACTICE" markers add long.mp3 "y$i" 2) " # identity from the cache
    T[mpg123]+="$(ms sh -c 'mpg123 -q -s long.mp3 | sha256sum')"" "
    rm -f long.mp3.practice.json
    "$PRACTICE" markers track.wav >/dev/null   # track.wav's identity cached again: the next round times the sidecar, not the audio
done
python3 - "$REPS" <<PY
import statistics, sys
T = {k: [float(x) for x in v.split()] for k, v in {
    'list': "${T[list]}", 'jq': "${T[jq]}", 'add': "${T[add]}", 'json': "${T[json]}",
    'import': "${T[import]}", 'jqimport': "${T[jqimport]}",
    'hash': "${T[hash]}", 'cached': "${T[cached]}", 'mpg123': "${T[mpg123]}"}.items()}
med = lambda k: statistics.median(T[k])
ratio = lambda a, b: statistics.median([x / y for x, y in zip(T[a], T[b])])
print()
print('== 10,000 markers (whole process, wall ms, median of %s) ==' % sys.argv[1])
print('practice markers track.wav           %7.1f   (target <= 100)' % med('list'))
print('practice markers track.wav --json    %7.1f' % med('json'))
print('practice markers add track.wav …     %7.1f   (target <= 50)' % med('add'))
print("jq -r '.markers[] | …' (reference)   %7.1f   practice list / jq: %.2f" % (med('jq'), ratio('list', 'jq')))
print('practice markers import … labels.txt %7.1f   (10,000 Audacity labels into no sidecar; 57 s before 2026-12-05)' % med('import'))
print("jq -R -n '[inputs | split(…)]' labels %7.1f   practice import / jq: %.2f" % (med('jqimport'), ratio('import', 'jqimport')))
print()
print('== decoded-audio checksum of a 5-minute MP3 (wall ms, median) ==')
print('practice markers add long.mp3 (first: decode + SHA-256 + fingerprint)  %7.1f   (target <= 500)' % med('hash'))
print('practice markers add long.mp3 (cached identity)          %7.1f' % med('cached'))
print('mpg123 -s long.mp3 | sha256sum (reference)               %7.1f   practice first / mpg123: %.2f' % (med('mpg123'), ratio('hash', 'mpg123')))
ok = med('list') <= 100 and med('add') <= 50 and med('hash') <= 500
print()
print('VERDICT: %s' % ('targets met' if ok else 'target MISSED'))
PY
