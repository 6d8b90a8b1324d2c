// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CCURL_SHIM_H
#define PRACTICE_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

/// The libcurl calls we use, resolved from libcurl.so.4 at run time.
typedef struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    void (*easy_cleanup)(CURL *);
} practice_curl_api;

/// Opens libcurl and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_curl_load(practice_curl_api *api) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_CURL_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libcurl.so.4 has no " name;
    PRACTICE_CURL_SYMBOL(global_init, "curl_global_init")
    PRACTICE_CURL_SYMBOL(easy_init, "curl_easy_init")
    PRACTICE_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    PRACTICE_CURL_SYMBOL(easy_perform, "curl_easy_perform")
    PRACTICE_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    PRACTICE_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    PRACTICE_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
#undef PRACTICE_CURL_SYMBOL
    return NULL;
}

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed door each.
static inline CURLcode practice_curl_set_long(const practice_curl_api *api, CURL *c, CURLoption o, long v) {
    return api->easy_setopt(c, o, v);
}
static inline CURLcode practice_curl_set_string(const practice_curl_api *api, CURL *c, CURLoption o, const char *v) {
    return api->easy_setopt(c, o, v);
}
static inline CURLcode practice_curl_set_pointer(const practice_curl_api *api, CURL *c, CURLoption o, void *v) {
    return api->easy_setopt(c, o, v);
}
static inline CURLcode practice_curl_set_write(const practice_curl_api *api, CURL *c, curl_write_callback v) {
    return api->easy_setopt(c, CURLOPT_WRITEFUNCTION, v);
}
static inline CURLcode practice_curl_set_progress(const practice_curl_api *api, CURL *c, curl_xferinfo_callback v) {
    return api->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, v);
}
static inline CURLcode practice_curl_get_long(const practice_curl_api *api, CURL *c, CURLINFO i, long *v) {
    return api->easy_getinfo(c, i, v);
}
static inline CURLcode practice_curl_get_offset(const practice_curl_api *api, CURL *c, CURLINFO i, curl_off_t *v) {
    return api->easy_getinfo(c, i, v);
}
static inline CURLcode practice_curl_get_string(const practice_curl_api *api, CURL *c, CURLINFO i, const char **v) {
    return api->easy_getinfo(c, i, v);
}
#endif
