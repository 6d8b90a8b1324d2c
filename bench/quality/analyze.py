#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time-stretch quality figures for WAV files (numpy only).

Two measurements, both "lower is better":

THD+N (dB), on a stretched mono 1 kHz sine
    The file is cut into windows of 4096 samples (hop 4096).  The first and
    last 0.5 s are skipped.  In each window a sine with DC offset,
        y[n] = a*cos(w*n) + b*sin(w*n) + c,
    is fitted by least squares, the frequency w included (four-parameter fit:
    FFT peak + parabolic interpolation as a start, then Gauss-Newton).  The fit
    is subtracted and the window's figure is
        10*log10(mean(residual^2) / ((a^2 + b^2) / 2)).
    The median over all windows is reported, and the 90th percentile, which
    shows how bad the windows holding a splice are (WSOLA settings with a long
    seek window splice rarely, so many windows are untouched and the median
    alone flatters them).  A pure 16-bit dithered sine at
    -6 dBFS gives about -87 dB; a float sine gives below -120 dB.

Click smear (ms) and doubled clicks, on a stretched click track
    Input: 1-ms clicks (one cycle of 1 kHz at -6 dBFS) every 0.5 s, the first
    centred at 0.25 s (CLICK_FIRST, CLICK_PERIOD below), 44.1 kHz.
    Energy envelope: x^2 smoothed by a 1-ms moving average, in dB.
    For each input click at t_in the output click is expected at t_in / tempo.
    The main peak is the envelope maximum within +-40 % of the output click
    spacing around that time.  Around the main peak (+-50 ms):
      smear   = time from the first to the last envelope sample that is above
                (peak - 20 dB).  A clean 1-ms click measures about 1.9 ms; a
                click that WSOLA repeated d ms later measures about d + 1.9 ms.
      doubled = there is another envelope value above (peak - 12 dB) that is
                more than 3 ms away from the main peak (the click heard twice,
                or split into two clearly separate copies).
      lost    = the main peak is more than 6 dB below the input click's peak
                (the click was faded out in a cross-fade).
    Reported: median and mean smear, doubled/total, lost/total.  Most clicks
    come through clean with any WSOLA setting, so the median sits at ~1.9 ms
    for every setting we tried; the mean smear (which grows with both how
    often a click is repeated and how far apart the copies are) and the
    doubled count are the figures that tell settings apart.
    Clicks within 0.5 s of the start or end of the output are skipped.
    The click track is 30 s long (58 measured clicks) so that the counts mean
    something; the sine is 10 s.

Alt THD+N (dB): the same THD+N median on a second sine (run.sh uses 997 Hz).
    1 kHz is exactly 44.1 samples per period, so a splice lag that is a
    multiple of 441 samples is seamless; a few settings (and sox's fixed
    search) hit that by luck.  997 Hz has no such short exact lag, so it guards
    against tuning to that coincidence.

Music level (dB): RMS of the stretched music-like file minus RMS of its
    input (--music-ref); a sanity check that nothing is lost or doubled.

Len ratio: each output's length relative to the expected length
    (input length / tempo), to catch tools that write short or padded files.

Usage
    analyze.py [--tempo T] [--music-ref IN.wav] [--tsv] ITEM...
    ITEM is LABEL=SINE1K.wav,CLICK.wav[,ALTSINE.wav[,MUSIC.wav]] (one line with
    all figures; any file may be given as "-"), or a single WAV file (sine or
    click track, told apart by crest factor).
    Defaults assume 10 s sines, a 30 s click track and 10 s music
    (--sine-seconds, --click-seconds, --music-seconds).
