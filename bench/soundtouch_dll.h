// SPDX-License-Identifier: GPL-3.0-or-later
/* SoundTouch's C API (libSoundTouchDll), for the benches' C harnesses (bench/quality/st_harness.c,
 * bench/render/c_loop.c). Debian ships the library but not SoundTouchDLL.h, so the prototypes of
 * what the harnesses call are declared here, once.
 */
#ifndef PRACTICE_BENCH_SOUNDTOUCH_DLL_H
#define PRACTICE_BENCH_SOUNDTOUCH_DLL_H

typedef void *HANDLE;
HANDLE soundtouch_createInstance(void);
void soundtouch_destroyInstance(HANDLE h);
void soundtouch_setTempo(HANDLE h, float newTempo);
void soundtouch_setChannels(HANDLE h, unsigned int numChannels);
void soundtouch_setSampleRate(HANDLE h, unsigned int srate);
int soundtouch_setSetting(HANDLE h, int settingId, int value);
int soundtouch_getSetting(HANDLE h, int settingId);
void soundtouch_putSamples(HANDLE h, const float *samples, unsigned int numSamples);
unsigned int soundtouch_receiveSamples(HANDLE h, float *outBuffer, unsigned int maxSamples);
void soundtouch_flush(HANDLE h);
const char *soundtouch_getVersionString(void);

#endif
