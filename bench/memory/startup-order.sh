#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes Sources/practice/startup.order: the functions the commonest commands run, in the order
# `make release` asks the linker (lld's --symbol-ordering-file) to lay them out at the start of
# the program's code.
#
#   make release && bench/memory/startup-order.sh && rm .build/release/practice && make release
#
# Why: the kernel maps a program's code in 64 kB around each page it first runs, so a command
# that runs 0.5 MB of functions scattered over 14 MB of code keeps several megabytes of the
# binary resident, and pays a page fault for each (bench/memory, README "Memory"). Laid out
# together, what the commands run takes a few hundred kilobytes.
#
# How: each command below runs once under valgrind's callgrind, which names every function that
# ran. What `--help` runs comes first, then the rest; in each, functions that every command runs
# come first, then those of fewer commands, grouped by the commands that run them. A function
# the compiler did not give a section of its own (parts of the static Swift runtime come in one
# section of 1.6 MB) drags its whole section along: those come after the functions that the
# same commands run. Names the linker no longer finds are skipped, so an old list is harmless,
# only less useful; run this again after large changes. Needs valgrind, sox (make bench's packages).
set -euo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PRACTICE="${PRACTICE:-$ROOT/.build/release/practice}"
OUT="$ROOT/Sources/practice/startup.order"
SWIFT_STATIC="${SWIFT_STATIC:-/opt/swift/usr/lib/swift_static/linux}"
for t in valgrind sox objdump readelf objcopy python3; do
    command -v "$t" >/dev/null || { echo "startup-order: needs $t (apt-get install valgrind sox binutils python3)" >&2; exit 69; }
done
[[ -x "$PRACTICE" ]] || { echo "startup-order: no $PRACTICE (make release)" >&2; exit 66; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# A user's surroundings, in a home of its own: XDG folders found from HOME, a configuration file
# (the library's folder, written by the scan below).
export HOME="$WORK/home"
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CACHE_HOME
mkdir -p "$HOME"
# Without a section per function (make release's -function-sections) the names say nothing of
# where each function lies: every function would count as sharing a section.
plain=$(readelf -S -W "$ROOT/.build/release/PracticeEngine.build/Player.swift.o" | sed -n 's/.*\] \.text  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
[[ "$plain" == 000000 ]] || { echo "startup-order: $PRACTICE has no section per function: rm -rf .build/release/*.build; make release" >&2; exit 65; }

# valgrind 3.19 cannot read the DWARF 5 that swiftc writes: it runs a copy without it.
objcopy --strip-debug "$PRACTICE" "$WORK/practice"
# TagLib's shim, where the program looks for it first (the scan below reads tags).
cp "$(dirname "$PRACTICE")/libpractice-taglib.so" "$WORK/"
P="$WORK/practice"
SONG="$ROOT/Samples/demo.flac"
mkdir -p "$WORK/music"
sox "$SONG" "$WORK/music/demo.wav" trim 0 3
cp "$ROOT/Samples/demo.flac.practice.json" "$WORK/music/demo.wav.practice.json"
"$P" library scan -q "$WORK/music" >/dev/null 2>&1

# profile NAME COMMAND...: one run under callgrind, its output in $WORK/NAME.cg
profile() {
    local name=$1; shift
    valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$WORK/$name.cg" "$P" "$@" >/dev/null 2>"$WORK/$name.err" </dev/null \
        || { echo "startup-order: practice $* failed under valgrind:" >&2; tail -5 "$WORK/$name.err" >&2; exit 70; }
}
profile help --help
profile version --version
profile info info "$SONG"
profile markers markers list "$WORK/music/demo.wav"
profile render render "$WORK/music/demo.wav" -o "$WORK/out.flac" --rate 0.8 --force -q
# `play` as bench/memory plays (20 s), by someone who has played before: the journal holds a
# session, the caches know the file, and the recorder and the player's timers run as they do then.
sox "$SONG" "$WORK/play.wav" trim 0 20
"$P" play "$WORK/play.wav" --device null --rate 0.8 --no-tui --fresh >/dev/null 2>&1 </dev/null
profile play play "$WORK/play.wav" --device null --rate 0.8 --no-tui --fresh
profile search library search --no-scan demo

# The functions in a section of many (a plain .text): in our objects and the static Swift runtime.
# Helpers such as __swift_destroy_boxed_opaque_existential_1 are in both kinds, under one name.
for o in "$ROOT"/.build/release/*.build/*.o "$SWIFT_STATIC"/*.a; do objdump -t "$o" 2>/dev/null; done \
    | awk '$3 == ".text" || $4 == ".text" {print $NF}' | sort -u > "$WORK/in-bulk"

python3 - "$WORK" "$OUT" <<'PY'
import collections, glob, os, re, sys
work, out = sys.argv[1], sys.argv[2]
bulk = set(l.rstrip("\n") for l in open(os.path.join(work, "in-bulk")))
users = collections.defaultdict(set)
commands = []
for path in sorted(glob.glob(os.path.join(work, "*.cg"))):
    name = os.path.basename(path)[:-3]
    commands.append(name)
    ob = None
    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            ob = line[3:].strip()
        elif line.startswith("fn=") and ob and os.path.basename(ob) == "practice":
            fn = re.sub(r"'\d+$", "", line[3:].strip())   # callgrind's mark for a recursion cycle
            if not fn.startswith(("0x", "(")):   # code without a symbol (callgrind names it by address)
                users[fn].add(name)
alone = [f for f in users if f not in bulk]
shared = [f for f in users if f in bulk]
# What `--help` runs first (it is what every command's parsing runs too), then the rest; in
# each, every command's functions first, then by the number of commands and which ones, a
# function in a section of its own before the sections of many that the same commands run. So
# a section of many that `--help` does not run (FoundationEssentials' JSON coders, Data) is not
# laid out among the code it runs, where the kernel's 64 kB around each page would map it.
key = lambda f: ("help" not in users[f], -len(users[f]), sorted(users[f]), f in bulk, f)
with open(out + ".tmp", "w") as o:
    o.write("\n".join(sorted(alone + shared, key=key)) + "\n")
os.replace(out + ".tmp", out)
print("startup-order: %d functions (%d in sections of their own) from %s -> %s"
      % (len(users), len(alone), ", ".join(commands), os.path.relpath(out)), file=sys.stderr)
PY
