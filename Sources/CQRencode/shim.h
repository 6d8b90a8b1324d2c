// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CQRENCODE_SHIM_H
#define PRACTICE_CQRENCODE_SHIM_H
#include <qrencode.h>
#include <dlfcn.h>
#include <stddef.h>

/// The libqrencode calls we use, resolved from libqrencode.so.4 at run time.
typedef struct {
    QRcode *(*encode_string)(const char *, int, QRecLevel, QRencodeMode, int);
    void (*free_code)(QRcode *);
} practice_qrencode_api;

/// Opens libqrencode and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_qrencode_load(practice_qrencode_api *api) {
    void *library = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
    if ((*(void **)&api->encode_string = dlsym(library, "QRcode_encodeString")) == NULL) return "libqrencode.so.4 has no QRcode_encodeString";
    if ((*(void **)&api->free_code = dlsym(library, "QRcode_free")) == NULL) return "libqrencode.so.4 has no QRcode_free";
    return NULL;
}
#endif
