// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_TOML_H
#define PRACTICE_TOML_H
// toml++ (C++) behind a small C interface: a TOML document in, the same document as JSON out,
// so that the rest of the program reads it with its one JSON reader. Only PracticeAudio calls it.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Where and why a document is not TOML: line and column from 1 (0 when unknown).
typedef struct {
    char message[256];
    int line;
    int column;
} practice_toml_error;

/// The document `text` (`length` bytes of UTF-8) as one JSON object (malloc'd, NUL-terminated;
/// free it with `practice_toml_free`); dates and times become strings. NULL with `error` filled
/// when the text is not TOML.
char *practice_toml_to_json(const char *text, size_t length, practice_toml_error *error);

void practice_toml_free(char *json);

/// Where a value is written in a document: from its first character to just after its last
/// (lines and columns from 1), so that a program can change that one value and keep the rest of
/// what a person wrote (comments, order, spacing) as it is.
typedef struct {
    int begin_line, begin_column, end_line, end_column;
} practice_toml_region;

/// The region of the value at `key` (dotted: "library.folders"). 1: found; 0: no such value;
/// -1: the text is not TOML.
int practice_toml_value_region(const char *text, size_t length, const char *key, practice_toml_region *out);

#ifdef __cplusplus
}
#endif
#endif
