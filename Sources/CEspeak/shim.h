// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CESPEAK_SHIM_H
#define PRACTICE_CESPEAK_SHIM_H
#include <espeak-ng/speak_lib.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/// The espeak-ng calls we use, resolved from libespeak-ng.so.1 at run time.
typedef struct {
    int (*initialize)(espeak_AUDIO_OUTPUT, int, const char *, int);
    void (*set_synth_callback)(t_espeak_callback *);
    espeak_ERROR (*synth)(const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int, unsigned int, unsigned int *, void *);
    espeak_ERROR (*synchronize)(void);
    espeak_ERROR (*set_parameter)(espeak_PARAMETER, int, int);
    espeak_ERROR (*set_voice_by_name)(const char *);
} practice_espeak_api;

/// Opens espeak-ng and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_espeak_load(practice_espeak_api *api) {
    void *library = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_ESPEAK_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libespeak-ng.so.1 has no " name;
    PRACTICE_ESPEAK_SYMBOL(initialize, "espeak_Initialize")
    PRACTICE_ESPEAK_SYMBOL(set_synth_callback, "espeak_SetSynthCallback")
    PRACTICE_ESPEAK_SYMBOL(synth, "espeak_Synth")
    PRACTICE_ESPEAK_SYMBOL(synchronize, "espeak_Synchronize")
    PRACTICE_ESPEAK_SYMBOL(set_parameter, "espeak_SetParameter")
    PRACTICE_ESPEAK_SYMBOL(set_voice_by_name, "espeak_SetVoiceByName")
#undef PRACTICE_ESPEAK_SYMBOL
    return NULL;
}

// What the synthesis callback collects (one synthesis at a time: the caller serialises them).
static short *practice_espeak_samples = NULL;
static size_t practice_espeak_count = 0, practice_espeak_capacity = 0;

static inline int practice_espeak_collect(short *wav, int n, espeak_EVENT *events) {
    (void)events;
    if (wav == NULL || n <= 0) return 0;
    if (practice_espeak_count + (size_t)n > practice_espeak_capacity) {
        size_t capacity = (practice_espeak_capacity + (size_t)n) * 2;
        short *grown = realloc(practice_espeak_samples, capacity * sizeof(short));
        if (grown == NULL) return 1;
        practice_espeak_samples = grown;
        practice_espeak_capacity = capacity;
    }
    memcpy(practice_espeak_samples + practice_espeak_count, wav, (size_t)n * sizeof(short));
    practice_espeak_count += (size_t)n;
    return 0;
}

/// The samples the last `practice_espeak_speak` collected.
static inline const short *practice_espeak_data(void) { return practice_espeak_samples; }

/// Speaks `text` (UTF-8) into the collected samples; returns how many, or -1.
static inline long practice_espeak_speak(practice_espeak_api *api, const char *text) {
    practice_espeak_count = 0;
    api->set_synth_callback(practice_espeak_collect);
    if (api->synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, NULL) != EE_OK) return -1;
    api->synchronize();
    return (long)practice_espeak_count;
}
#endif
