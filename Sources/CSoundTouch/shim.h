// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSOUNDTOUCH_SHIM_H
#define PRACTICE_CSOUNDTOUCH_SHIM_H
// SoundTouch's C API (libSoundTouchDll). Debian ships the library but not SoundTouchDLL.h, and that
// header defines HANDLE/DWORD/TRUE/FALSE and wraps itself in C++-only `extern "C"` (2.3.3+), so the
// functions we use are declared here, as a table filled at run time. They match SoundTouchDLL.h of
// SoundTouch 2.3.2.
typedef void *CSoundTouchHandle;

#include <dlfcn.h>
#include <stddef.h>

/// The SoundTouch calls we use, resolved from libSoundTouchDll.so.1 at run time.
typedef struct {
    CSoundTouchHandle (*createInstance)(void);
    void (*destroyInstance)(CSoundTouchHandle);
    void (*setTempo)(CSoundTouchHandle, float);
    int (*setChannels)(CSoundTouchHandle, unsigned int);
    int (*setSampleRate)(CSoundTouchHandle, unsigned int);
    int (*flush)(CSoundTouchHandle);
    int (*putSamples)(CSoundTouchHandle, const float *, unsigned int);
    void (*clear)(CSoundTouchHandle);
    int (*setSetting)(CSoundTouchHandle, int, int);
    int (*getSetting)(CSoundTouchHandle, int);
    unsigned int (*receiveSamples)(CSoundTouchHandle, float *, unsigned int);
} practice_soundtouch_api;

/// Opens SoundTouch's C library and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_soundtouch_load(practice_soundtouch_api *api) {
    void *library = dlopen("libSoundTouchDll.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_SOUNDTOUCH_SYMBOL(field) \
    if ((*(void **)&api->field = dlsym(library, "soundtouch_" #field)) == NULL) return "libSoundTouchDll.so.1 has no soundtouch_" #field;
    PRACTICE_SOUNDTOUCH_SYMBOL(createInstance)
    PRACTICE_SOUNDTOUCH_SYMBOL(destroyInstance)
    PRACTICE_SOUNDTOUCH_SYMBOL(setTempo)
    PRACTICE_SOUNDTOUCH_SYMBOL(setChannels)
    PRACTICE_SOUNDTOUCH_SYMBOL(setSampleRate)
    PRACTICE_SOUNDTOUCH_SYMBOL(flush)
    PRACTICE_SOUNDTOUCH_SYMBOL(putSamples)
    PRACTICE_SOUNDTOUCH_SYMBOL(clear)
    PRACTICE_SOUNDTOUCH_SYMBOL(setSetting)
    PRACTICE_SOUNDTOUCH_SYMBOL(getSetting)
    PRACTICE_SOUNDTOUCH_SYMBOL(receiveSamples)
#undef PRACTICE_SOUNDTOUCH_SYMBOL
    return NULL;
}

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