"""
import argparse
import os
import struct
import subprocess
import sys

import numpy as np

WIN = 4096
SKIP_S = 0.5
CLICK_FIRST = 0.25
CLICK_PERIOD = 0.5
ENV_MS = 1.0
SMEAR_DB = 20.0
DOUBLE_DB = 12.0
DOUBLE_GUARD_MS = 3.0
AROUND_MS = 50.0
LOST_DB = 6.0
CLICK_INPUT_PEAK_DB = None  # measured from the reference click shape below


def read_wav(path):
    """Return (float64 array [frames, channels], sample rate)."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'RIFF' or data[8:12] != b'WAVE':
        return _read_with_sox(path)
    pos = 12
    fmt = None
    raw = None
    while pos + 8 <= len(data):
        cid = data[pos:pos + 4]
        size = struct.unpack('<I', data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]  # a too-large size (streamed header) is clipped
        if cid == b'fmt ':
            tag, ch, rate, _, _, bits = struct.unpack('<HHIIHH', body[:16])
            if tag == 0xFFFE and len(body) >= 26:
                tag = struct.unpack('<H', body[24:26])[0]
            fmt = (tag, ch, rate, bits)
        elif cid == b'data':
            raw = body
            break
        pos += 8 + size + (size & 1)
    if fmt is None or raw is None:
        return _read_with_sox(path)
    tag, ch, rate, bits = fmt
    width = bits // 8
    raw = raw[:len(raw) - len(raw) % (width * ch)]
    if tag == 3 and bits == 32:
        x = np.frombuffer(raw, '<f4').astype(np.float64)
    elif tag == 3 and bits == 64:
        x = np.frombuffer(raw, '<f8').astype(np.float64)
    elif tag == 1 and bits == 16:
        x = np.frombuffer(raw, '<i2') / 32768.0
    elif tag == 1 and bits == 32:
        x = np.frombuffer(raw, '<i4') / 2147483648.0
    elif tag == 1 and bits == 24:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        x = v / 8388608.0
    elif tag == 1 and bits == 8:
        x = (np.frombuffer(raw, np.uint8) - 128.0) / 128.0
    else:
        return _read_with_sox(path)
    return x.reshape(-1, ch), rate


def _read_with_sox(path):
    rate = int(subprocess.check_output(['soxi', '-r', path]).decode())
    ch = int(subprocess.check_output(['soxi', '-c', path]).decode())
    raw = subprocess.check_output(['sox', path, '-t', 'raw', '-e', 'floating-point', '-b', '32', '-'])
    return np.frombuffer(raw, '<f4').astype(np.float64).reshape(-1, ch), rate


# ---------------------------------------------------------------- THD+N

def fit_sine(y, rate):
    """Four-parameter least-squares sine fit. Returns (residual, amplitude)."""
    n = len(y)
    t = np.arange(n) - (n - 1) / 2.0  # centred: better conditioned frequency update
    spec = np.abs(np.fft.rfft((y - y.mean()) * np.hanning(n)))
    k = int(np.argmax(spec[1:-1])) + 1
    a0, b0, c0 = np.log(spec[k - 1] + 1e-30), np.log(spec[k] + 1e-30), np.log(spec[k + 1] + 1e-30)
    den = a0 - 2 * b0 + c0
    delta = 0.5 * (a0 - c0) / den if den != 0 else 0.0
    w = 2 * np.pi * (k + delta) / n
    p = None
    for _ in range(12):
        cw, sw = np.cos(w * t), np.sin(w * t)
        if p is None:
            A = np.column_stack([cw, sw, np.ones(n)])
            a, b, c = np.linalg.lstsq(A, y, rcond=None)[0]
        else:
            a, b, c = p
        # Jacobian for (a, b, c, w)
        J = np.column_stack([cw, sw, np.ones(n), t * (-a * sw + b * cw)])
        r = y - (a * cw + b * sw + c)
        step = np.linalg.lstsq(J, r, rcond=None)[0]
        a, b, c, w = a + step[0], b + step[1], c + step[2], w + step[3]
        p = (a, b, c)
        if abs(step[3]) < 1e-13:
            break
    cw, sw = np.cos(w * t), np.sin(w * t)
    A = np.column_stack([cw, sw, np.ones(n)])
    a, b, c = np.linalg.lstsq(A, y, rcond=None)[0]
    r = y - A @ np.array([a, b, c])
    return r, np.hypot(a, b)


