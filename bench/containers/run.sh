#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Containers: a store's M4A (AAC) and a video site's WebM (Opus), 5 minutes of a real song
# (wesnoth-1.16-music), decoded by practice (through FFmpeg's libraries) and by ffmpeg itself
# in the same run, interleaved; and `info` on the M4A beside ffprobe's. Whole processes, median
# of REPS (9).
#
#   bench/containers/run.sh        # .build/release/practice (make release); about a minute
#
# decode: `practice render FILE -o out.wav --sample-format s16` against `ffmpeg -i FILE -c:a
# pcm_s16le out.wav` (both decode the whole file and write it as 16-bit WAV), and `ffmpeg -i
# FILE -f null -` (decoding alone) beside them. The WAVs go to tmpfs (/dev/shm) where there is
# one: render syncs its file before renaming it into place and ffmpeg does not, so on a disk
# the wall times differ by the disk's wait as much as by the decoding (set OUT=. to see it).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
bench_setup containers ffmpeg ffprobe sox
SONG=/usr/share/games/wesnoth/1.16/data/core/music/knalgan_theme.ogg
[[ -f $SONG ]] || { echo "run.sh: no $SONG (apt-get install wesnoth-1.16-music)" >&2; exit 1; }
sox "$SONG" song.wav trim 0 300
ffmpeg -v error -y -i song.wav -c:a aac -b:a 192k -movie_timescale 44100 song.m4a
ffmpeg -v error -y -i song.wav -c:a libopus -b:a 128k song.webm
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; practice: $PRACTICE; $(ffmpeg -version | head -1 | cut -d' ' -f1-3)"
# CPU seconds (user + system) of a whole process, in milliseconds (its output discarded): render
# syncs its file to disk before renaming it, which ffmpeg does not, so wall times differ by the
# disk's wait as much as by the work.
cpu() { python3 -c "
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print('%.1f' % ((u.ru_utime + u.ru_stime) * 1000))" "$@"; }
median() { python3 -c "import sys, statistics; print('%.1f' % statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
OUT="${OUT:-$( [[ -w /dev/shm ]] && mktemp -d /dev/shm/practice-containers.XXXXXX || echo .)}"
[[ $OUT == /dev/shm/* ]] && trap 'rm -rf "$OUT"' EXIT
echo "outputs in: $OUT"
for file in song.m4a song.webm; do
    p=(); f=(); n=(); pc=(); fc=()
    for ((i = 0; i < REPS; i++)); do
        p+=("$(ms "$PRACTICE" render "$file" -o "$OUT/practice.wav" --sample-format s16 --force --quiet)")
        f+=("$(ms ffmpeg -v error -y -i "$file" -c:a pcm_s16le "$OUT/ffmpeg.wav")")
        n+=("$(ms ffmpeg -v error -i "$file" -f null -)")
        pc+=("$(cpu "$PRACTICE" render "$file" -o "$OUT/practice.wav" --sample-format s16 --force --quiet)")
        fc+=("$(cpu ffmpeg -v error -y -i "$file" -c:a pcm_s16le "$OUT/ffmpeg.wav")")
    done
    mp=$(median "${p[@]}"); mf=$(median "${f[@]}"); mn=$(median "${n[@]}"); cp=$(median "${pc[@]}"); cf=$(median "${fc[@]}")
    printf 'decode %-10s wall: practice %7.1f ms, ffmpeg to WAV %7.1f ms, ratio %.2f (ffmpeg -f null %.1f ms, ratio %.2f); CPU: %7.1f ms, %7.1f ms, ratio %.2f (goal: <= 1.1)\n' \
        "$file" "$mp" "$mf" "$(python3 -c "print($mp / $mf)")" "$mn" "$(python3 -c "print($mp / $mn)")" "$cp" "$cf" "$(python3 -c "print($cp / $cf)")"
    # Like for like: the same number of frames (ffmpeg's WAV carries the AAC's padding).
    python3 - "$file" "$OUT" <<'PY'
import sys, wave
a, b = wave.open(sys.argv[2] + "/practice.wav"), wave.open(sys.argv[2] + "/ffmpeg.wav")
print("  frames: practice %d, ffmpeg %d (the source: %d)" % (a.getnframes(), b.getnframes(), wave.open("song.wav").getnframes()))
PY
done
p=(); f=()
for ((i = 0; i < REPS; i++)); do
    p+=("$(ms "$PRACTICE" info song.m4a)")
    f+=("$(ms ffprobe -v error -show_format song.m4a)")
done
mp=$(median "${p[@]}"); mf=$(median "${f[@]}")
printf 'info song.m4a      practice %7.1f ms   ffprobe %7.1f ms   ratio %.2f   (goal: <= 20 ms)\n' "$mp" "$mf" "$(python3 -c "print($mp / $mf)")"
