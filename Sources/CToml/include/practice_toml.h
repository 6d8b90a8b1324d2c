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

#ifdef __cplusplus
}
#endif
#endif
