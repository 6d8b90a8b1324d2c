#!/usr/bin/env python3
"""Write the MIDI score of the practice demo track (Samples/demo.flac).

Standard library only: the Standard MIDI File bytes are written by hand.

Usage:
    python3 make-demo.py OUT.mid     write the score
    python3 make-demo.py --times     print the section start times (seconds)
    python3 make-demo.py --shell     print LEAD_IN/LENGTH/MUSIC_END for make-demo.sh

The track is 100 BPM in 4/4 (one beat = 0.6 s, one bar = 2.4 s, one
eight-count = 2 bars = 4.8 s).  The first downbeat sits LEAD_IN seconds into
the file; every later section start follows from the arithmetic below.

    bars  1-4   Intro   electric piano, hi-hat, kick; bass and beat join in bar 3
    bars  5-12  Verse   A minor, flute melody, half-time feel, fill in bar 12
    bars 13-20  Chorus  four-on-the-floor, open hats, strings, lead melody
    bar  21     Outro   final A minor chord with crash, left to ring
"""

import struct
import sys

# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------
BPM = 100
BEATS_PER_BAR = 4                      # 4/4
PPQ = 480                              # ticks per quarter note
US_PER_QUARTER = 60_000_000 // BPM     # 600000 us: exact for 100 BPM
SECONDS_PER_BEAT = 60.0 / BPM          # 0.6
SECONDS_PER_BAR = SECONDS_PER_BEAT * BEATS_PER_BAR  # 2.4

LEAD_IN_TICKS = 400                    # 400 ticks * 1.25 ms = 0.5 s of silence
LEAD_IN = LEAD_IN_TICKS * US_PER_QUARTER / PPQ / 1_000_000  # 0.5

# (name, first bar (1-based), number of bars)
SECTIONS = [
    ("Intro", 1, 4),
    ("Verse", 5, 8),
    ("Chorus", 13, 8),
    ("Outro", 21, 1),
]
TOTAL_BARS = 21
TAIL_BARS = 1                          # silence/reverb ring after the last bar


def bar_tick(bar, beat=0.0):
    """Absolute tick of `beat` (0-based, may be fractional) in 1-based `bar`."""
    return LEAD_IN_TICKS + round(((bar - 1) * BEATS_PER_BAR + beat) * PPQ)


def bar_seconds(bar):
    return LEAD_IN + (bar - 1) * SECONDS_PER_BAR


END_SECONDS = bar_seconds(TOTAL_BARS + 1 + TAIL_BARS)   # length of the file

# --------------------------------------------------------------------------
# Standard MIDI File writer
# --------------------------------------------------------------------------


def vlq(n):
    """MIDI variable-length quantity."""
    if n < 0:
        raise ValueError("negative delta time")
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    return bytes(reversed(out))


class Track:
    def __init__(self, name):
        self.events = []   # (tick, order, bytes); order puts note-offs first
        self.meta(0, 0x03, name.encode("ascii"))

    def meta(self, tick, kind, data):
        self.events.append((tick, 1, bytes([0xFF, kind]) + vlq(len(data)) + data))

    def msg(self, tick, *data, order=2):
        self.events.append((tick, order, bytes(data)))

    def program(self, tick, ch, prog):
        self.msg(tick, 0xC0 | ch, prog, order=1)

    def cc(self, tick, ch, ctrl, value):
        self.msg(tick, 0xB0 | ch, ctrl, value, order=1)

    def note(self, start, length, ch, pitch, vel):
        self.msg(start, 0x90 | ch, pitch, vel, order=2)
        self.msg(start + length, 0x80 | ch, pitch, 0, order=0)

    def encode(self, end_tick):
        body = bytearray()
        last = 0
        for tick, _, data in sorted(self.events, key=lambda e: (e[0], e[1])):
            body += vlq(tick - last) + data
            last = tick
        body += vlq(max(0, end_tick - last)) + b"\xFF\x2F\x00"   # end of track
        return b"MTrk" + struct.pack(">I", len(body)) + bytes(body)


def write_smf(path, tracks, end_tick):
    header = b"MThd" + struct.pack(">IHHH", 6, 1, len(tracks), PPQ)
    with open(path, "wb") as f:
        f.write(header)
        for t in tracks:
            f.write(t.encode(end_tick))


