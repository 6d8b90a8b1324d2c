#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Peak resident memory (GNU time's %M) of practice and of the players a user would otherwise pick,
# in the same run, on the same file at the same speed through the same ALSA device (`null`: no
# sound server, no pacing, so a run takes seconds). Median of REPS runs each.
#
#   bench/memory/run.sh                 # .build/release/practice (make release)
#   PRACTICE=/path/to/practice REPS=9 bench/memory/run.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PRACTICE="${PRACTICE:-.build/release/practice}"
[[ "$PRACTICE" = /* ]] || PRACTICE="$ROOT/$PRACTICE"
REPS="${REPS:-5}"
RATE="${RATE:-0.8}"
SONG="$ROOT/Samples/demo.flac"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for tool in /usr/bin/time mpv aplay sox; do
    command -v "$tool" >/dev/null || { echo "bench/memory: needs $tool (apt-get install time mpv alsa-utils sox)" >&2; exit 69; }
done
sox "$SONG" "$WORK/demo.wav" trim 0 20
export XDG_STATE_HOME="$WORK/state"   # resume points stay out of the user's

# median_rss LABEL COMMAND...: runs COMMAND REPS times, prints the median peak RSS in MB.
median_rss() {
    local label=$1; shift
    local values=()
    for _ in $(seq "$REPS"); do
        /usr/bin/time -f '%M' -o "$WORK/rss" "$@" >/dev/null 2>"$WORK/err" </dev/null || { cat "$WORK/err" >&2; exit 1; }
        values+=("$(tail -n 1 "$WORK/rss")")
    done
    printf '%s\n' "${values[@]}" | sort -n | awk -v label="$label" '{v[NR]=$1} END {printf "%-58s %7.1f MB\n", label, v[int((NR+1)/2)]/1024}'
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; $REPS runs each, median of peak RSS"
echo "practice: $PRACTICE"
median_rss "practice --help" "$PRACTICE" --help
median_rss "practice info demo.flac" "$PRACTICE" info "$SONG"
median_rss "practice render demo.flac at ${RATE}x (FLAC out; SoundTouch)" "$PRACTICE" render "$SONG" -o "$WORK/out.flac" --rate "$RATE" --quality fast --force
median_rss "practice play 20 s at ${RATE}x, ALSA null" "$PRACTICE" play "$WORK/demo.wav" --device null --rate "$RATE" --no-tui --fresh
median_rss "mpv: the same, --ao=alsa --audio-device=alsa/null --speed=$RATE" \
    mpv --really-quiet --no-config --no-video --ao=alsa --audio-device=alsa/null --speed="$RATE" "$WORK/demo.wav"
median_rss "aplay -D null (ALSA alone: no decoding, no stretching)" aplay -q -D null "$WORK/demo.wav"

# ALSA runs its configuration's hooks at every open, whatever the device. PulseAudio's
# (/etc/alsa/conf.d/99-pulse.conf, with the pulseaudio package: the tests' sound server) loads
# libpulse and a dozen libraries behind it (X11, D-Bus, systemd, gcrypt) to see whether a server
# runs. The same two runs again with a copy of the configuration that leaves that file out show
# how much of each figure above is the hook's (it is not there with PipeWire's ALSA plugin).
hooks=$(grep -l conf_pulse_hook /etc/alsa/conf.d/*.conf 2>/dev/null || true)
if [[ -n "$hooks" && -r /usr/share/alsa/alsa.conf ]]; then
    mkdir -p "$WORK/alsa/conf.d"
    for f in /etc/alsa/conf.d/*.conf; do
        grep -q conf_pulse_hook "$f" || ln -s "$(readlink -f "$f")" "$WORK/alsa/conf.d/$(basename "$f")"
    done
    sed "s#\"/etc/alsa/conf.d\"#\"$WORK/alsa/conf.d\"#" /usr/share/alsa/alsa.conf >"$WORK/alsa/alsa.conf"
fi
if [[ -z "$hooks" ]]; then
    echo "(no PulseAudio hook in ALSA's configuration here: the figures above are without it)"
elif ! grep -qF "\"$WORK/alsa/conf.d\"" "$WORK/alsa/alsa.conf" 2>/dev/null; then
    echo "(ALSA's alsa.conf does not name /etc/alsa/conf.d as Debian's does: no run without the hook)"
else
    median_rss "practice play, the same, without ALSA's PulseAudio hook" env ALSA_CONFIG_PATH="$WORK/alsa/alsa.conf" \
        "$PRACTICE" play "$WORK/demo.wav" --device null --rate "$RATE" --no-tui --fresh
    median_rss "aplay -D null, without ALSA's PulseAudio hook" env ALSA_CONFIG_PATH="$WORK/alsa/alsa.conf" \
        aplay -q -D null "$WORK/demo.wav"
fi
