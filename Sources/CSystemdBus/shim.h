// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSYSTEMDBUS_SHIM_H
#define PRACTICE_CSYSTEMDBUS_SHIM_H
#include <systemd/sd-bus.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

/// The sd-bus calls we use, resolved from libsystemd.so.0 at run time. No variadic ones:
/// messages are built and read one value or container at a time.
#define PRACTICE_BUS_CALLS(X) \
    X(int, open_user, (sd_bus **), "sd_bus_open_user") \
    X(int, new_bus, (sd_bus **), "sd_bus_new") \
    X(int, set_address, (sd_bus *, const char *), "sd_bus_set_address") \
    X(int, set_bus_client, (sd_bus *, int), "sd_bus_set_bus_client") \
    X(int, start, (sd_bus *), "sd_bus_start") \
    X(sd_bus *, flush_close_unref, (sd_bus *), "sd_bus_flush_close_unref") \
    X(int, request_name, (sd_bus *, const char *, uint64_t), "sd_bus_request_name") \
    X(int, release_name, (sd_bus *, const char *), "sd_bus_release_name") \
    X(int, get_unique_name, (sd_bus *, const char **), "sd_bus_get_unique_name") \
    X(int, add_object_vtable, (sd_bus *, sd_bus_slot **, const char *, const char *, const sd_bus_vtable *, void *), "sd_bus_add_object_vtable") \
    X(int, add_match, (sd_bus *, sd_bus_slot **, const char *, sd_bus_message_handler_t, void *), "sd_bus_add_match") \
    X(int, get_fd, (sd_bus *), "sd_bus_get_fd") \
    X(int, get_events, (sd_bus *), "sd_bus_get_events") \
    X(int, get_timeout, (sd_bus *, uint64_t *), "sd_bus_get_timeout") \
    X(int, process, (sd_bus *, sd_bus_message **), "sd_bus_process") \
    X(int, flush, (sd_bus *), "sd_bus_flush") \
    X(int, send, (sd_bus *, sd_bus_message *, uint64_t *), "sd_bus_send") \
    X(int, call, (sd_bus *, sd_bus_message *, uint64_t, sd_bus_error *, sd_bus_message **), "sd_bus_call") \
    X(int, emit_properties_changed_strv, (sd_bus *, const char *, const char *, char **), "sd_bus_emit_properties_changed_strv") \
    X(int, message_new_signal, (sd_bus *, sd_bus_message **, const char *, const char *, const char *), "sd_bus_message_new_signal") \
    X(int, message_new_method_call, (sd_bus *, sd_bus_message **, const char *, const char *, const char *, const char *), "sd_bus_message_new_method_call") \
    X(int, message_new_method_return, (sd_bus_message *, sd_bus_message **), "sd_bus_message_new_method_return") \
    X(int, message_set_expect_reply, (sd_bus_message *, int), "sd_bus_message_set_expect_reply") \
    X(sd_bus_message *, message_unref, (sd_bus_message *), "sd_bus_message_unref") \
    X(int, message_append_basic, (sd_bus_message *, char, const void *), "sd_bus_message_append_basic") \
    X(int, message_open_container, (sd_bus_message *, char, const char *), "sd_bus_message_open_container") \
    X(int, message_close_container, (sd_bus_message *), "sd_bus_message_close_container") \
    X(int, message_read_basic, (sd_bus_message *, char, void *), "sd_bus_message_read_basic") \
    X(int, message_enter_container, (sd_bus_message *, char, const char *), "sd_bus_message_enter_container") \
    X(int, message_exit_container, (sd_bus_message *), "sd_bus_message_exit_container") \
    X(int, message_peek_type, (sd_bus_message *, char *, const char **), "sd_bus_message_peek_type") \
    X(int, message_skip, (sd_bus_message *, const char *), "sd_bus_message_skip") \
    X(const char *, message_get_member, (sd_bus_message *), "sd_bus_message_get_member") \
    X(int, error_set, (sd_bus_error *, const char *, const char *), "sd_bus_error_set") \
    X(void, error_free, (sd_bus_error *), "sd_bus_error_free")

#define PRACTICE_BUS_FIELD(ret, name, args, symbol) ret (*name) args;
typedef struct {
    PRACTICE_BUS_CALLS(PRACTICE_BUS_FIELD)
    /// `sd_bus_object_vtable_format`: the version stamp every vtable's first entry points at.
    const unsigned *vtable_format;
} practice_bus_api;
#undef PRACTICE_BUS_FIELD

/// Opens libsystemd and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_bus_load(practice_bus_api *api) {
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_BUS_SYMBOL(ret, name, args, symbol) \
    if ((*(void **)&api->name = dlsym(library, symbol)) == NULL) return "libsystemd.so.0 has no " symbol;
    PRACTICE_BUS_CALLS(PRACTICE_BUS_SYMBOL)
#undef PRACTICE_BUS_SYMBOL
    if ((api->vtable_format = dlsym(library, "sd_bus_object_vtable_format")) == NULL)
        return "libsystemd.so.0 has no sd_bus_object_vtable_format";
    return NULL;
}

// The vtable's entries are bit fields and unions, which Swift cannot fill: one door each.
static inline sd_bus_vtable practice_bus_vtable_start(const unsigned *format) {
    sd_bus_vtable v;
    memset(&v, 0, sizeof v);
    v.type = _SD_BUS_VTABLE_START;
    v.flags = 0;
    v.x.start.element_size = sizeof(sd_bus_vtable);
    v.x.start.features = _SD_BUS_VTABLE_PARAM_NAMES;
    v.x.start.vtable_format_reference = format;
    return v;
}
static inline sd_bus_vtable practice_bus_vtable_method(const char *member, const char *signature, const char *result,
                                                       sd_bus_message_handler_t handler) {
    sd_bus_vtable v = SD_BUS_METHOD(member, signature, result, handler, SD_BUS_VTABLE_UNPRIVILEGED);
    return v;
}
static inline sd_bus_vtable practice_bus_vtable_signal(const char *member, const char *signature) {
    sd_bus_vtable v = SD_BUS_SIGNAL(member, signature, 0);
    return v;
}
/// A property; `emits` says whether PropertiesChanged carries it (Position does not).
static inline sd_bus_vtable practice_bus_vtable_property(const char *member, const char *signature, sd_bus_property_get_t get,
                                                         sd_bus_property_set_t set, int emits) {
    uint64_t flags = emits ? SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE : 0;
    if (set != NULL) {
        sd_bus_vtable v = SD_BUS_WRITABLE_PROPERTY(member, signature, get, set, 0, flags | SD_BUS_VTABLE_UNPRIVILEGED);
        return v;
    }
    sd_bus_vtable v = SD_BUS_PROPERTY(member, signature, get, 0, flags);
    return v;
}
static inline sd_bus_vtable practice_bus_vtable_end(void) {
    sd_bus_vtable v = SD_BUS_VTABLE_END;
    return v;
}
static inline sd_bus_error practice_bus_error_null(void) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    return e;
}
#endif
