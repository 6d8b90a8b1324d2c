#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Makes a music library for the library scanner's tests, with Debian's encoders.

    python3 make-library.py OUT            the main library (> 300 audio files); prints a JSON manifest
    python3 make-library.py --many N OUT   N tiny distinct WAV files in OUT; prints {"count": N, ...}

Needs python3 (standard library only) and flac, vorbis-tools (oggenc), opus-tools (opusenc), lame,
eyeD3 and sox on PATH. OUT must be missing or an empty folder. The same files and the
same manifest come out on every run (no randomness; Ogg serial numbers are fixed).

The main library: Artist/Album/NN Title.ext folders (FLAC, Ogg Vorbis, Opus, MP3, WAV, AIFF) of short
tones (0.40-0.60 s, one length per album), tagged as their encoders tag them, with embedded and
folder covers, and the special cases a scanner meets in real collections: compilations, untagged
files, broken files, a "cover" that is text, Unicode, odd and hostile file names, titles holding
terminal escape sequences, hidden files and folders, files that are not audio, and tracks with a
sidecar (`<file>.practice.json`) and lyrics (`<file>.lrc`).

The manifest, one entry per audio file the scanner should index:
  path, format (extension, lower case), title, artist, album, albumArtist, genre (the tags as TagLib
  reads them; null when absent), year, track, disc (0 when absent), expectedTitle (the title, else
  the file name without its extension), duration (the length TagLib reads, seconds, 2 decimals; null
  when it finds none), audioDuration (the length libsndfile decodes; null when it cannot open the
  file), durationTolerance (seconds: TagLib's MP3 lengths come from whole frames), readable (false
  when TagLib cannot open the file), embeddedCover, coverSHA256 and coverMime (of the front cover, else
  the first picture), folderCover (the image in the same folder that CoverArt.best picks: cover >
  folder > front > albumart > album > albumartsmall, any case, .jpg/.jpeg/.png/.webp/.gif; null when
  none), case, sidecar, markers, markerNotes, loops, lyrics, lyricsFile, lyricsLines, note.
"skipped" lists every other file under OUT (hidden, not audio, folder images, sidecars, lyrics),
"skippedReasons" says why, and "notes" says what is odd about the library itself.
"""

import argparse
import array
import base64
import concurrent.futures
import hashlib
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unicodedata
import wave
import zlib

# Encoders read their arguments in the locale's character set: make it UTF-8 whatever the caller's.
ENV = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")
TOOLS = {"flac": "flac", "oggenc": "vorbis-tools", "opusenc": "opus-tools", "lame": "lame", "sox": "sox", "eyeD3": "eyed3"}
COVER_NAMES = ["cover", "folder", "front", "albumart", "album", "albumartsmall"]
COVER_EXTENSIONS = ["jpg", "jpeg", "png", "webp", "gif"]
AUDIO_EXTENSIONS = {"wav", "wave", "flac", "ogg", "oga", "opus", "mp3", "aif", "aiff", "aifc"}
# Words only the sidecars and lyrics hold: no tag or file name may contain them.
DISTINCTIVE = ["pirouette", "bridge", "lift", "shine", "moonlight", "marigold", "tambourine", "ピルエット"]
UPDATED = "2026-11-01T10:00:00.000Z"


# ---------------------------------------------------------------------------------------------
# Pictures


def png(width, height, top, bottom):
    """An RGB PNG, a vertical gradient from `top` to `bottom` (RGB tuples)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = []
    for y in range(height):
        t = y / max(1, height - 1)
        rows.append(b"\x00" + bytes(round(a + (b - a) * t) for a, b in zip(top, bottom)) * width)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))


def jpeg(width, height, top, bottom):
    """A baseline JFIF JPEG (4:4:4, quality 100) whose 8x8 blocks are each one flat colour, so that
    only DC coefficients are coded: a blocky vertical gradient from `top` to `bottom`."""
    assert width % 8 == 0 and height % 8 == 0
    dc_bits, dc_vals = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], list(range(12))  # Annex K, luminance DC
    ac_bits, ac_vals = [1] + [0] * 15, [0x00]  # one code: end of block

    def codes(bits, vals):
        table, code, k = {}, 0, 0
        for length in range(1, 17):
            for _ in range(bits[length - 1]):
                table[vals[k]] = (code, length)
                code, k = code + 1, k + 1
            code <<= 1
        return table
    dc, ac = codes(dc_bits, dc_vals), codes(ac_bits, ac_vals)
    out, acc, count = bytearray(), 0, 0

    def put(value, length):
        nonlocal acc, count
        acc, count = (acc << length) | value, count + length
        while count >= 8:
            count -= 8
            byte = (acc >> count) & 0xFF
            out.append(byte)
            if byte == 0xFF:
                out.append(0)
        acc &= (1 << count) - 1
    previous = [0, 0, 0]
    for by in range(height // 8):
        t = (by * 8 + 3.5) / max(1, height - 1)
        r, g, b = (a + (z - a) * t for a, z in zip(top, bottom))
        ycc = (0.299 * r + 0.587 * g + 0.114 * b,
               128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
               128 + 0.5 * r - 0.418688 * g - 0.081312 * b)
        for _ in range(width // 8):
            for c in range(3):
                value = max(-1024, min(1016, round(8 * (ycc[c] - 128))))  # F(0,0) of a flat block
                diff, previous[c] = value - previous[c], value
                size = abs(diff).bit_length()
                put(*dc[size])
                if size:
                    put(diff if diff > 0 else diff + (1 << size) - 1, size)
                put(*ac[0x00])
    if count:
        put((1 << (8 - count)) - 1, 8 - count)

    def segment(marker, payload):
        return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload
    return (b"\xff\xd8"
            + segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
            + segment(0xDB, b"\x00" + b"\x01" * 64)
            + segment(0xC0, struct.pack(">BHHB", 8, height, width, 3) + bytes([1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]))
            + segment(0xC4, b"\x00" + bytes(dc_bits) + bytes(dc_vals) + b"\x10" + bytes(ac_bits) + bytes(ac_vals))
            + segment(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]))
            + bytes(out) + b"\xff\xd9")


