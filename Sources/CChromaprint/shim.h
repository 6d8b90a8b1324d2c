// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CCHROMAPRINT_SHIM_H
#define PRACTICE_CCHROMAPRINT_SHIM_H
#include <chromaprint.h>
#include <dlfcn.h>
#include <stddef.h>

/// The Chromaprint calls we use, resolved from libchromaprint.so.1 at run time.
typedef struct {
    ChromaprintContext *(*new_context)(int);
    void (*free_context)(ChromaprintContext *);
    int (*start)(ChromaprintContext *, int, int);
    int (*feed)(ChromaprintContext *, const int16_t *, int);
    int (*finish)(ChromaprintContext *);
    int (*get_raw_fingerprint)(ChromaprintContext *, uint32_t **, int *);
    int (*get_item_duration)(ChromaprintContext *);
    int (*get_sample_rate)(ChromaprintContext *);
    int (*get_delay)(ChromaprintContext *);
    int (*encode_fingerprint)(const uint32_t *, int, int, char **, int *, int);
    int (*decode_fingerprint)(const char *, int, uint32_t **, int *, int *, int);
    void (*dealloc)(void *);
} practice_chromaprint_api;

/// Opens Chromaprint and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_chromaprint_load(practice_chromaprint_api *api) {
    void *library = dlopen("libchromaprint.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_CHROMAPRINT_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libchromaprint.so.1 has no " name;
    PRACTICE_CHROMAPRINT_SYMBOL(new_context, "chromaprint_new")
    PRACTICE_CHROMAPRINT_SYMBOL(free_context, "chromaprint_free")
    PRACTICE_CHROMAPRINT_SYMBOL(start, "chromaprint_start")
    PRACTICE_CHROMAPRINT_SYMBOL(feed, "chromaprint_feed")
    PRACTICE_CHROMAPRINT_SYMBOL(finish, "chromaprint_finish")
    PRACTICE_CHROMAPRINT_SYMBOL(get_raw_fingerprint, "chromaprint_get_raw_fingerprint")
    PRACTICE_CHROMAPRINT_SYMBOL(get_item_duration, "chromaprint_get_item_duration")
    PRACTICE_CHROMAPRINT_SYMBOL(get_sample_rate, "chromaprint_get_sample_rate")
    PRACTICE_CHROMAPRINT_SYMBOL(get_delay, "chromaprint_get_delay")
    PRACTICE_CHROMAPRINT_SYMBOL(encode_fingerprint, "chromaprint_encode_fingerprint")
    PRACTICE_CHROMAPRINT_SYMBOL(decode_fingerprint, "chromaprint_decode_fingerprint")
    PRACTICE_CHROMAPRINT_SYMBOL(dealloc, "chromaprint_dealloc")
#undef PRACTICE_CHROMAPRINT_SYMBOL
    return NULL;
}
#endif