def thdn(x, rate):
    x = x[:, 0] if x.ndim == 2 else x
    skip = int(SKIP_S * rate)
    vals = []
    for s in range(skip, len(x) - skip - WIN + 1, WIN):
        y = x[s:s + WIN]
        r, amp = fit_sine(y, rate)
        sp = amp * amp / 2
        if sp <= 0:
            continue
        vals.append(10 * np.log10(max(np.mean(r * r), 1e-30) / sp))
    if not vals:
        return None
    v = np.array(vals)
    pmean = 10 * np.log10(np.mean(10 ** (v / 10)))  # power average: splice windows dominate
    return float(np.median(v)), float(np.percentile(v, 90)), len(v), float(pmean)


# ---------------------------------------------------------------- clicks

def envelope_db(x, rate):
    n = max(1, int(round(ENV_MS * 1e-3 * rate)))
    e = np.convolve(x * x, np.ones(n) / n, mode='same')
    return 10 * np.log10(e + 1e-20)


def reference_click_peak_db(rate):
    """Envelope peak of one input click (1 ms, one cycle of 1 kHz, -6 dBFS)."""
    n = int(round(0.001 * rate))
    c = 0.5 * np.sin(2 * np.pi * 1000 * np.arange(n) / rate)
    z = np.zeros(4 * n)
    z[n:2 * n] = c
    return float(envelope_db(z, rate).max())


def click_smear(x, rate, tempo, in_seconds):
    x = x[:, 0] if x.ndim == 2 else x
    env = envelope_db(x, rate)
    ref_peak = reference_click_peak_db(rate)
    out_period = CLICK_PERIOD / tempo
    half = int(0.4 * out_period * rate)
    around = int(AROUND_MS * 1e-3 * rate)
    guard = int(DOUBLE_GUARD_MS * 1e-3 * rate)
    skip = int(SKIP_S * rate)
    smears, doubled, lost, offs = [], 0, 0, []
    t_in = CLICK_FIRST
    while t_in < in_seconds:
        c = int(round(t_in / tempo * rate))
        t_in += CLICK_PERIOD
        if c - half < skip or c + half > len(x) - skip:
            continue
        seg = env[c - half:c + half]
        pk = c - half + int(np.argmax(seg))
        pv = env[pk]
        offs.append((pk - c) / rate * 1e3)
        lo, hi = max(0, pk - around), min(len(env), pk + around)
        w = env[lo:hi]
        above = np.nonzero(w > pv - SMEAR_DB)[0]
        smears.append((above[-1] - above[0] + 1) / rate * 1e3)
        rel = np.arange(lo, hi) - pk
        far = np.abs(rel) > guard
        if np.any(w[far] > pv - DOUBLE_DB):
            doubled += 1
        if pv < ref_peak - LOST_DB:
            lost += 1
    if not smears:
        return None
    s = np.array(smears)
    return (float(np.median(s)), float(np.mean(s)), doubled, lost, len(s),
            float(np.median(offs)))


# ---------------------------------------------------------------- main

def kind_of(x):
    m = x[:, 0] if x.ndim == 2 else x
    rms = np.sqrt(np.mean(m * m)) + 1e-20
    return 'sine' if np.max(np.abs(m)) / rms < 3 else 'click'


def rms_db(x):
    return 10 * np.log10(np.mean(x * x) + 1e-30)


def measure(label, paths, tempo, sine_seconds=10.0, click_seconds=30.0, music_ref=None,
            music_seconds=10.0):
    """paths: [SINE_1K, CLICK, ALT_SINE, MUSIC]; any entry may be None."""
    paths = list(paths) + [None] * (4 - len(paths))
    row = {'label': label, 'thdn': None, 'thdn90': None, 'thdn_pmean': None, 'thdn_alt': None,
           'smear': None, 'smear_mean': None, 'doubled': None, 'lost': None, 'clicks': None,
           'offset_ms': None, 'music_db': None, 'len': []}
    for slot, path in enumerate(paths):
        if path is None:
            continue
        x, rate = read_wav(path)
        seconds = (sine_seconds, click_seconds, sine_seconds, music_seconds)[slot]
        row['len'].append(len(x) / rate / (seconds / tempo))
        if slot in (0, 2):
            r = thdn(x, rate)
            if r and slot == 0:
                row['thdn'], row['thdn90'], _, row['thdn_pmean'] = r
            elif r:
                row['thdn_alt'] = r[0]
        elif slot == 1:
            r = click_smear(x, rate, tempo, click_seconds)
            if r:
                (row['smear'], row['smear_mean'], row['doubled'], row['lost'], row['clicks'],
                 row['offset_ms']) = r
        elif music_ref is not None:
            ref, _ = read_wav(music_ref)
            row['music_db'] = rms_db(x) - rms_db(ref)
    return row


