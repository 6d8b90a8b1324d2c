#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Spectral-envelope error of time-stretched files against their input, in cents.

    envelope.py --ref IN.wav LABEL=OUT.wav [LABEL=OUT.wav ...]

A change of tempo should leave the spectrum's shape where it was. For the input and each output:
the long-term spectrum (each channel's, averaged; Hann frames of 4096 samples every 2048; power
averaged over the file), its envelope (the log spectrum smoothed by keeping its first 60
cepstral coefficients), on a log-frequency axis from 100 Hz to 10 kHz in steps of one cent.
Three figures per output:
  centroid  the spectral centroid's move (100 Hz–16 kHz, power-weighted), in cents;
  shift     the move of the whole envelope that lines it up best with the input's (the
            cross-correlation of the two mean-removed log envelopes over ±600 cents), in cents;
  dB        the RMS difference of the two envelopes (each's mean level removed), in dB.
The figure `bench/quality/run.sh` reports as the envelope error is the larger of |centroid| and
|shift|.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze import read_wav  # noqa: E402

FRAME, HOP, LIFTER = 4096, 2048, 60
LOW, HIGH, CENTROID_HIGH = 100.0, 10_000.0, 16_000.0


def long_term_power(path):
    x, rate = read_wav(path)
    window = np.hanning(FRAME)
    frames = (len(x) - FRAME) // HOP
    if frames < 1:
        raise SystemExit('envelope.py: %s is too short' % path)
    power = np.zeros(FRAME // 2 + 1)
    for k in range(frames):
        for c in range(x.shape[1]):
            power += np.abs(np.fft.rfft(x[k * HOP:k * HOP + FRAME, c] * window)) ** 2
    return power / (frames * x.shape[1]), rate


def envelope(power):
    """The log spectrum smoothed by cepstral liftering (natural log of power)."""
    log = np.log(power + 1e-20)
    cep = np.fft.irfft(log)
    cep[LIFTER:len(cep) - LIFTER + 1] = 0
    return np.fft.rfft(cep).real


def on_cents(env, rate):
    """The envelope on a 1-cent log-frequency grid from LOW to HIGH."""
    freqs = np.arange(len(env)) * rate / FRAME
    grid = LOW * 2 ** (np.arange(int(1200 * np.log2(HIGH / LOW))) / 1200)
    return np.interp(grid, freqs, env)


def centroid(power, rate):
    freqs = np.arange(len(power)) * rate / FRAME
    band = (freqs >= LOW) & (freqs <= CENTROID_HIGH)
    return float((freqs[band] * power[band]).sum() / power[band].sum())


def compare(ref, out):
    (pr, rate), (po, rate_out) = ref, out
    if rate != rate_out:
        raise SystemExit('envelope.py: sample rates differ (%d, %d)' % (rate, rate_out))
    a, b = on_cents(envelope(pr), rate), on_cents(envelope(po), rate)
    a, b = a - a.mean(), b - b.mean()
    lags = range(-600, 601)
    n = len(a)

    def score(lag):
        if lag >= 0:
            return float(np.dot(a[:n - lag], b[lag:]) / (n - lag))
        return float(np.dot(a[-lag:], b[:n + lag]) / (n + lag))
    shift = max(lags, key=score)
    db = float(np.sqrt(np.mean((b - a) ** 2)) * 10 / np.log(10))
    cents = 1200 * np.log2(centroid(po, rate) / centroid(pr, rate))
    return cents, shift, db


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--ref', required=True)
    ap.add_argument('--tsv', action='store_true', help='one tab-separated line per output: label, centroid, shift, dB, error')
    ap.add_argument('outputs', nargs='+', metavar='LABEL=OUT.wav')
    args = ap.parse_args()
    ref = long_term_power(args.ref)
    if not args.tsv:
        print('%-28s %10s %8s %7s %9s' % ('tool', 'centroid', 'shift', 'dB', 'error'))
    for item in args.outputs:
        label, _, path = item.rpartition('=')
        try:
            cents, shift, db = compare(ref, long_term_power(path))
        except (OSError, SystemExit, ValueError) as e:
            print('envelope.py: %s: %s' % (path, e), file=sys.stderr)
            continue
        error = max(abs(cents), abs(shift))
        if args.tsv:
            print('%s\t%.1f\t%d\t%.2f\t%.1f' % (label, cents, shift, db, error))
        else:
            print('%-28s %+8.1f c %+6d c %6.2f %7.1f c' % (label, cents, shift, db, error))


if __name__ == '__main__':
    main()