def colours(n):
    """Two colours for album `n`, different for every album."""
    hue = (n * 0.137) % 1.0
    def rgb(h, s, v):
        i, f = int(h * 6) % 6, h * 6 - int(h * 6)
        p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
        return tuple(round(255 * x) for x in [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i])
    return rgb(hue, 0.75, 0.95), rgb((hue + 0.08) % 1.0, 0.9, 0.35)


def image(kind, n, size=64):
    top, bottom = colours(n)
    return jpeg(size, size, top, bottom) if kind == "jpeg" else png(size, size, top, bottom)


def flac_picture_block(data, mime, kind=3, description="", width=64, height=64, depth=24):
    """A FLAC PICTURE block's body, as METADATA_BLOCK_PICTURE holds it in Vorbis comments."""
    m, d = mime.encode("ascii"), description.encode("utf-8")
    return (struct.pack(">II", kind, len(m)) + m + struct.pack(">I", len(d)) + d
            + struct.pack(">IIIII", width, height, depth, 0, len(data)) + data)


# ---------------------------------------------------------------------------------------------
# ID3v2.4 (for tags lame cannot write: a picture that is not one, broken tags, AIFF's ID3 chunk)


def syncsafe(n):
    return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])


def id3_frame(fid, payload):
    return fid.encode("ascii") + syncsafe(len(payload)) + b"\x00\x00" + payload


def id3_tag(tags, pictures=()):
    """An ID3v2.4 tag (UTF-8 text) from Vorbis-style `tags` and (data, mime, type) `pictures`."""
    names = {"TITLE": "TIT2", "ARTIST": "TPE1", "ALBUM": "TALB", "ALBUMARTIST": "TPE2", "GENRE": "TCON",
             "DATE": "TDRC", "TRACKNUMBER": "TRCK", "DISCNUMBER": "TPOS"}
    frames = [id3_frame(names[k], b"\x03" + v.encode("utf-8")) for k, v in tags.items()]
    for data, mime, kind in pictures:
        frames.append(id3_frame("APIC", b"\x03" + mime.encode("latin-1") + b"\x00" + bytes([kind]) + b"\x00" + data))
    body = b"".join(frames) + bytes(64)  # and some padding
    return b"ID3\x04\x00\x00" + syncsafe(len(body)) + body


# ---------------------------------------------------------------------------------------------
# Audio


