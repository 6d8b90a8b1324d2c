#ifndef PRACTICE_CAUBIO_SHIM_H
#define PRACTICE_CAUBIO_SHIM_H
#include <aubio/aubio.h>
#include <dlfcn.h>
#include <stddef.h>

/// The aubio calls we use (beat tracking and onsets' novelty), resolved from libaubio.so.5 at run time.
typedef struct {
    aubio_tempo_t *(*new_tempo)(const char_t *, uint_t, uint_t, uint_t);
    void (*tempo_do)(aubio_tempo_t *, const fvec_t *, fvec_t *);
    smpl_t (*tempo_get_last_s)(aubio_tempo_t *);
    smpl_t (*tempo_get_bpm)(aubio_tempo_t *);
    void (*del_tempo)(aubio_tempo_t *);
    fvec_t *(*new_fvec)(uint_t);
    void (*del_fvec)(fvec_t *);
} practice_aubio_api;

/// Opens aubio and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_aubio_load(practice_aubio_api *api) {
    void *library = dlopen("libaubio.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_AUBIO_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libaubio.so.5 has no " name;
    PRACTICE_AUBIO_SYMBOL(new_tempo, "new_aubio_tempo")
    PRACTICE_AUBIO_SYMBOL(tempo_do, "aubio_tempo_do")
    PRACTICE_AUBIO_SYMBOL(tempo_get_last_s, "aubio_tempo_get_last_s")
    PRACTICE_AUBIO_SYMBOL(tempo_get_bpm, "aubio_tempo_get_bpm")
    PRACTICE_AUBIO_SYMBOL(del_tempo, "del_aubio_tempo")
    PRACTICE_AUBIO_SYMBOL(new_fvec, "new_fvec")
    PRACTICE_AUBIO_SYMBOL(del_fvec, "del_fvec")
#undef PRACTICE_AUBIO_SYMBOL
    return NULL;
}
#endif