# --------------------------------------------------------------------------
# The music
# --------------------------------------------------------------------------
# General MIDI channels (0-based) and programs (0-based)
CH_KEYS, CH_PAD, CH_BASS, CH_LEAD, CH_DRUMS = 0, 1, 2, 3, 9
PROG_EPIANO, PROG_STRINGS, PROG_BASS = 4, 48, 33
PROG_FLUTE, PROG_LEAD = 73, 80          # verse melody, chorus melody

KICK, SIDESTICK, SNARE, CLAP = 36, 37, 38, 39
HAT_CLOSED, HAT_PEDAL, HAT_OPEN, CRASH = 42, 44, 46, 49
TOM_HI, TOM_MID, TOM_LOW = 50, 47, 45

# chord voicings (middle register) and bass roots
CHORDS = {
    "Am": ([57, 60, 64], 45),
    "F": ([57, 60, 65], 41),
    "C": ([55, 60, 64], 48),
    "G": ([55, 59, 62], 43),
}
INTRO_CHORDS = ["Am", "F", "C", "G"]
VERSE_CHORDS = ["Am", "F", "C", "G", "Am", "F", "C", "G"]
CHORUS_CHORDS = ["F", "G", "C", "Am", "F", "G", "C", "G"]
OUTRO_CHORDS = ["Am"]

# melodies: per bar a list of (beat, length in beats, pitch)
VERSE_MELODY = [
    [(0, 1, 76), (1, 0.5, 74), (1.5, 0.5, 72), (2, 2, 69)],       # E D C A
    [(0, 1, 72), (1, 1, 69), (2, 1.5, 65), (3.5, 0.5, 67)],       # C A F G
    [(0, 1, 67), (1, 0.5, 72), (1.5, 0.5, 74), (2, 2, 76)],       # G C D E
    [(0, 1.5, 74), (1.5, 0.5, 71), (2, 2, 67)],                   # D B G
    [(0, 1, 76), (1, 0.5, 74), (1.5, 0.5, 72), (2, 2, 69)],       # E D C A
    [(0, 1, 72), (1, 1, 77), (2, 1, 76), (3, 1, 74)],             # C F E D
    [(0, 1.5, 76), (1.5, 0.5, 74), (2, 1, 72), (3, 1, 67)],       # E D C G
    [(0, 3, 71)],                                                 # B
]
CHORUS_MELODY = [
    [(0, 1.5, 81), (1.5, 0.5, 79), (2, 1, 77), (3, 1, 81)],       # A G F A
    [(0, 1.5, 79), (1.5, 0.5, 74), (2, 1, 79), (3, 1, 83)],       # G D G B
    [(0, 2, 84), (2, 0.5, 83), (2.5, 0.5, 81), (3, 1, 79)],       # C B A G
    [(0, 3, 76)],                                                 # E
    [(0, 1.5, 81), (1.5, 0.5, 79), (2, 1, 77), (3, 1, 81)],       # A G F A
    [(0, 1.5, 79), (1.5, 0.5, 81), (2, 1, 83), (3, 1, 86)],       # G A B D
    [(0, 1.5, 88), (1.5, 0.5, 86), (2, 2, 84)],                   # E D C
    [(0, 1, 83), (1, 1, 81), (2, 1, 79), (3, 1, 74)],             # B A G D
]
OUTRO_MELODY = [[(0, 4, 81)]]                                     # A


def beats(b):
    return round(b * PPQ)


def setup(track, ch, prog, volume, pan, reverb, chorus=0):
    track.program(0, ch, prog)
    track.cc(0, ch, 7, volume)
    track.cc(0, ch, 10, pan)
    track.cc(0, ch, 91, reverb)
    track.cc(0, ch, 93, chorus)