def tone(frames, rate, channels, period, amplitude):
    """16-bit PCM: a sine of `period` samples with 10 ms fades, the same in every channel."""
    one = [int(amplitude * math.sin(2 * math.pi * i / period)) for i in range(period)]
    mono = array.array("h", one * (frames // period + 1))[:frames]
    fade = min(frames // 4, rate // 100)
    for i in range(fade):
        k = i / fade
        mono[i] = int(mono[i] * k)
        mono[frames - 1 - i] = int(mono[frames - 1 - i] * k)
    if channels == 1:
        data = mono
    else:
        data = array.array("h", bytes(2 * channels * frames))
        for c in range(channels):
            data[c::channels] = mono
    if sys.byteorder == "big":
        data.byteswap()
    return data.tobytes()


def write_wav(path, pcm, rate, channels, sample_width=2):
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(sample_width)
        w.setframerate(rate)
        w.writeframes(pcm)


def riff_info(tags):
    """A RIFF LIST/INFO chunk from Vorbis-style tags (what TagLib's RIFF::Info::Tag reads)."""
    names = {"TITLE": b"INAM", "ARTIST": b"IART", "ALBUM": b"IPRD", "GENRE": b"IGNR", "DATE": b"ICRD",
             "TRACKNUMBER": b"IPRT"}
    body = b"INFO"
    for k, v in tags.items():
        if k in names:
            data = v.encode("utf-8") + b"\x00"
            body += names[k] + struct.pack("<I", len(data)) + data + (b"\x00" if len(data) % 2 else b"")
    return b"LIST" + struct.pack("<I", len(body)) + body


def append_chunk(path, chunk, big_endian):
    """Adds a chunk to a RIFF (little-endian sizes) or IFF/AIFF (big-endian) file and fixes its size."""
    with open(path, "r+b") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() % 2:
            f.write(b"\x00")
        f.write(chunk + (b"\x00" if len(chunk) % 2 else b""))
        size = f.tell() - 8
        f.seek(4)
        f.write(struct.pack(">I" if big_endian else "<I", size))


def run(command):
    done = subprocess.run(command, env=ENV, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): {done.stderr.decode('utf-8', 'replace').strip()}")


def encode(job, scratch):
    """Writes one audio file as `job` says (runs in a worker thread)."""
    out, fmt, tags, pictures = job["path"], job["encodeAs"], job["tags"], job["pictures"]
    pcm = tone(job["frames"], job["rate"], job["channels"], job["period"], job["amplitude"])
    wav = os.path.join(scratch, f"{job['index']}.wav")
    write_wav(out if fmt == "wav" else wav, pcm, job["rate"], job["channels"])
    picture_files = []
    for k, (data, mime, kind) in enumerate(pictures):
        p = os.path.join(scratch, f"{job['index']}-{k}.{'png' if mime == 'image/png' else 'jpg'}")
        with open(p, "wb") as f:
            f.write(data)
        picture_files.append((p, mime, kind))
    if fmt == "wav":
        if tags:
            # Both, as taggers write them: TagLib 1.13's WAV::File::tag() reads only the ID3v2 chunk.
            tag = id3_tag(tags, pictures)
            append_chunk(out, b"id3 " + struct.pack("<I", len(tag)) + tag, big_endian=False)
            append_chunk(out, riff_info(tags), big_endian=False)
    elif fmt == "aiff":
        run(["sox", "-q", wav, "--comment", "", out])  # no COMT chunk: sox would date it
        if tags or pictures:
            tag = id3_tag(tags, pictures)
            append_chunk(out, b"ID3 " + struct.pack(">I", len(tag)) + tag, big_endian=True)
    elif fmt == "flac":
        command = ["flac", "--silent", "--force", "--no-utf8-convert"]
        command += [f"--tag={k}={v}" for k, v in tags.items()]
        # The MIME type and size given, flac takes the bytes as they are (even text).
        command += [f"--picture={kind}|{mime}||64x64x24|{p}" for p, mime, kind in picture_files]
        run(command + ["-o", out, wav])
    elif fmt == "ogg":
        command = ["oggenc", "-Q", "--utf8", "--serial", str(1000 + job["index"])]
        options = {"TITLE": "-t", "ARTIST": "-a", "ALBUM": "-l", "GENRE": "-G", "DATE": "-d", "TRACKNUMBER": "-N"}
        for k, v in tags.items():
            command += [options[k], v] if k in options else ["-c", f"{k}={v}"]
        for data, mime, kind in pictures:
            block = base64.b64encode(flac_picture_block(data, mime, kind)).decode("ascii")
            command += ["-c", f"METADATA_BLOCK_PICTURE={block}"]
        run(command + ["-o", out, wav])
    elif fmt == "opus":
        command = ["opusenc", "--quiet", "--serial", str(1000 + job["index"])]
        options = {"TITLE": "--title", "ARTIST": "--artist", "ALBUM": "--album", "GENRE": "--genre", "DATE": "--date"}
        for k, v in tags.items():
            command += [options[k], v] if k in options else ["--comment", f"{k}={v}"]
        for p, mime, kind in picture_files:
            command += ["--picture", f"{kind}|{mime}||64x64x24|{p}"]
        run(command + [wav, out])
    elif fmt == "mp3":
        command = ["lame", "--quiet", "--noreplaygain", "-b", "128"]
        if job.get("id3") is None and (tags or picture_files):
            command += ["--id3v2-only"]
            if any(ord(ch) > 127 for v in tags.values() for ch in v):
                command += ["--id3v2-utf16"]  # before the tags it applies to
            options = {"TITLE": "--tt", "ARTIST": "--ta", "ALBUM": "--tl", "GENRE": "--tg", "DATE": "--ty", "TRACKNUMBER": "--tn"}
            frames = {"ALBUMARTIST": "TPE2", "DISCNUMBER": "TPOS"}
            for k, v in tags.items():
                command += [options[k], v] if k in options else ["--tv", f"{frames[k]}={v}"]
            # lame writes its one picture as type 0 ("Other"); a front cover (type 3) is added with eyeD3.
            command += [arg for p, mime, kind in picture_files if kind == 0 for arg in ["--ti", p]][:2]
        run(command + [wav, out])
        for p, mime, kind in picture_files:
            if kind == 3 and job.get("id3") is None:
                run(["eyeD3", "--quiet", "--no-color", "--no-config", "--add-image", f"{p}:FRONT_COVER:front", out])
        if job.get("id3") is not None:  # a tag lame cannot write, put in front of the audio
            with open(out, "rb") as f:
                audio = f.read()
            with open(out, "wb") as f:
                f.write(job["id3"] + audio)
    else:
        raise ValueError(fmt)
    post = job.get("post")
    if post:
        post(out)


# Broken files, made from good ones.

def garbage_after_start(path):
    """Keeps "fLaC" and STREAMINFO (marked as not the last block), then seeded garbage whose first
    byte announces a metadata block of the invalid type 127: TagLib gives up on the file."""
    with open(path, "rb") as f:
        start = f.read(4 + 4 + 34)
    start = start[:4] + bytes([start[4] & 0x7F]) + start[5:]
    state, junk = 0x2545F491, bytearray([0x7F, 0xFF, 0xFF, 0xFF])
    while len(junk) < 6000:
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        junk.append((state >> 16) & 0xFF)
    with open(path, "wb") as f:
        f.write(start + bytes(junk))


def truncate_to_half(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def make_empty(path):
    open(path, "wb").close()


# ---------------------------------------------------------------------------------------------
# The library


ADJECTIVES = ["Velvet", "Golden", "Quiet", "Electric", "Crimson", "Silver", "Wandering", "Hidden", "Burning", "Gentle",
              "Rising", "Paper", "Broken", "Northern", "Secret", "Lazy", "Wild", "Copper", "Painted", "Hollow"]
NOUNS = ["Morning", "Steps", "River", "Heart", "Train", "Garden", "Mirror", "Horizon", "Shuffle", "Lanes",
         "Echo", "Fever", "Street", "Window", "Harbor", "Rain", "Lights", "Road", "Spin", "Groove"]


def titles(n, count):
    return [f"{ADJECTIVES[(n * 3 + t) % 20]} {NOUNS[(n * 7 + t * 3) % 20]}" for t in range(count)]


# (artist, album, format, year, genre, options). Options: aa (ALBUMARTIST = artist), embed ("png" or
# "jpeg": every track's front cover), folder ([(file name, "png" | "jpeg")]), tn (TRACKNUMBER as
# "n/total" or "0n"), date (DATE instead of the year), discs, back (a back cover before the front),
# other (MP3: lame's "Other" picture, then a front cover),
# rate, channels, untagged, titles, case.
ALBUMS = [
    ("The Blue Notes", "Midnight Swing", "flac", 2011, "Swing", dict(aa=True, embed="png")),
    ("The Blue Notes", "Lindy Hop Sessions", "mp3", 2014, "Swing", dict(aa=True, embed="jpeg", disc="1/1")),
    ("Orquesta del Sol", "Salsa Caliente", "ogg", 2009, "Salsa", dict(embed="jpeg")),
    ("Orquesta del Sol", "Noche de Timbal", "opus", 2016, "Salsa", dict(aa=True, embed="png")),
    ("Tango Nuevo Trio", "Milonga Nights", "flac", 2005, "Tango", dict(folder=[("cover.jpg", "jpeg")])),
    ("Tango Nuevo Trio", "Vals Porteño", "mp3", 2008, "Tango", dict(aa=True, folder=[("folder.png", "png")])),
    ("Kizomba Collective", "Semba Roots", "ogg", 2019, "Kizomba", dict(folder=[("Front.PNG", "png")])),
    ("Kizomba Collective", "Urban Kiz", "opus", 2021, "Kizomba", dict(folder=[("AlbumArt.jpg", "png")])),
    ("Marta Velez", "Bachata Rosa Blue", "mp3", 2013, "Bachata", dict(tn="total")),
    ("Marta Velez", "Dos Corazones", "flac", 2018, "Bachata", dict(rate=48000)),
    ("Silver Strings Quartet", "Waltz Collection", "flac", 1998, "Classical",
     dict(aa=True, embed="jpeg", discs=2, folder=[("cover.jpg", "jpeg")])),
    ("Silver Strings Quartet", "Evening Serenades", "wav", 2001, "Classical", dict(folder=[("cover.jpg", "jpeg")])),
    ("Delta Fingers", "Muddy Crossroads", "aiff", 1995, "Blues", dict(aa=True, embed="png", folder=[("folder.jpg", "jpeg")])),
    ("Delta Fingers", "Raw Takes", "wav", 0, None, dict(untagged=True, rate=32000, channels=1)),
    ("Neon Pulse", "Synthwave Drills", "opus", 2020, "Electronic", dict(aa=True, embed="png", folder=[("cover.png", "png")])),
    ("Neon Pulse", "Night Drive", "ogg", 2022, "Electronic",
     dict(tn="padded", folder=[("folder.png", "png"), ("cover.jpg", "jpeg")])),
    ("Rosa Linde", "Folk Tales", "mp3", 2003, "Folk", dict(aa=True, featuring=True, embed="jpeg", other=True)),
    ("Rosa Linde", "Campfire", "aiff", 0, None, dict(untagged=True, folder=[("Cover.JPEG", "jpeg")])),
    ("The Hollow Kings", "Garage Anthems", "mp3", 2010, "Rock", dict(folder=[("albumartsmall.jpg", "jpeg")])),
    ("The Hollow Kings", "Live at the Barn", "flac", 2012, "Rock", dict(aa=True, embed="jpeg", back=True, date="2012-06-15")),
    ("Lumen", "Pop Routines", "ogg", 2017, "Pop", dict(tn="total")),
    ("Lumen", "Acoustic Sets", "opus", 2019, "Pop", dict(folder=[("front.jpg", "jpeg")])),
    ("Ballroom Masters", "Foxtrot & Quickstep", "flac", 2000, "Ballroom", dict(aa=True, embed="png")),
    ("Ballroom Masters", "Rumba; Cha-Cha", "mp3", 2002, "Ballroom", dict()),
    ("Ñandú Orquesta", "Canción de Otoño", "flac", 2015, "Latin", dict(aa=True, embed="jpeg", case="unicode", titles=[
        "Señorita Bailá", "Corazón Partío", "Mañana Será", "Niño del Mar", "Ay, Qué Calor", "Añoranza", "Días de Sol", "Él y Ella"])),
    ("坂本 ユキ", "東京の夜", "opus", 2018, "J-Pop", dict(aa=True, embed="png", case="unicode", titles=[
        "夜の踊り", "さくら 🌸", "東京タワー", "雨の日 ☔", "ダンス・ダンス", "心の声", "星空 ✨", "終わりの歌"])),
    ("فرقة النور", "ليالي الأندلس", "mp3", 2012, "عربي", dict(aa=True, case="unicode", titles=[
        "رقصة الليل", "نسيم", "شمس الصباح", "שיר ערש", "שלום חברים", "Dance مع النور", "سلام 123", "حلم"])),
    ("Zoë & the Cafe\u0301s", "Émoji 🎉 Party 👩‍🎤", "ogg", 2023, "Pop", dict(case="unicode", folder=[("cover.png", "png")], titles=[
        "Cafe\u0301 au Lait", "Café Crème", "👩‍👩‍👧 Family Dance", "Flag 🇦🇷 Tango", "Ｆｕｌｌｗｉｄｔｈ Ｓｔｅｐ",
        "Z\u0335\u0321a\u0334l\u0337g\u0336o Waltz", "Ångström Ærø Øre", "İstanbul Iğdır"])),
]

COMPILATION_ARTISTS = ["Los Soneros", "Carmen Ruiz", "El Gran Combo Falso", "DJ Clave", "Sonora Azul",
                       "Tito Mambo", "La Charanga Nueva", "Ana Belén Ortiz", "Grupo Tumbao", "Rafa Congas"]
MIX_ARTISTS = ["Romeo Luna", "Prince Ríos", "Xtremo Dúo", "Leslie Grace Note", "Aventura Sur", "Toby Love Song",
               "Karlos Rosé", "Monchy Dos"]

SIDECARS = {
    # (folder under OUT, track number) -> what goes beside it
    ("The Blue Notes/Midnight Swing", 1): dict(
        markers=[("m1", "pirouette", 0.2, "spot the mirror on the turn"), ("m2", "Bar 9", 0.35, None)],
        loops=[("l1", "bridge lift", 0.1, 0.3)], lyrics=["moonlight on the marigold", "tambourine rhythm"]),
    ("Orquesta del Sol/Salsa Caliente", 3): dict(
        markers=[("m1", "pirouette", 0.15, None)], loops=[("l1", "shine break", 0.05, 0.25)]),
    ("Lumen/Pop Routines", 2): dict(lyrics=["moonlight serenade practice", "counting eight"]),
    ("Neon Pulse/Synthwave Drills", 4): dict(
        markers=[("m1", "count in", 0.05, None)], loops=[("l1", "bridge lift", 0.1, 0.3)],
        lyrics=["tambourine in the neon", "second lyric line"]),
    ("Tango Nuevo Trio/Vals Porteño", 5): dict(markers=[("m1", "ocho cortado", 0.25, None)]),
    ("坂本 ユキ/東京の夜", 1): dict(markers=[("m1", "ピルエット", 0.2, None)], loops=[("l1", "サビ", 0.1, 0.3)],
                                   lyrics=["月の光 moonlight", "二番目の行"]),
}


class Library:
    def __init__(self, root):
        self.root = root
        self.jobs = []
        self.notes = []

    def album_dir(self, *parts):
        path = os.path.join(self.root, *parts)
        os.makedirs(path, exist_ok=True)
        return path

    def write(self, path, data):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def add(self, folder, name, fmt, tags, *, n, seconds, case, pictures=(), rate=44100, channels=2,
            id3=None, post=None, readable=True, duration=True, audio=True, note=None, manifest_tags=None):
        """One audio file to make. `tags` are Vorbis-style (TITLE, ARTIST, ALBUM, ALBUMARTIST, GENRE,
        DATE, TRACKNUMBER, DISCNUMBER); `manifest_tags` overrides what TagLib is expected to read;
        `duration` says whether TagLib finds the length, `audio` whether libsndfile decodes the file."""
        index = len(self.jobs)
        frames = round(seconds * rate)
        expected = dict(tags) if manifest_tags is None else manifest_tags
        front = next((p for p in pictures if p[2] == 3), pictures[0] if pictures else None)
        track_text = expected.get("TRACKNUMBER") or ""
        disc_text = expected.get("DISCNUMBER") or ""
        stem = name[:name.rfind(".")] if "." in name[1:] else name
        entry = {
            "path": os.path.join(folder, name),
            "format": name[name.rfind(".") + 1:].lower(),
            "title": expected.get("TITLE"), "artist": expected.get("ARTIST"), "album": expected.get("ALBUM"),
            "albumArtist": expected.get("ALBUMARTIST"), "genre": expected.get("GENRE"),
            "year": int(expected["DATE"][:4]) if expected.get("DATE") else 0,
            "track": leading_number(track_text), "disc": leading_number(disc_text),
            "expectedTitle": expected.get("TITLE") or stem,
            "duration": round(frames / rate, 2) if duration else None,
            "audioDuration": round(frames / rate, 2) if audio else None,
            "durationTolerance": 0.06 if fmt == "mp3" else 0.01,
            "readable": readable,
            "embeddedCover": front is not None,
            "coverSHA256": hashlib.sha256(front[0]).hexdigest() if front else None,
            "coverMime": front[1] if front else None,
            "folderCover": None,
            "case": case,
            "sidecar": None, "markers": [], "markerNotes": [], "loops": [],
            "lyrics": False, "lyricsFile": None, "lyricsLines": [],
            "note": note,
        }
        self.jobs.append({
            "index": index, "path": entry["path"], "encodeAs": fmt, "tags": tags, "pictures": list(pictures),
            "frames": frames, "rate": rate, "channels": channels,
            "period": 40 + (index * 37) % 160, "amplitude": 6000 + (index * 53) % 4000,
            "id3": id3, "post": post, "entry": entry,
        })
        return entry


def leading_number(text):
    digits = ""
    for ch in text.lstrip(" "):
        if not ch.isascii() or not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def file_name(text):
    return text.replace("/", "-")


def build(root):
    lib = Library(root)
    album_number = 0

    # The albums.
    for artist, album, fmt, year, genre, o in ALBUMS:
        album_number += 1
        n = album_number
        seconds = 0.40 + 0.01 * ((n * 7) % 21)
        count = len(o["titles"]) if "titles" in o else 9 + n % 4
        names = o.get("titles") or titles(n, count)
        folder = lib.album_dir(file_name(artist), file_name(album))
        # lame can only write a picture of type 0 ("Other"): MP3 albums get that, and with `other` a
        # front cover after it (eyeD3). Elsewhere `back` puts a back cover (type 4) before the front.
        front = (image(o["embed"], n), "image/jpeg" if o["embed"] == "jpeg" else "image/png",
                 0 if fmt == "mp3" and not o.get("other") else 3) if "embed" in o else None
        pictures = [front] if front else []
        if o.get("back"):
            pictures.insert(0, (png(64, 64, (20, 20, 20), colours(n)[0]), "image/png", 4))
        if o.get("other"):
            pictures.insert(0, (png(64, 64, (240, 240, 240), colours(n)[1]), "image/png", 0))
        for cover_name, kind in o.get("folder", []):
            lib.write(os.path.join(folder, cover_name), image(kind, n + 100))
            if cover_name.lower().endswith((".jpg", ".jpeg")) and kind == "png":
                lib.notes.append(f"{os.path.join(folder, cover_name)} is a PNG named .jpg (as found in the wild)")
        discs = o.get("discs", 1)
        per_disc = -(-count // discs)
        for t, title in enumerate(names, start=1):
            disc, number = (t - 1) // per_disc + 1, (t - 1) % per_disc + 1
            where = os.path.join(folder, f"CD {disc}") if discs > 1 else folder
            os.makedirs(where, exist_ok=True)
            track_artist = artist
            if o.get("featuring") and t % 3 == 0:
                track_artist = f"{artist} feat. {MIX_ARTISTS[t % len(MIX_ARTISTS)]}"
            tags = {}
            if not o.get("untagged"):
                tn = {"total": f"{number}/{count}", "padded": f"{number:02d}"}.get(o.get("tn"), str(number))
                tags = {"TITLE": title, "ARTIST": track_artist, "ALBUM": album, "GENRE": genre,
                        "DATE": o.get("date", str(year)), "TRACKNUMBER": tn}
                if o.get("aa"):
                    tags["ALBUMARTIST"] = artist
                if discs > 1:
                    tags["DISCNUMBER"] = f"{disc}/{discs}"
                elif o.get("disc"):
                    tags["DISCNUMBER"] = o["disc"]
                if fmt == "mp3":
                    tags["DATE"] = str(year)  # lame's --ty takes a year
            case = o.get("case", "no-tags" if o.get("untagged") else "multi-disc" if discs > 1 else "normal")
            lib.add(where, f"{number:02d} {file_name(title)}.{fmt}", fmt, tags, n=n, seconds=seconds, case=case,
                    pictures=pictures if not o.get("untagged") else (), rate=o.get("rate", 44100),
                    channels=o.get("channels", 2))

    # A compilation by Various Artists.
    album_number += 1
    n = album_number
    folder = lib.album_dir("Compilations", "Salsa Hits 2020")
    lib.write(os.path.join(folder, "cover.jpg"), image("jpeg", n + 100))
    for t, title in enumerate(titles(n, 10), start=1):
        a = COMPILATION_ARTISTS[t - 1]
        tags = {"TITLE": title, "ARTIST": a, "ALBUM": "Salsa Hits 2020", "ALBUMARTIST": "Various Artists",
                "GENRE": "Salsa", "DATE": "2020", "TRACKNUMBER": str(t)}
        lib.add(folder, f"{t:02d} {a} - {title}.flac", "flac", tags, n=n, seconds=0.45, case="compilation")

    # A compilation with no album artist at all: one album, one folder, many artists.
    album_number += 1
    n = album_number
    folder = lib.album_dir("Compilations", "Bachata Mix")
    for t, title in enumerate(titles(n, 8), start=1):
        a = MIX_ARTISTS[t - 1]
        tags = {"TITLE": title, "ARTIST": a, "ALBUM": "Bachata Mix", "GENRE": "Bachata", "DATE": "2015",
                "TRACKNUMBER": str(t)}
        lib.add(folder, f"{t:02d} {a} - {title}.mp3", "mp3", tags, n=n, seconds=0.55, case="compilation-no-albumartist")

    # Files with no tags at all: the title comes from the file name.
    folder = lib.album_dir("Unsorted")
    for k, (stem, fmt) in enumerate([("Warmup Drill", "flac"), ("Cooldown Stretch", "mp3"), ("Spin Practice", "ogg"),
                                     ("Footwork Basics", "opus"), ("Metronome 120", "wav"), ("Balance Exercise", "aiff")]):
        lib.add(folder, f"{stem}.{fmt}", fmt, {}, n=200 + k, seconds=0.5, case="no-tags")
    lib.write(os.path.join(folder, "README"), b"Downloads to sort out later.\n")
    lib.write(os.path.join(folder, "download.mp3.part"), b"ID3\x04\x00\x00\x00\x00\x00\x00" + bytes(100))

    # Broken files.
    folder = lib.album_dir("Broken")
    lib.add(folder, "garbage.flac", "flac", {"TITLE": "Never Seen", "ARTIST": "Nobody"}, n=210, seconds=0.5,
            case="broken-tags", post=garbage_after_start, readable=False, duration=False, audio=False, manifest_tags={},
            note="fLaC and a STREAMINFO, then garbage: TagLib cannot open it, nothing can decode it")
    lib.add(folder, "bad-id3-size.mp3", "mp3", {}, n=211, seconds=0.5, case="broken-tags",
            id3=b"ID3\x04\x00\x00\x7f\x7f\x7f\x7f", duration=False, audio=False,
            note="an ID3v2.4 header declaring a 256 MiB tag, right before 0.50 s of good MPEG audio: TagLib "
                 "opens it with no tags and no length; libsndfile and ffmpeg skip the declared size and find "
                 "nothing, only mpg123's own player resyncs and plays it")
    bad_frame = b"TIT2" + syncsafe(0x0FFFFFFF) + b"\x00\x00" + b"\x03Never Seen"
    lib.add(folder, "bad-id3-frames.mp3", "mp3", {}, n=212, seconds=0.5, case="broken-tags",
            id3=b"ID3\x04\x00\x00" + syncsafe(len(bad_frame) + 32) + bad_frame + bytes(32),
            note="a well-sized ID3v2.4 tag whose only frame declares 256 MiB: TagLib reads no tags, the audio "
                 "is fine (libsndfile decodes all of it)")
    lib.add(folder, "empty.mp3", "mp3", {}, n=213, seconds=0.5, case="broken-tags", post=make_empty,
            duration=False, audio=False, note="0 bytes: TagLib opens it (no tags, no length), libsndfile does not")
    trunc_tags = {"TITLE": "Half A Download", "ARTIST": "Cut Short", "ALBUM": "Broken", "TRACKNUMBER": "1"}
    lib.add(folder, "truncated.ogg", "ogg", trunc_tags, n=214, seconds=0.6, case="truncated", post=truncate_to_half,
            duration=False, audio=False,
            note="the second half of the Ogg file is missing: TagLib reads the tags but no length, libsndfile refuses it")

    # An embedded "cover" that is plain text, labelled image/jpeg.
    folder = lib.album_dir("Oddities", "Not A Picture")
    text = b"This is not a JPEG, only text pretending to be one.\n"
    fake = [(text, "image/jpeg", 3)]
    lib.write(os.path.join(folder, "cover.png"), image("png", 220))
    common = {"ARTIST": "Picture Faker", "ALBUM": "Not A Picture", "GENRE": "Test", "DATE": "2024"}
    lib.add(folder, "01 Text As JPEG.flac", "flac", dict(common, TITLE="Text As JPEG", TRACKNUMBER="1"),
            n=220, seconds=0.5, case="cover-not-image", pictures=fake)
    lib.add(folder, "02 Text As JPEG.ogg", "ogg", dict(common, TITLE="Text As JPEG (Vorbis)", TRACKNUMBER="2"),
            n=220, seconds=0.5, case="cover-not-image", pictures=fake)
    mp3_tags = dict(common, TITLE="Text As JPEG (MP3)", TRACKNUMBER="3")
    lib.add(folder, "03 Text As JPEG.mp3", "mp3", {}, n=220, seconds=0.5, case="cover-not-image", pictures=fake,
            id3=id3_tag(mp3_tags, fake), manifest_tags=mp3_tags,
            note="lame --ti and eyeD3 refuse a picture that is not one: the ID3v2.4 tag is written by this script")

    # The same name twice, once composed (NFC) and once decomposed (NFD).
    folder = lib.album_dir("Oddities", "Unicode Normalization")
    for k, form in enumerate(["NFC", "NFD"]):
        name = unicodedata.normalize(form, "Café")
        tags = {"TITLE": f"{name} {form}", "ARTIST": unicodedata.normalize(form, "Zoë"), "ALBUM": "Normalization",
                "TRACKNUMBER": str(k + 1)}
        lib.add(folder, f"{name}.flac", "flac", tags, n=230, seconds=0.5, case="unicode-normalization",
                note=f"file name in {form}: the two names differ in bytes but are canonically equivalent")

    # Odd file names, with an artist and album but no title: the title is the file name.
    folder = lib.album_dir("Oddities", "Odd Names")
    odd = [
        "  leading and trailing spaces  .flac", "line\nbreak.mp3", "esc \x1b]0;pwned\x07 name.flac",
        "red \x1b[31m name.ogg", "-starts-with-dash.opus", "--help.wav", "tab\there.aiff",
        "quote's \"double\" `tick` $(echo pwned).mp3", "back\\slash & 100% %s %n.flac", "name.with.many.dots.ogg",
        "LOUD EXTENSION.FLAC", "carriage\rreturn.flac", "#hash ;semi ?question *star [bracket].wav", "~tilde.mp3",
        "Long " + "name " * 48 + "end.opus",
    ]
    for k, name in enumerate(odd, start=1):
        fmt = name[name.rfind(".") + 1:].lower()
        tags = {"ARTIST": "Odd Namer", "ALBUM": "Odd Names", "TRACKNUMBER": str(k)}
        lib.add(folder, name, fmt, tags, n=240, seconds=0.42, case="odd-name")

    # Titles holding terminal escape sequences and other control characters.
    folder = lib.album_dir("Oddities", "Escapes")
    escapes = [
        ("01 Escape OSC.flac", "\x1b]0;pwned\x07Title", "Escape Artist"),
        ("02 Escape Clear.ogg", "Clear\x1b[2JScreen", "\x1b[31mRed Artist\x1b[0m"),
        ("03 Escape MP3.mp3", "\x1b]0;pwned\x07Title", "Escape Artist"),
        ("04 Escape Opus.opus", "Bell\x07 backspace\x08\x08 and CR\rOverwrite", "Escape Artist"),
        ("05 Newline Title.flac", "First line\nSecond line", "Escape Artist"),
        ("06 Bidi And C1.flac", "evil\u202egnp.exe \u009b2J", "Escape Artist"),
    ]
    for k, (name, title, artist) in enumerate(escapes, start=1):
        fmt = name[name.rfind(".") + 1:]
        tags = {"TITLE": title, "ARTIST": artist, "ALBUM": "Escapes", "GENRE": "Test", "DATE": "2024", "TRACKNUMBER": str(k)}
        lib.add(folder, name, fmt, tags, n=250, seconds=0.44, case="escape-title")

    # A folder whose name ends in .flac, holding a real track.
    folder = lib.album_dir("Oddities", "Weird Folder.flac")
    lib.add(folder, "01 Inside.flac", "flac", {"TITLE": "Inside", "ARTIST": "Folder Namer", "ALBUM": "Weird Folder",
                                                "TRACKNUMBER": "1"}, n=260, seconds=0.5, case="folder-named-like-audio")
    lib.album_dir("Empty Artist", "Empty Album")

    # Hidden things (copies of real audio, made after the encoders ran) and files that are not audio.
    blue = os.path.join(root, "The Blue Notes", "Midnight Swing")
    lib.write(os.path.join(root, "notes.txt"), b"Practice plan:\n- swing outs\n- tango ochos\n")
    lib.write(os.path.join(blue, "scan-back.jpg"), image("jpeg", 300))
    first = next(os.path.basename(j["path"]) for j in lib.jobs if os.path.dirname(j["path"]) == blue)
    lib.write(os.path.join(blue, "._" + first), b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(60))  # AppleDouble
    milonga = os.path.join(root, "Tango Nuevo Trio", "Milonga Nights")
    listed = [os.path.basename(j["path"]) for j in lib.jobs if os.path.dirname(j["path"]) == milonga]
    lib.write(os.path.join(milonga, "playlist.m3u"), ("#EXTM3U\n" + "".join(f"{name}\n" for name in listed)).encode("utf-8"))
    lib.write(os.path.join(root, "Kizomba Collective", "Semba Roots", "Thumbs.db"), bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504))
    lib.write(os.path.join(root, "Delta Fingers", "Muddy Crossroads", "album.nfo"), b"Ripped 2003. Good condition.\n")
    lib.write(os.path.join(root, "Lumen", "Pop Routines", "booklet.pdf"), b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n%%EOF\n")
    return lib


def folder_cover(folder):
    """The folder's cover image as CoverArt.best picks it, or None."""
    best = None
    for entry in sorted(os.listdir(folder)):
        if entry.startswith("."):
            continue
        lower = entry.lower()
        dot = lower.rfind(".")
        if dot < 0 or lower[dot + 1:] not in COVER_EXTENSIONS or lower[:dot] not in COVER_NAMES:
            continue
        rank = COVER_NAMES.index(lower[:dot])
        if best is None or rank < best[0] or (rank == best[0] and entry < best[1]):
            best = (rank, entry)
    return os.path.join(folder, best[1]) if best else None


def write_notes(lib):
    """Sidecars and lyrics beside the chosen tracks."""
    by_place = {}
    for job in lib.jobs:
        e = job["entry"]
        rel = os.path.relpath(os.path.dirname(e["path"]), lib.root)
        by_place[(rel, e["track"])] = e
    for place, spec in SIDECARS.items():
        e = by_place[place]
        e["case"] = "sidecar"
        if "markers" in spec or "loops" in spec:
            markers = []
            for mid, name, time, note in spec.get("markers", []):
                m = {"id": mid, "name": name, "time": time, "updatedAt": UPDATED}
                if note:
                    m["note"] = note
                    e["markerNotes"].append(note)
                markers.append(m)
                e["markers"].append(name)
            loops = []
            for lid, name, start, end in spec.get("loops", []):
                loops.append({"id": lid, "name": name, "start": start, "end": end, "updatedAt": UPDATED})
                e["loops"].append(name)
            doc = {"format": "practice-markers", "version": 1, "markers": markers, "loops": loops}
            e["sidecar"] = e["path"] + ".practice.json"
            lib.write(e["sidecar"], (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
        if "lyrics" in spec:
            e["lyrics"] = True
            e["lyricsFile"] = e["path"] + ".lrc"
            e["lyricsLines"] = list(spec["lyrics"])
            lines = [f"[00:00.{10 + 20 * k:02d}]{line}" for k, line in enumerate(spec["lyrics"])]
            lib.write(e["lyricsFile"], ("\n".join(["[ti:" + (e["title"] or "") + "]"] + lines) + "\n").encode("utf-8"))


def hide_copies(lib):
    """Hidden audio files and folders (copies of real tracks) that a scanner must skip."""
    first_flac = next(j["path"] for j in lib.jobs if j["path"].endswith(".flac") and j["entry"]["case"] == "normal")
    first_mp3 = next(j["path"] for j in lib.jobs if j["path"].endswith(".mp3") and j["entry"]["case"] == "normal")
    places = [
        (first_flac, os.path.join(lib.root, ".hidden", "Secret Album", "01 Secret Song.flac")),
        (first_flac, os.path.join(lib.root, "The Blue Notes", "Midnight Swing", ".x.flac")),
        (first_mp3, os.path.join(lib.root, ".Trash-1000", "files", "deleted.mp3")),
    ]
    for source, target in places:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
    lib.write(os.path.join(lib.root, ".hidden", "cover.jpg"), image("jpeg", 400))


def check_words(lib):
    for job in lib.jobs:
        e = job["entry"]
        texts = [e[k] or "" for k in ("title", "artist", "album", "albumArtist", "genre")] + [e["path"]]
        for word in DISTINCTIVE:
            for t in texts:
                if word in t.lower():
                    raise RuntimeError(f"{e['path']}: {word!r} is kept for sidecars and lyrics")


def main_library(root):
    missing = [f"{tool} ({package})" for tool, package in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        sys.exit("make-library: missing " + ", ".join(missing) + "; apt-get install flac vorbis-tools opus-tools lame sox eyed3")
    root = os.path.abspath(root)
    if os.path.exists(root) and (not os.path.isdir(root) or os.listdir(root)):
        sys.exit(f"make-library: {root} exists and is not an empty folder")
    os.makedirs(root, exist_ok=True)
    lib = build(root)
    check_words(lib)
    workers = max(2, min(4, (os.cpu_count() or 2) + 1))
    with tempfile.TemporaryDirectory(prefix="make-library-") as scratch:
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            for future in [pool.submit(encode, job, scratch) for job in lib.jobs]:
                future.result()
    hide_copies(lib)
    write_notes(lib)
    files = [job["entry"] for job in lib.jobs]
    for e in files:
        e["folderCover"] = folder_cover(os.path.dirname(e["path"]))
    tracks = {e["path"] for e in files}
    skipped, reasons = [], {}
    covers = {e["folderCover"] for e in files} | {folder_cover(d) for d, _, _ in os.walk(root)}
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            if path in tracks:
                continue
            rel = os.path.relpath(path, root)
            if any(part.startswith(".") for part in rel.split(os.sep)):
                reason = "hidden"
            elif name.endswith(".practice.json"):
                reason = "sidecar"
            elif name.endswith(".lrc"):
                reason = "lyrics"
            elif path in covers:
                reason = "folder cover"
            elif "." in name and name.lower().rsplit(".", 1)[1] in COVER_EXTENSIONS and name.lower().rsplit(".", 1)[0] in COVER_NAMES:
                reason = "folder image (not chosen)"
            elif name[name.rfind(".") + 1:].lower() in AUDIO_EXTENSIONS and "." in name:
                reason = "unexpected audio"  # never happens: every audio file is a track or hidden
            else:
                reason = "not audio"
            skipped.append(path)
            reasons[path] = reason
    lib.notes.append("Folder covers are looked for in the track's own folder only: the two-disc album's "
                     "cover.jpg sits above CD 1 and CD 2, so its tracks have folderCover null (they embed covers).")
    lib.notes.append("durationTolerance: MP3 lengths come from whole MPEG frames (TagLib reads the Xing header), "
                     "so they may be up to ~50 ms longer than the PCM written; other formats are exact.")
    counts = {}
    for e in files:
        counts[e["format"]] = counts.get(e["format"], 0) + 1
    manifest = {"root": root, "counts": counts, "files": files, "skipped": skipped, "skippedReasons": reasons,
                "notes": lib.notes}
    sys.stdout.buffer.write((json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def many(count, root):
    """`count` tiny distinct WAV files (8 kHz mono, 10 ms) in one folder."""
    root = os.path.abspath(root)
    os.makedirs(root, exist_ok=True)
    width = len(str(max(0, count - 1)))
    frames = 80
    base = array.array("h", (int(3000 * math.sin(2 * math.pi * k / 16)) for k in range(frames)))
    for i in range(count):
        samples = array.array("h", base)
        samples[0], samples[1] = i & 0x7FFF, (i >> 15) & 0x7FFF  # what makes each file different
        if sys.byteorder == "big":
            samples.byteswap()
        write_wav(os.path.join(root, f"{i:0{width}d} Tone.wav"), samples.tobytes(), 8000, 1)
    sys.stdout.write(json.dumps({"count": count, "root": root, "duration": frames / 8000}) + "\n")


def main():
    parser = argparse.ArgumentParser(description="Makes a music library for the library scanner's tests.")
    parser.add_argument("--many", type=int, metavar="N", help="write N tiny distinct WAV files in OUT instead")
    parser.add_argument("out", metavar="OUT")
    args = parser.parse_args()
    if args.many is not None:
        many(args.many, args.out)
    else:
        main_library(args.out)


if __name__ == "__main__":
    main()
