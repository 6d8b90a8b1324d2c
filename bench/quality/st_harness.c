// SPDX-License-Identifier: GPL-3.0-or-later
/* st_harness: stretch a WAV file with SoundTouch through its C API
 * (libSoundTouchDll), with explicit settings, and time the processing.
 *
 * build:  gcc -O2 st_harness.c -o st_harness -lSoundTouchDll -lsndfile
 * usage:  st_harness IN.wav OUT.wav TEMPO [SEQ_MS SEEK_MS OVERLAP_MS QUICK AA [REPS]]
 *         TEMPO 0.8 = slower (80 % speed).  SEQ_MS / SEEK_MS 0 = automatic.
 *         A setting given as "-" keeps the library default.
 *         REPS: process REPS times and report the fastest (default 1).
 * prints: in_seconds out_seconds cpu_seconds speed
 *         speed = input seconds processed per CPU second (x real time of the
 *         input); decoding and writing the files are not counted.
 *
 * Debian ships libSoundTouchDll but not SoundTouchDLL.h: the prototypes are
 * in ../soundtouch_dll.h.  Samples are fed in blocks of 1024 frames, as a player
 * would, and read back after each block.  OUT is 32-bit float WAV, cut to
 * round(in_frames / TEMPO) frames (flush() pads with silence).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sndfile.h>

#include "../soundtouch_dll.h"

enum { USE_AA_FILTER = 0, USE_QUICKSEEK = 2, SEQUENCE_MS = 3, SEEKWINDOW_MS = 4, OVERLAP_MS = 5 };

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s IN.wav OUT.wav TEMPO [SEQ_MS SEEK_MS OVERLAP_MS QUICK AA [REPS]]\n", argv[0]);
        return 2;
    }
    SF_INFO si;
    memset(&si, 0, sizeof si);
    SNDFILE *in = sf_open(argv[1], SFM_READ, &si);
    if (!in) {
        fprintf(stderr, "%s: %s\n", argv[1], sf_strerror(NULL));
        return 1;
    }
    const int ch = si.channels;
    const size_t nf = (size_t)si.frames;
    float *src = malloc(sizeof(float) * nf * ch);
    sf_readf_float(in, src, (sf_count_t)nf);
    sf_close(in);

    const float tempo = (float)atof(argv[3]);
    const int ids[5] = { SEQUENCE_MS, SEEKWINDOW_MS, OVERLAP_MS, USE_QUICKSEEK, USE_AA_FILTER };
    const int reps = argc > 9 ? atoi(argv[9]) : 1;
    const size_t cap = (size_t)(nf / tempo) + 2 * (size_t)si.samplerate; /* frames */
    float *out = malloc(sizeof(float) * cap * ch);
    size_t got = 0;
    double best = 1e30;

    for (int r = 0; r < (reps > 0 ? reps : 1); r++) {
        double t0 = cpu_now();
        HANDLE h = soundtouch_createInstance();
        soundtouch_setSampleRate(h, (unsigned)si.samplerate);
        soundtouch_setChannels(h, (unsigned)ch);
        for (int i = 0; i < 5 && 4 + i < argc && 4 + i < 9; i++)
            if (strcmp(argv[4 + i], "-") != 0)
                soundtouch_setSetting(h, ids[i], atoi(argv[4 + i]));
        soundtouch_setTempo(h, tempo);
        got = 0;
        const size_t blk = 1024;
        for (size_t p = 0; p < nf + blk; p += blk) {
            if (p < nf) {
                size_t n = nf - p < blk ? nf - p : blk;
                soundtouch_putSamples(h, src + p * ch, (unsigned)n);
            } else {
                soundtouch_flush(h); /* once, after the last block */
            }
            unsigned k;
            while (got < cap && (k = soundtouch_receiveSamples(h, out + got * ch,
                       (unsigned)(cap - got < 4096 ? cap - got : 4096))) > 0)
                got += k;
        }
        if (r == 0 && getenv("ST_SHOW"))
            fprintf(stderr, "SoundTouch %s: seq=%d seek=%d overlap=%d quick=%d aa=%d\n",
                    soundtouch_getVersionString(), soundtouch_getSetting(h, SEQUENCE_MS),
                    soundtouch_getSetting(h, SEEKWINDOW_MS), soundtouch_getSetting(h, OVERLAP_MS),
                    soundtouch_getSetting(h, USE_QUICKSEEK), soundtouch_getSetting(h, USE_AA_FILTER));
        soundtouch_destroyInstance(h);
        double dt = cpu_now() - t0;
        if (dt < best)
            best = dt;
    }

    size_t want = (size_t)(nf / tempo + 0.5);
    if (got > want)
        got = want;
    SF_INFO so = si;
    so.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
    so.frames = 0;
    SNDFILE *o = sf_open(argv[2], SFM_WRITE, &so);
    if (!o) {
        fprintf(stderr, "%s: %s\n", argv[2], sf_strerror(NULL));
        return 1;
    }
    sf_writef_float(o, out, (sf_count_t)got);
    sf_close(o);
    double ins = (double)nf / si.samplerate;
    printf("%.3f %.3f %.5f %.0f\n", ins, (double)got / si.samplerate, best, ins / (best > 0 ? best : 1e-9));
    free(src);
    free(out);
    return 0;
}
