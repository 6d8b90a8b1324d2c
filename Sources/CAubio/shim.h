// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CAUBIO_SHIM_H
#define PRACTICE_CAUBIO_SHIM_H
#include <aubio/aubio.h>
#include <dlfcn.h>
#include <stddef.h>

/// The aubio calls we use (a mel spectrum for the onsets' novelty), resolved from libaubio.so.5 at run time.
typedef struct {
    fvec_t *(*new_fvec)(uint_t);
    void (*del_fvec)(fvec_t *);
    fvec_t *(*new_window)(char_t *, uint_t);
    void (*fvec_weighted_copy)(const fvec_t *, const fvec_t *, fvec_t *);
    aubio_fft_t *(*new_fft)(uint_t);
    void (*fft_do_complex)(aubio_fft_t *, const fvec_t *, fvec_t *);
    void (*fft_get_norm)(const fvec_t *, cvec_t *);
    void (*del_fft)(aubio_fft_t *);
    cvec_t *(*new_cvec)(uint_t);
    void (*del_cvec)(cvec_t *);
    aubio_filterbank_t *(*new_filterbank)(uint_t, uint_t);
    uint_t (*filterbank_set_mel_coeffs)(aubio_filterbank_t *, smpl_t, smpl_t, smpl_t);
    uint_t (*filterbank_set_norm)(aubio_filterbank_t *, smpl_t);
    fmat_t *(*filterbank_get_coeffs)(const aubio_filterbank_t *);
    void (*del_filterbank)(aubio_filterbank_t *);
} practice_aubio_api;

/// Opens aubio and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_aubio_load(practice_aubio_api *api) {
    void *library = dlopen("libaubio.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define PRACTICE_AUBIO_SYMBOL(field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return "libaubio.so.5 has no " name;
    PRACTICE_AUBIO_SYMBOL(new_fvec, "new_fvec")
    PRACTICE_AUBIO_SYMBOL(del_fvec, "del_fvec")
    PRACTICE_AUBIO_SYMBOL(new_window, "new_aubio_window")
    PRACTICE_AUBIO_SYMBOL(fvec_weighted_copy, "fvec_weighted_copy")
    PRACTICE_AUBIO_SYMBOL(new_fft, "new_aubio_fft")
    PRACTICE_AUBIO_SYMBOL(fft_do_complex, "aubio_fft_do_complex")
    PRACTICE_AUBIO_SYMBOL(fft_get_norm, "aubio_fft_get_norm")
    PRACTICE_AUBIO_SYMBOL(del_fft, "del_aubio_fft")
    PRACTICE_AUBIO_SYMBOL(new_cvec, "new_cvec")
    PRACTICE_AUBIO_SYMBOL(del_cvec, "del_cvec")
    PRACTICE_AUBIO_SYMBOL(new_filterbank, "new_aubio_filterbank")
    PRACTICE_AUBIO_SYMBOL(filterbank_set_mel_coeffs, "aubio_filterbank_set_mel_coeffs")
    PRACTICE_AUBIO_SYMBOL(filterbank_set_norm, "aubio_filterbank_set_norm")
    PRACTICE_AUBIO_SYMBOL(filterbank_get_coeffs, "aubio_filterbank_get_coeffs")
    PRACTICE_AUBIO_SYMBOL(del_filterbank, "del_aubio_filterbank")
#undef PRACTICE_AUBIO_SYMBOL
    return NULL;
}
#endif