def build():
    end_tick = bar_tick(TOTAL_BARS + 1 + TAIL_BARS)

    # --- conductor track: tempo, metre, section markers ------------------
    conductor = Track("practice demo")
    conductor.meta(0, 0x51, US_PER_QUARTER.to_bytes(3, "big"))
    conductor.meta(0, 0x58, bytes([4, 2, 24, 8]))          # 4/4
    conductor.meta(0, 0x59, bytes([0, 1]))                 # A minor
    for name, first, _ in SECTIONS:
        conductor.meta(bar_tick(first), 0x06, name.encode("ascii"))

    keys = Track("Electric piano")
    setup(keys, CH_KEYS, PROG_EPIANO, 92, 44, 50, 30)
    pad = Track("Strings")
    setup(pad, CH_PAD, PROG_STRINGS, 72, 84, 70)
    bass = Track("Bass")
    setup(bass, CH_BASS, PROG_BASS, 105, 64, 20)
    lead = Track("Melody")
    setup(lead, CH_LEAD, PROG_FLUTE, 100, 64, 60, 20)
    drums = Track("Drums")
    setup(drums, CH_DRUMS, 0, 110, 64, 30)

    # --- intro: bars 1-4 ------------------------------------------------
    for i, name in enumerate(INTRO_CHORDS):
        bar = 1 + i
        voicing, root = CHORDS[name]
        for p in voicing:
            keys.note(bar_tick(bar), beats(3.9), CH_KEYS, p, 70)
        if bar <= 2:
            drums.note(bar_tick(bar), beats(0.25), CH_DRUMS, KICK, 100)
            for b in range(4):
                drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, HAT_PEDAL if b % 2 else HAT_CLOSED, 70)
        else:
            for b in (0, 2):
                drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, KICK, 105)
            for b in (1, 3):
                drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, SIDESTICK, 85)
            for h in range(8):
                drums.note(bar_tick(bar, h / 2), beats(0.25), CH_DRUMS, HAT_CLOSED, 78 if h % 2 == 0 else 55)
            bass.note(bar_tick(bar), beats(1.9), CH_BASS, root, 95)
            bass.note(bar_tick(bar, 2), beats(1.9), CH_BASS, root, 85)
    # pick-up into the verse: two toms on beat 4 of bar 4
    drums.note(bar_tick(4, 3), beats(0.25), CH_DRUMS, TOM_HI, 90)
    drums.note(bar_tick(4, 3.5), beats(0.25), CH_DRUMS, TOM_LOW, 95)

    # --- verse: bars 5-12 -------------------------------------------------
    for i, name in enumerate(VERSE_CHORDS):
        bar = 5 + i
        voicing, root = CHORDS[name]
        # syncopated comping: beat 1 and the "and" of 2
        for p in voicing:
            keys.note(bar_tick(bar), beats(1.4), CH_KEYS, p, 78)
            keys.note(bar_tick(bar, 1.5), beats(2.4), CH_KEYS, p, 70)
        # bass: root, push on the "and" of 2, fifth on 3, octave pick-up
        bass.note(bar_tick(bar), beats(1.4), CH_BASS, root, 100)
        bass.note(bar_tick(bar, 1.5), beats(0.45), CH_BASS, root, 85)
        bass.note(bar_tick(bar, 2), beats(1.4), CH_BASS, root + 7, 92)
        bass.note(bar_tick(bar, 3.5), beats(0.45), CH_BASS, root + 12, 80)
        # drums: kick 1, "and" of 2, 3; snare 2 and 4; closed hat eighths
        for b in (0, 1.5, 2):
            drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, KICK, 110 if b == 0 else 95)
        for b in (1, 3):
            if bar == 12 and b == 3:
                continue                    # the fill takes beat 4
            drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, SNARE, 100)
        for h in range(8):
            if bar == 12 and h >= 6:
                continue
            drums.note(bar_tick(bar, h / 2), beats(0.25), CH_DRUMS, HAT_CLOSED, 80 if h % 2 == 0 else 58)
    # fill at the end of the verse (bar 12, beat 4: snare sixteenths)
    for k, v in enumerate((80, 88, 96, 110)):
        drums.note(bar_tick(12, 3 + k / 4), beats(0.2), CH_DRUMS, SNARE, v)
    for i, notes in enumerate(VERSE_MELODY):
        bar = 5 + i
        for b, length, pitch in notes:
            lead.note(bar_tick(bar, b), beats(length) - 30, CH_LEAD, pitch, 96 if b == 0 else 88)

    # --- chorus: bars 13-20 ----------------------------------------------
    t_chorus = bar_tick(13)
    lead.program(t_chorus, CH_LEAD, PROG_LEAD)
    lead.cc(t_chorus, CH_LEAD, 7, 78)
    for i, name in enumerate(CHORUS_CHORDS):
        bar = 13 + i
        voicing, root = CHORDS[name]
        # strings hold the chord, an octave up on top
        for p in voicing + [voicing[0] + 12]:
            pad.note(bar_tick(bar), beats(3.95), CH_PAD, p, 80)
        # electric piano: off-beat stabs
        for b in (0.5, 1.5, 2.5, 3.5):
            for p in voicing:
                keys.note(bar_tick(bar, b), beats(0.3), CH_KEYS, p + 12, 82)
        # bass: driving eighths with octave jumps
        for h, off in enumerate((0, 0, 12, 0, 0, 0, 12, 7)):
            bass.note(bar_tick(bar, h / 2), beats(0.42), CH_BASS, root + off, 108 if h % 2 == 0 else 90)
        # drums: four on the floor, clap + snare on 2 and 4, open hat off-beats
        for b in range(4):
            drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, KICK, 115)
            drums.note(bar_tick(bar, b + 0.5), beats(0.25), CH_DRUMS, HAT_OPEN, 80)
        for b in (1, 3):
            drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, SNARE, 105)
            drums.note(bar_tick(bar, b), beats(0.25), CH_DRUMS, CLAP, 90)
        if bar in (13, 17):
            drums.note(bar_tick(bar), beats(1), CH_DRUMS, CRASH, 110)
    # fill at the end of the chorus (bar 20, beat 4: toms)
    for k, (drum, v) in enumerate(((TOM_HI, 95), (TOM_HI, 90), (TOM_MID, 100), (TOM_LOW, 110))):
        drums.note(bar_tick(20, 3 + k / 4), beats(0.2), CH_DRUMS, drum, v)
    for i, notes in enumerate(CHORUS_MELODY):
        bar = 13 + i
        for b, length, pitch in notes:
            lead.note(bar_tick(bar, b), beats(length) - 30, CH_LEAD, pitch, 100 if b == 0 else 92)

    # --- outro: bar 21 ----------------------------------------------------
    voicing, root = CHORDS[OUTRO_CHORDS[0]]
    for p in voicing:
        keys.note(bar_tick(21), beats(3.9), CH_KEYS, p, 80)
    for p in voicing + [voicing[0] + 12]:
        pad.note(bar_tick(21), beats(3.9), CH_PAD, p, 80)
    bass.note(bar_tick(21), beats(3.9), CH_BASS, root, 105)
    drums.note(bar_tick(21), beats(0.25), CH_DRUMS, KICK, 120)
    drums.note(bar_tick(21), beats(2), CH_DRUMS, CRASH, 115)
    for b, length, pitch in OUTRO_MELODY[0]:
        lead.note(bar_tick(21, b), beats(length) - 30, CH_LEAD, pitch, 95)

    return [conductor, keys, pad, bass, lead, drums], end_tick


def print_times():
    print(f"tempo {BPM} BPM, {BEATS_PER_BAR}/4, beat {SECONDS_PER_BEAT:.3f} s, bar {SECONDS_PER_BAR:.3f} s")
    print(f"first downbeat {LEAD_IN:.3f} s")
    for name, first, count in SECTIONS:
        print(f"{name:<7} bar {first:>2}  {bar_seconds(first):7.3f} s  ({count} bar{'s' if count != 1 else ''})")
    print(f"last bar ends {bar_seconds(TOTAL_BARS + 1):.3f} s")
    print(f"file length   {END_SECONDS:.3f} s")


def main(argv):
    if len(argv) == 2 and argv[1] == "--times":
        print_times()
        return 0
    if len(argv) == 2 and argv[1] == "--shell":
        # for make-demo.sh: where the first downbeat goes, how long the file is
        print(f"LEAD_IN={LEAD_IN:.3f}")
        print(f"LENGTH={END_SECONDS:.3f}")
        print(f"MUSIC_END={bar_seconds(TOTAL_BARS + 1):.3f}")
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: make-demo.py OUT.mid | --times | --shell", file=sys.stderr)
        return 2
    tracks, end_tick = build()
    write_smf(argv[1], tracks, end_tick)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
