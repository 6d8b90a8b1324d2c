// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CALSA_SHIM_H
#define PRACTICE_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <dlfcn.h>
#include <stddef.h>

/// The ALSA calls we use, resolved from libasound.so.2 at run time (`snd_` left off each name).
typedef struct {
    int (*pcm_open)(snd_pcm_t **, const char *, snd_pcm_stream_t, int);
    int (*pcm_close)(snd_pcm_t *);
    const char *(*strerror)(int);
    snd_pcm_sframes_t (*pcm_writei)(snd_pcm_t *, const void *, snd_pcm_uframes_t);
    int (*pcm_recover)(snd_pcm_t *, int, int);
    int (*pcm_drop)(snd_pcm_t *);
    int (*pcm_drain)(snd_pcm_t *);
    int (*pcm_prepare)(snd_pcm_t *);
    int (*pcm_start)(snd_pcm_t *);
    snd_pcm_state_t (*pcm_state)(snd_pcm_t *);
    int (*pcm_delay)(snd_pcm_t *, snd_pcm_sframes_t *);
    int (*pcm_wait)(snd_pcm_t *, int);
    snd_pcm_sframes_t (*pcm_avail_update)(snd_pcm_t *);
    int (*pcm_poll_descriptors_count)(snd_pcm_t *);
    int (*pcm_poll_descriptors)(snd_pcm_t *, struct pollfd *, unsigned int);
    int (*pcm_poll_descriptors_revents)(snd_pcm_t *, struct pollfd *, unsigned int, unsigned short *);
    int (*pcm_hw_params_malloc)(snd_pcm_hw_params_t **);
    void (*pcm_hw_params_free)(snd_pcm_hw_params_t *);
    int (*pcm_hw_params_any)(snd_pcm_t *, snd_pcm_hw_params_t *);
    int (*pcm_hw_params)(snd_pcm_t *, snd_pcm_hw_params_t *);
    int (*pcm_hw_params_set_access)(snd_pcm_t *, snd_pcm_hw_params_t *, snd_pcm_access_t);
    int (*pcm_hw_params_test_format)(snd_pcm_t *, snd_pcm_hw_params_t *, snd_pcm_format_t);
    int (*pcm_hw_params_set_format)(snd_pcm_t *, snd_pcm_hw_params_t *, snd_pcm_format_t);
    int (*pcm_hw_params_set_channels)(snd_pcm_t *, snd_pcm_hw_params_t *, unsigned int);
    int (*pcm_hw_params_set_rate_resample)(snd_pcm_t *, snd_pcm_hw_params_t *, unsigned int);
    int (*pcm_hw_params_set_rate_near)(snd_pcm_t *, snd_pcm_hw_params_t *, unsigned int *, int *);
    int (*pcm_hw_params_set_buffer_time_near)(snd_pcm_t *, snd_pcm_hw_params_t *, unsigned int *, int *);
    int (*pcm_hw_params_set_period_time_near)(snd_pcm_t *, snd_pcm_hw_params_t *, unsigned int *, int *);
    int (*pcm_hw_params_get_period_size)(const snd_pcm_hw_params_t *, snd_pcm_uframes_t *, int *);
    int (*pcm_hw_params_get_buffer_size)(const snd_pcm_hw_params_t *, snd_pcm_uframes_t *);
    int (*pcm_sw_params_malloc)(snd_pcm_sw_params_t **);
    void (*pcm_sw_params_free)(snd_pcm_sw_params_t *);
    int (*pcm_sw_params_current)(snd_pcm_t *, snd_pcm_sw_params_t *);
    int (*pcm_sw_params)(snd_pcm_t *, snd_pcm_sw_params_t *);
    int (*pcm_sw_params_set_start_threshold)(snd_pcm_t *, snd_pcm_sw_params_t *, snd_pcm_uframes_t);
    int (*pcm_sw_params_set_avail_min)(snd_pcm_t *, snd_pcm_sw_params_t *, snd_pcm_uframes_t);
    int (*lib_error_set_handler)(snd_lib_error_handler_t);
} practice_alsa_api;

// ALSA prints its own errors ("ALSA lib pcm.c:…: Unknown PCM nope") to stderr; we report each
// failure once, in our words. The handler type is variadic, which Swift cannot implement.
static void CALSA_ignoreError(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// Opens libasound, fills `api` and stops the library from printing errors to stderr; returns
/// NULL, or what went wrong (dlerror's text).
static inline const char *practice_alsa_load(practice_alsa_api *api) {
    void *library = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_ALSA_SYMBOL(field) \
    if ((*(void **)&api->field = dlsym(library, "snd_" #field)) == NULL) return "libasound.so.2 has no snd_" #field;
    PRACTICE_ALSA_SYMBOL(pcm_open)
    PRACTICE_ALSA_SYMBOL(pcm_close)
    PRACTICE_ALSA_SYMBOL(strerror)
    PRACTICE_ALSA_SYMBOL(pcm_writei)
    PRACTICE_ALSA_SYMBOL(pcm_recover)
    PRACTICE_ALSA_SYMBOL(pcm_drop)
    PRACTICE_ALSA_SYMBOL(pcm_drain)
    PRACTICE_ALSA_SYMBOL(pcm_prepare)
    PRACTICE_ALSA_SYMBOL(pcm_start)
    PRACTICE_ALSA_SYMBOL(pcm_state)
    PRACTICE_ALSA_SYMBOL(pcm_delay)
    PRACTICE_ALSA_SYMBOL(pcm_wait)
    PRACTICE_ALSA_SYMBOL(pcm_avail_update)
    PRACTICE_ALSA_SYMBOL(pcm_poll_descriptors_count)
    PRACTICE_ALSA_SYMBOL(pcm_poll_descriptors)
    PRACTICE_ALSA_SYMBOL(pcm_poll_descriptors_revents)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_malloc)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_free)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_any)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_set_access)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_test_format)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_set_format)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_set_channels)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_set_rate_resample)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_set_rate_near)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_set_buffer_time_near)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_set_period_time_near)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_get_period_size)
    PRACTICE_ALSA_SYMBOL(pcm_hw_params_get_buffer_size)
    PRACTICE_ALSA_SYMBOL(pcm_sw_params_malloc)
    PRACTICE_ALSA_SYMBOL(pcm_sw_params_free)
    PRACTICE_ALSA_SYMBOL(pcm_sw_params_current)
    PRACTICE_ALSA_SYMBOL(pcm_sw_params)
    PRACTICE_ALSA_SYMBOL(pcm_sw_params_set_start_threshold)
    PRACTICE_ALSA_SYMBOL(pcm_sw_params_set_avail_min)
    PRACTICE_ALSA_SYMBOL(lib_error_set_handler)
#undef PRACTICE_ALSA_SYMBOL
    api->lib_error_set_handler(CALSA_ignoreError);
    return NULL;
}
#endif
