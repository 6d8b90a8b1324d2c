// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSOUNDTOUCH_SHIM_H
#define PRACTICE_CSOUNDTOUCH_SHIM_H
// SoundTouch's C API (libSoundTouchDll). Debian ships the library but not SoundTouchDLL.h, and that
// header defines HANDLE/DWORD/TRUE/FALSE and wraps itself in C++-only `extern "C"` (2.3.3+), so the
// prototypes we use are declared here. They match SoundTouchDLL.h of SoundTouch 2.3.2.
typedef void *CSoundTouchHandle;

CSoundTouchHandle soundtouch_createInstance(void);
void soundtouch_destroyInstance(CSoundTouchHandle h);
const char *soundtouch_getVersionString(void);
unsigned int soundtouch_getVersionId(void);
void soundtouch_setTempo(CSoundTouchHandle h, float newTempo);
void soundtouch_setRate(CSoundTouchHandle h, float newRate);
void soundtouch_setPitch(CSoundTouchHandle h, float newPitch);
int soundtouch_setChannels(CSoundTouchHandle h, unsigned int numChannels);
int soundtouch_setSampleRate(CSoundTouchHandle h, unsigned int srate);
int soundtouch_flush(CSoundTouchHandle h);
int soundtouch_putSamples(CSoundTouchHandle h, const float *samples, unsigned int numSamples);
void soundtouch_clear(CSoundTouchHandle h);
int soundtouch_setSetting(CSoundTouchHandle h, int settingId, int value);
int soundtouch_getSetting(CSoundTouchHandle h, int settingId);
unsigned int soundtouch_numUnprocessedSamples(CSoundTouchHandle h);
unsigned int soundtouch_receiveSamples(CSoundTouchHandle h, float *outBuffer, unsigned int maxSamples);
unsigned int soundtouch_numSamples(CSoundTouchHandle h);
int soundtouch_isEmpty(CSoundTouchHandle h);

// Setting ids (SoundTouch.h; not part of the C header).
enum {
    CSOUNDTOUCH_SETTING_USE_AA_FILTER = 0,
    CSOUNDTOUCH_SETTING_AA_FILTER_LENGTH = 1,
    CSOUNDTOUCH_SETTING_USE_QUICKSEEK = 2,
    CSOUNDTOUCH_SETTING_SEQUENCE_MS = 3,
    CSOUNDTOUCH_SETTING_SEEKWINDOW_MS = 4,
    CSOUNDTOUCH_SETTING_OVERLAP_MS = 5,
    CSOUNDTOUCH_SETTING_NOMINAL_INPUT_SEQUENCE = 6,
    CSOUNDTOUCH_SETTING_NOMINAL_OUTPUT_SEQUENCE = 7,
    CSOUNDTOUCH_SETTING_INITIAL_LATENCY = 8,
};
#endif