def fmt(v, spec):
    return '-' if v is None else format(v, spec)


COLUMNS = ['label', 'tempo', 'thdn_db', 'thdn_p90_db', 'thdn_alt_db', 'smear_med_ms', 'smear_mean_ms',
           'doubled', 'lost', 'clicks', 'click_offset_ms', 'music_level_db', 'len_ratio']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__[__doc__.index('Usage'):])
    ap.add_argument('--tempo', type=float, default=0.8, help='tempo the file was made with (0.8 = slower)')
    ap.add_argument('--sine-seconds', type=float, default=10.0, help='length of the input sines (s)')
    ap.add_argument('--click-seconds', type=float, default=30.0, help='length of the input click track (s)')
    ap.add_argument('--music-seconds', type=float, default=10.0, help='length of the input music (s)')
    ap.add_argument('--music-ref', help='input music file, for the level change of the 4th file')
    ap.add_argument('--tsv', action='store_true', help='tab-separated with a header line')
    ap.add_argument('items', nargs='+')
    a = ap.parse_args()
    if a.tsv:
        print('\t'.join(COLUMNS))
    else:
        print('%-30s %5s %9s %7s %8s %9s %10s %8s %6s %8s %s' % (
            'file', 'tempo', 'THD+N dB', 'p90 dB', 'alt dB', 'smear med', 'smear mean', 'doubled',
            'lost', 'music dB', 'len ratio'))
    for item in a.items:
        if '=' in item:
            label, rest = item.split('=', 1)
            paths = [None if p in ('', '-') else p for p in rest.split(',')]
        else:
            x, _ = read_wav(item)
            label = item
            paths = [item, None] if kind_of(x) == 'sine' else [None, item]
        for j, p in enumerate(paths):
            if p is not None and not os.path.exists(p):
                print('%s: missing %s' % (label, p), file=sys.stderr)
                paths[j] = None
        r = measure(label, paths, a.tempo, a.sine_seconds, a.click_seconds, a.music_ref, a.music_seconds)
        lens = ','.join('%.3f' % v for v in r['len']) or '-'
        if a.tsv:
            print('\t'.join([label, '%g' % a.tempo, fmt(r['thdn'], '.1f'), fmt(r['thdn90'], '.1f'),
                             fmt(r['thdn_alt'], '.1f'), fmt(r['smear'], '.1f'), fmt(r['smear_mean'], '.2f'),
                             fmt(r['doubled'], 'd'), fmt(r['lost'], 'd'), fmt(r['clicks'], 'd'),
                             fmt(r['offset_ms'], '.1f'), fmt(r['music_db'], '.2f'), lens]))
        else:
            dbl = '-' if r['doubled'] is None else '%d/%d' % (r['doubled'], r['clicks'])
            lost = '-' if r['lost'] is None else '%d/%d' % (r['lost'], r['clicks'])
            print('%-30s %5g %9s %7s %8s %9s %10s %8s %6s %8s %s' % (
                label[-30:], a.tempo, fmt(r['thdn'], '.1f'), fmt(r['thdn90'], '.1f'),
                fmt(r['thdn_alt'], '.1f'), fmt(r['smear'], '.1f'), fmt(r['smear_mean'], '.2f'),
                dbl, lost, fmt(r['music_db'], '+.2f'), lens))


if __name__ == '__main__':
    main()
