// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSOXR_SHIM_H
#define PRACTICE_CSOXR_SHIM_H
#include <soxr.h>
#include <dlfcn.h>
#include <stddef.h>

/// The soxr calls we use, resolved from libsoxr.so.0 at run time.
typedef struct {
    soxr_t (*create)(double, double, unsigned, soxr_error_t *, soxr_io_spec_t const *, soxr_quality_spec_t const *, soxr_runtime_spec_t const *);
    void (*delete_resampler)(soxr_t);
    soxr_error_t (*process)(soxr_t, soxr_in_t, size_t, size_t *, soxr_out_t, size_t, size_t *);
    soxr_error_t (*clear)(soxr_t);
    soxr_quality_spec_t (*quality_spec)(unsigned long, unsigned long);
} practice_soxr_api;

/// Opens soxr and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_soxr_load(practice_soxr_api *api) {
    void *library = dlopen("libsoxr.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_SOXR_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libsoxr.so.0 has no " name;
    PRACTICE_SOXR_SYMBOL(create, "soxr_create")
    PRACTICE_SOXR_SYMBOL(delete_resampler, "soxr_delete")
    PRACTICE_SOXR_SYMBOL(process, "soxr_process")
    PRACTICE_SOXR_SYMBOL(clear, "soxr_clear")
    PRACTICE_SOXR_SYMBOL(quality_spec, "soxr_quality_spec")
#undef PRACTICE_SOXR_SYMBOL
    return NULL;
}
#endif
