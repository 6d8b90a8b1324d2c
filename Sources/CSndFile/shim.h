// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSNDFILE_SHIM_H
#define PRACTICE_CSNDFILE_SHIM_H
#include <sndfile.h>
#include <dlfcn.h>
#include <stddef.h>

/// The libsndfile calls we use, resolved from libsndfile.so.1 at run time.
typedef struct {
    SNDFILE *(*open)(const char *, int, SF_INFO *);
    int (*close)(SNDFILE *);
    int (*command)(SNDFILE *, int, void *, int);
    int (*error)(SNDFILE *);
    const char *(*error_number)(int);
    const char *(*strerror)(SNDFILE *);
    int (*format_check)(const SF_INFO *);
    const char *(*get_string)(SNDFILE *, int);
    int (*set_string)(SNDFILE *, int, const char *);
    sf_count_t (*readf_float)(SNDFILE *, float *, sf_count_t);
    sf_count_t (*readf_short)(SNDFILE *, short *, sf_count_t);
    sf_count_t (*writef_float)(SNDFILE *, const float *, sf_count_t);
    sf_count_t (*writef_short)(SNDFILE *, const short *, sf_count_t);
    sf_count_t (*seek)(SNDFILE *, sf_count_t, int);
} practice_sndfile_api;

/// Opens libsndfile and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_sndfile_load(practice_sndfile_api *api) {
    void *library = dlopen("libsndfile.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_SNDFILE_SYMBOL(field) \
    if ((*(void **)&api->field = dlsym(library, "sf_" #field)) == NULL) return "libsndfile.so.1 has no sf_" #field;
    PRACTICE_SNDFILE_SYMBOL(open)
    PRACTICE_SNDFILE_SYMBOL(close)
    PRACTICE_SNDFILE_SYMBOL(command)
    PRACTICE_SNDFILE_SYMBOL(error)
    PRACTICE_SNDFILE_SYMBOL(error_number)
    PRACTICE_SNDFILE_SYMBOL(strerror)
    PRACTICE_SNDFILE_SYMBOL(format_check)
    PRACTICE_SNDFILE_SYMBOL(get_string)
    PRACTICE_SNDFILE_SYMBOL(set_string)
    PRACTICE_SNDFILE_SYMBOL(readf_float)
    PRACTICE_SNDFILE_SYMBOL(readf_short)
    PRACTICE_SNDFILE_SYMBOL(writef_float)
    PRACTICE_SNDFILE_SYMBOL(writef_short)
    PRACTICE_SNDFILE_SYMBOL(seek)
#undef PRACTICE_SNDFILE_SYMBOL
    return NULL;
}
#endif
