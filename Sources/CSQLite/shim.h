// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSQLITE_SHIM_H
#define PRACTICE_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <stddef.h>

/// The SQLite calls we use: a table of them, filled by `practice_sqlite_load`.
typedef struct {
    int (*open_v2)(const char *, sqlite3 **, int, const char *);
    int (*close_v2)(sqlite3 *);
    int (*extended_result_codes)(sqlite3 *, int);
    int (*busy_timeout)(sqlite3 *, int);
    int (*exec)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
    void (*free)(void *);
    int (*extended_errcode)(sqlite3 *);
    const char *(*errmsg)(sqlite3 *);
    const char *(*errstr)(int);
    int (*changes)(sqlite3 *);
    sqlite3_int64 (*last_insert_rowid)(sqlite3 *);
    int (*get_autocommit)(sqlite3 *);
    int (*file_control)(sqlite3 *, const char *, int, void *);
    int (*prepare_v3)(sqlite3 *, const char *, int, unsigned int, sqlite3_stmt **, const char **);
    int (*finalize)(sqlite3_stmt *);
    int (*step)(sqlite3_stmt *);
    int (*reset)(sqlite3_stmt *);
    int (*clear_bindings)(sqlite3_stmt *);
    int (*bind_parameter_count)(sqlite3_stmt *);
    int (*bind_null)(sqlite3_stmt *, int);
    int (*bind_int64)(sqlite3_stmt *, int, sqlite3_int64);
    int (*bind_double)(sqlite3_stmt *, int, double);
    int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
    int (*bind_blob)(sqlite3_stmt *, int, const void *, int, void (*)(void *));
    int (*bind_zeroblob)(sqlite3_stmt *, int, int);
    int (*column_count)(sqlite3_stmt *);
    const char *(*column_name)(sqlite3_stmt *, int);
    int (*column_type)(sqlite3_stmt *, int);
    sqlite3_int64 (*column_int64)(sqlite3_stmt *, int);
    double (*column_double)(sqlite3_stmt *, int);
    const unsigned char *(*column_text)(sqlite3_stmt *, int);
    const void *(*column_blob)(sqlite3_stmt *, int);
    int (*column_bytes)(sqlite3_stmt *, int);
} practice_sqlite_api;

/// Fills `api` with SQLite's functions, linked into the program from libsqlite3.a; returns NULL
/// (as the `dlopen` it replaced did when all went well).
static inline const char *practice_sqlite_load(practice_sqlite_api *api) {
#define PRACTICE_SQLITE_SYMBOL(field) api->field = sqlite3_##field;
    PRACTICE_SQLITE_SYMBOL(open_v2)
    PRACTICE_SQLITE_SYMBOL(close_v2)
    PRACTICE_SQLITE_SYMBOL(extended_result_codes)
    PRACTICE_SQLITE_SYMBOL(busy_timeout)
    PRACTICE_SQLITE_SYMBOL(exec)
    PRACTICE_SQLITE_SYMBOL(free)
    PRACTICE_SQLITE_SYMBOL(extended_errcode)
    PRACTICE_SQLITE_SYMBOL(errmsg)
    PRACTICE_SQLITE_SYMBOL(errstr)
    PRACTICE_SQLITE_SYMBOL(changes)
    PRACTICE_SQLITE_SYMBOL(last_insert_rowid)
    PRACTICE_SQLITE_SYMBOL(get_autocommit)
    PRACTICE_SQLITE_SYMBOL(file_control)
    PRACTICE_SQLITE_SYMBOL(prepare_v3)
    PRACTICE_SQLITE_SYMBOL(finalize)
    PRACTICE_SQLITE_SYMBOL(step)
    PRACTICE_SQLITE_SYMBOL(reset)
    PRACTICE_SQLITE_SYMBOL(clear_bindings)
    PRACTICE_SQLITE_SYMBOL(bind_parameter_count)
    PRACTICE_SQLITE_SYMBOL(bind_null)
    PRACTICE_SQLITE_SYMBOL(bind_int64)
    PRACTICE_SQLITE_SYMBOL(bind_double)
    PRACTICE_SQLITE_SYMBOL(bind_text)
    PRACTICE_SQLITE_SYMBOL(bind_blob)
    PRACTICE_SQLITE_SYMBOL(bind_zeroblob)
    PRACTICE_SQLITE_SYMBOL(column_count)
    PRACTICE_SQLITE_SYMBOL(column_name)
    PRACTICE_SQLITE_SYMBOL(column_type)
    PRACTICE_SQLITE_SYMBOL(column_int64)
    PRACTICE_SQLITE_SYMBOL(column_double)
    PRACTICE_SQLITE_SYMBOL(column_text)
    PRACTICE_SQLITE_SYMBOL(column_blob)
    PRACTICE_SQLITE_SYMBOL(column_bytes)
#undef PRACTICE_SQLITE_SYMBOL
    return NULL;
}
#endif
