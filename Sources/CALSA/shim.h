// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CALSA_SHIM_H
#define PRACTICE_CALSA_SHIM_H
#include <alsa/asoundlib.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

// ALSA prints its own errors ("ALSA lib pcm.c:…: Unknown PCM nope") to stderr; we report each
// failure once, in our words. The handler type is variadic, which Swift cannot implement.
static void CALSA_ignoreError(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
/// Stops libasound from printing errors to stderr.
static inline void CALSA_silenceLibraryErrors(void) { snd_lib_error_set_handler(CALSA_ignoreError); }
#endif
