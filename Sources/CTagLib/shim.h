// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CTAGLIB_SHIM_H
#define PRACTICE_CTAGLIB_SHIM_H
#include "../CTagLibShim/include/practice_taglib.h"
#include <dlfcn.h>
#include <stddef.h>

/// The shim's calls, resolved from libpractice-taglib.so at run time.
typedef struct {
    int (*front_cover)(const char *, practice_picture *);
    void (*picture_free)(practice_picture *);
    int (*tags)(const char *, practice_tags *, practice_picture *);
    void (*tags_free)(practice_tags *);
} practice_taglib_api;

/// Opens the shim at `path` and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_taglib_load(practice_taglib_api *api, const char *path) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_TAGLIB_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libpractice-taglib.so has no " name;
    PRACTICE_TAGLIB_SYMBOL(front_cover, "practice_taglib_front_cover")
    PRACTICE_TAGLIB_SYMBOL(picture_free, "practice_picture_free")
    PRACTICE_TAGLIB_SYMBOL(tags, "practice_taglib_tags")
    PRACTICE_TAGLIB_SYMBOL(tags_free, "practice_tags_free")
#undef PRACTICE_TAGLIB_SYMBOL
    return NULL;
}
#endif
