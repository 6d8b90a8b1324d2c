// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CNETTLE_SHIM_H
#define PRACTICE_CNETTLE_SHIM_H
#include <nettle/sha2.h>
#include <dlfcn.h>
#include <stddef.h>

/// Nettle's SHA-256, resolved from libnettle.so.8 at run time (at the first checksum).
typedef struct {
    void (*start)(struct sha256_ctx *);
    void (*update)(struct sha256_ctx *, size_t, const uint8_t *);
    void (*digest)(struct sha256_ctx *, size_t, uint8_t *);
} practice_nettle_api;

/// Opens libnettle and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_nettle_load(practice_nettle_api *api) {
    void *library = dlopen("libnettle.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
    if ((*(void **)&api->start = dlsym(library, "nettle_sha256_init")) == NULL) return "libnettle.so.8 has no nettle_sha256_init";
    if ((*(void **)&api->update = dlsym(library, "nettle_sha256_update")) == NULL) return "libnettle.so.8 has no nettle_sha256_update";
    if ((*(void **)&api->digest = dlsym(library, "nettle_sha256_digest")) == NULL) return "libnettle.so.8 has no nettle_sha256_digest";
    return NULL;
}
#endif
