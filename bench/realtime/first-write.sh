#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Exec → the first sample handed to the device: the launch's own part, without the sound server's
# and the monitor's (which the launch bench's "launch → audible" adds, with their spread). Each
# BINARY plays the launch track at 0.8× through ALSA's pulse PCM on a private PulseAudio with a
# null sink, as bench/realtime/run.py does; perf records the exec (sched:sched_process_exec) and
# a uprobe on libasound's snd_pcm_writei; the figure is the first write's time minus the exec's.
# The binaries are launched in turn, N rounds; medians and ranges per binary.
#
#   bench/realtime/first-write.sh [-n N] BINARY [BINARY...]     # root (uprobes), perf, pulseaudio
set -euo pipefail
rounds=40
if [ "${1:-}" = "-n" ]; then rounds=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-n N] BINARY [BINARY...]" >&2; exit 64; }
for tool in perf pulseaudio pactl sox; do
    command -v "$tool" >/dev/null || { echo "first-write.sh: needs $tool (apt-get install linux-perf pulseaudio pulseaudio-utils sox)" >&2; exit 69; }
done
asound=$(ldconfig -p | awk '/libasound\.so\.2 .*x86-64/ {print $NF; exit}')
[ -n "$asound" ] || { echo "first-write.sh: libasound.so.2 not found" >&2; exit 69; }

work=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    perf probe -q -d 'probe_libasound:first_write' 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

perf probe -q -d 'probe_libasound:first_write' 2>/dev/null || true
perf probe -q -x "$asound" 'first_write=snd_pcm_writei'

# The rig: a private server, its null sink taking float at 44.1 kHz, as run.py's.
mkdir -p "$work/run/pulse" "$work/state"
export XDG_RUNTIME_DIR=$work/run PULSE_SERVER=unix:$work/run/pulse/native XDG_STATE_HOME=$work/state XDG_DATA_HOME=$work/data
unset DBUS_SESSION_BUS_ADDRESS
pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit --enable-memfd=no --use-pid-file=no \
    --log-target=file:"$work/pulse.log" \
    -L 'module-null-sink sink_name=practice_sink format=float32le rate=44100 channels=2' \
    -L "module-native-protocol-unix auth-anonymous=1 socket=$work/run/pulse/native" </dev/null >/dev/null 2>&1 &
server=$!
for _ in $(seq 300); do pactl info >/dev/null 2>&1 && break; sleep 0.05; done
pactl info >/dev/null 2>&1 || { echo "first-write.sh: pulseaudio did not answer (see $work/pulse.log)" >&2; exit 70; }
pactl set-default-sink practice_sink

# The launch bench's track: 1 s of a chord, loud from its first sample.
sox -n -r 44100 -c 2 -b 16 "$work/launch.wav" synth 1 sine 220 sine 330 gain -6

# One launch: prints exec → first write in ms.
launch() {
    perf record -q -o "$work/perf.data" -e sched:sched_process_exec -e probe_libasound:first_write -- \
        "$1" play "$work/launch.wav" --rate 0.8 --device pulse --no-tui --fresh >/dev/null 2>"$work/err" </dev/null \
        || { cat "$work/err" >&2; exit 1; }
    perf script -i "$work/perf.data" -F time,event 2>/dev/null | awk '
        /sched_process_exec/ && !e { sub(":", "", $1); e = $1 }
        /first_write/ && e && !w   { sub(":", "", $1); w = $1 }
        END { if (e && w) printf "%.2f\n", (w - e) * 1000 }'
}

for b in "$@"; do launch "$b" >/dev/null; done   # warm-up: the page cache, the server's first stream
for r in $(seq "$rounds"); do
    n=$#
    for k in $(seq 0 $((n - 1))); do
        i=$(( (r + k) % n + 1 ))
        echo "$i $(launch "${!i}")" >> "$work/times"
    done
done
echo "exec -> first snd_pcm_writei, ALSA pulse PCM on a private null sink; $rounds launches each, in turn ($(date -u '+%Y-%m-%d %H:%M UTC'))"
for i in $(seq 1 $#); do
    awk -v i="$i" '$1 == i && $2 != "" {print $2}' "$work/times" | sort -n | awk -v name="${!i}" '
        {v[NR] = $1} END { if (NR) printf "%-50s median %6.2f ms  (%d: %.2f..%.2f)\n", name, (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2), NR, v[1], v[NR] }'
done
