// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CWEBSOCKETS_SHIM_H
#define PRACTICE_CWEBSOCKETS_SHIM_H
#include <libwebsockets.h>
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

/// The libwebsockets calls we use, resolved from libwebsockets.so.17 at run time.
typedef struct {
    void (*set_log_level)(int, void (*)(int, const char *));
    struct lws_context *(*create_context)(const struct lws_context_creation_info *);
    void (*context_destroy)(struct lws_context *);
    int (*service)(struct lws_context *, int);
    void (*cancel_service)(struct lws_context *);
    struct lws_context *(*get_context)(const struct lws *);
    void *(*context_user)(struct lws_context *);
    int (*hdr_total_length)(struct lws *, enum lws_token_indexes);
    int (*hdr_copy)(struct lws *, char *, int, enum lws_token_indexes);
    int (*http_get_uri_and_method)(struct lws *, char **, int *);
    int (*add_http_header_status)(struct lws *, unsigned int, unsigned char **, unsigned char *);
    int (*add_http_header_by_name)(struct lws *, const unsigned char *, const unsigned char *, int, unsigned char **, unsigned char *);
    int (*finalize_http_header)(struct lws *, unsigned char **, unsigned char *);
    int (*write)(struct lws *, unsigned char *, size_t, enum lws_write_protocol);
    int (*http_transaction_completed)(struct lws *);
    void (*close_reason)(struct lws *, enum lws_close_status, unsigned char *, size_t);
    int (*callback_on_writable)(struct lws *);
    void (*set_timer_usecs)(struct lws *, lws_usec_t);
    int (*is_final_fragment)(struct lws *);
    int (*frame_is_binary)(struct lws *);
    int (*callback_http_dummy)(struct lws *, enum lws_callback_reasons, void *, void *, size_t);
} practice_lws_api;

/// Opens libwebsockets and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_lws_load(practice_lws_api *api) {
    void *library = dlopen("libwebsockets.so.17", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_LWS_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libwebsockets.so.17 has no " name;
    PRACTICE_LWS_SYMBOL(set_log_level, "lws_set_log_level")
    PRACTICE_LWS_SYMBOL(create_context, "lws_create_context")
    PRACTICE_LWS_SYMBOL(context_destroy, "lws_context_destroy")
    PRACTICE_LWS_SYMBOL(service, "lws_service")
    PRACTICE_LWS_SYMBOL(cancel_service, "lws_cancel_service")
    PRACTICE_LWS_SYMBOL(get_context, "lws_get_context")
    PRACTICE_LWS_SYMBOL(context_user, "lws_context_user")
    PRACTICE_LWS_SYMBOL(hdr_total_length, "lws_hdr_total_length")
    PRACTICE_LWS_SYMBOL(hdr_copy, "lws_hdr_copy")
    PRACTICE_LWS_SYMBOL(http_get_uri_and_method, "lws_http_get_uri_and_method")
    PRACTICE_LWS_SYMBOL(add_http_header_status, "lws_add_http_header_status")
    PRACTICE_LWS_SYMBOL(add_http_header_by_name, "lws_add_http_header_by_name")
    PRACTICE_LWS_SYMBOL(finalize_http_header, "lws_finalize_http_header")
    PRACTICE_LWS_SYMBOL(write, "lws_write")
    PRACTICE_LWS_SYMBOL(http_transaction_completed, "lws_http_transaction_completed")
    PRACTICE_LWS_SYMBOL(close_reason, "lws_close_reason")
    PRACTICE_LWS_SYMBOL(callback_on_writable, "lws_callback_on_writable")
    PRACTICE_LWS_SYMBOL(set_timer_usecs, "lws_set_timer_usecs")
    PRACTICE_LWS_SYMBOL(is_final_fragment, "lws_is_final_fragment")
    PRACTICE_LWS_SYMBOL(frame_is_binary, "lws_frame_is_binary")
    PRACTICE_LWS_SYMBOL(callback_http_dummy, "lws_callback_http_dummy")
#undef PRACTICE_LWS_SYMBOL
    return NULL;
}

/// The bytes libwebsockets wants free before each buffer it writes (LWS_PRE, a macro Swift cannot see).
static inline size_t practice_lws_pre(void) { return LWS_PRE; }

/// A server context with one vhost listening on `iface` (a numeric address) and `port`, one
/// protocol (`protocols`, terminated by an empty one), `user` as the context's user pointer.
/// `idle_seconds`: how long a connection may say nothing between its requests. `iface` must live
/// as long as the context (libwebsockets keeps the pointer).
/// The process's descriptors are left alone (no fd table the size of `ulimit -n`), no server
/// name is told. SIGPIPE is left as it was (libwebsockets ignores it for the whole process; its
/// sends do not raise it). NULL when it could not be made.
static inline struct lws_context *practice_lws_server(const practice_lws_api *api, const char *iface, int port, int ipv6,
                                                      const struct lws_protocols *protocols, void *user, int idle_seconds,
                                                      unsigned short max_header_data) {
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.iface = iface;
    info.port = port;
    info.protocols = protocols;
    info.user = user;
    info.gid = -1;
    info.uid = -1;
    info.options = LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS | LWS_SERVER_OPTION_SKIP_SERVER_CANONICAL_NAME | (ipv6 ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
    // A request's headers within 10 s of connecting, a stalled body or close within 10 s (or
    // the idle time, when shorter); a paired phone's keep-alive connection the idle time between requests.
    unsigned int quick = idle_seconds < 10 ? (unsigned int)idle_seconds : 10;
    info.timeout_secs = quick;
    info.timeout_secs_ah_idle = quick;
    info.keepalive_timeout = idle_seconds;
    info.max_http_header_data = max_header_data;
    info.max_http_header_pool = 128;
    info.fd_limit_per_thread = 128;
    info.count_threads = 1;
    struct sigaction pipe;
    sigaction(SIGPIPE, NULL, &pipe);
    struct lws_context *context = api->create_context(&info);
    sigaction(SIGPIPE, &pipe, NULL);
    return context;
}
#endif
