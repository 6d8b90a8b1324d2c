// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CRUBBERBAND_SHIM_H
#define PRACTICE_CRUBBERBAND_SHIM_H
// Rubber Band Library 3 (librubberband-dev): its C API, for the R3 ("finer") stretcher, resolved
// from librubberband.so.2 at run time.
#include <rubberband/rubberband-c.h>
#include <dlfcn.h>
#include <stddef.h>

/// The Rubber Band calls we use.
typedef struct {
    RubberBandState (*new_state)(unsigned int, unsigned int, RubberBandOptions, double, double);
    void (*delete_state)(RubberBandState);
    void (*reset)(RubberBandState);
    void (*set_time_ratio)(RubberBandState, double);
    void (*set_pitch_scale)(RubberBandState, double);
    void (*set_formant_option)(RubberBandState, RubberBandOptions);
    void (*set_max_process_size)(RubberBandState, unsigned int);
    unsigned int (*get_preferred_start_pad)(const RubberBandState);
    unsigned int (*get_start_delay)(const RubberBandState);
    void (*process)(RubberBandState, const float *const *, unsigned int, int);
    int (*available)(const RubberBandState);
    unsigned int (*retrieve)(const RubberBandState, float *const *, unsigned int);
} practice_rubberband_api;

/// Opens Rubber Band and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_rubberband_load(practice_rubberband_api *api) {
    void *library = dlopen("librubberband.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_RUBBERBAND_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "librubberband.so.2 has no " name;
    PRACTICE_RUBBERBAND_SYMBOL(new_state, "rubberband_new")
    PRACTICE_RUBBERBAND_SYMBOL(delete_state, "rubberband_delete")
    PRACTICE_RUBBERBAND_SYMBOL(reset, "rubberband_reset")
    PRACTICE_RUBBERBAND_SYMBOL(set_time_ratio, "rubberband_set_time_ratio")
    PRACTICE_RUBBERBAND_SYMBOL(set_pitch_scale, "rubberband_set_pitch_scale")
    PRACTICE_RUBBERBAND_SYMBOL(set_formant_option, "rubberband_set_formant_option")
    PRACTICE_RUBBERBAND_SYMBOL(set_max_process_size, "rubberband_set_max_process_size")
    PRACTICE_RUBBERBAND_SYMBOL(get_preferred_start_pad, "rubberband_get_preferred_start_pad")
    PRACTICE_RUBBERBAND_SYMBOL(get_start_delay, "rubberband_get_start_delay")
    PRACTICE_RUBBERBAND_SYMBOL(process, "rubberband_process")
    PRACTICE_RUBBERBAND_SYMBOL(available, "rubberband_available")
    PRACTICE_RUBBERBAND_SYMBOL(retrieve, "rubberband_retrieve")
#undef PRACTICE_RUBBERBAND_SYMBOL
    return NULL;
}
#endif
