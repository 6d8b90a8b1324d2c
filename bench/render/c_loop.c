// SPDX-License-Identifier: GPL-3.0-or-later
/* c_loop: the anchor for `practice render --profile soundtouch`: the same libraries
 * (libsndfile to read and write, SoundTouch through its C API), the same SoundTouch settings
 * (its defaults), the same output (16-bit WAV of round(frames / tempo) frames), in the plainest
 * loop C allows: read 4096 frames, put them in, take out what is ready, write it.
 *
 * build:  gcc -O2 c_loop.c -o c_loop -lSoundTouchDll -lsndfile
 * usage:  c_loop IN OUT TEMPO
 *
 * Debian ships libSoundTouchDll but not SoundTouchDLL.h: the prototypes are in ../soundtouch_dll.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sndfile.h>

#include "../soundtouch_dll.h"

enum { BLOCK = 4096 };

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s IN OUT TEMPO\n", argv[0]);
        return 2;
    }
    SF_INFO si;
    memset(&si, 0, sizeof si);
    SNDFILE *in = sf_open(argv[1], SFM_READ, &si);
    if (!in) {
        fprintf(stderr, "%s: %s\n", argv[1], sf_strerror(NULL));
        return 1;
    }
    const double tempo = atof(argv[3]);
    const int ch = si.channels;
    SF_INFO so = si;
    so.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    so.frames = 0;
    SNDFILE *out = sf_open(argv[2], SFM_WRITE, &so);
    if (!out) {
        fprintf(stderr, "%s: %s\n", argv[2], sf_strerror(NULL));
        return 1;
    }
    sf_command(out, SFC_SET_CLIPPING, NULL, SF_TRUE);

    HANDLE h = soundtouch_createInstance();
    soundtouch_setSampleRate(h, (unsigned)si.samplerate);
    soundtouch_setChannels(h, (unsigned)ch);
    soundtouch_setTempo(h, (float)tempo);

    float *buf = malloc(sizeof(float) * BLOCK * ch);
    const sf_count_t want = (sf_count_t)llround((double)si.frames / tempo);
    sf_count_t written = 0;
    int flushed = 0;
    while (written < want) {
        if (!flushed) {
            sf_count_t n = sf_readf_float(in, buf, BLOCK);
            if (n > 0)
                soundtouch_putSamples(h, buf, (unsigned)n);
            else {
                soundtouch_flush(h);
                flushed = 1;
            }
        }
        unsigned k;
        while (written < want && (k = soundtouch_receiveSamples(h, buf, BLOCK)) > 0) {
            sf_count_t take = want - written < (sf_count_t)k ? want - written : (sf_count_t)k;
            sf_writef_float(out, buf, take);
            written += take;
        }
        if (flushed && written < want) { /* flush() pads with silence; nothing more will come */
            memset(buf, 0, sizeof(float) * BLOCK * ch);
            while (written < want) {
                sf_count_t take = want - written < BLOCK ? want - written : BLOCK;
                sf_writef_float(out, buf, take);
                written += take;
            }
        }
    }
    soundtouch_destroyInstance(h);
    free(buf);
    sf_close(in);
    sf_close(out);
    return 0;
}
