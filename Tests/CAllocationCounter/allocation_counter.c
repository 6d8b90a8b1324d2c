// SPDX-License-Identifier: GPL-3.0-or-later
#include "allocation_counter.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#if defined(__has_feature)
#  if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#    define SANITIZED 1
#  endif
#endif

static _Atomic unsigned long watched = 0;
static _Atomic long calls = 0;

bool allocation_counter_available(void) {
#ifdef SANITIZED
    return false;
#else
    return true;
#endif
}

void allocation_counter_watch(unsigned long thread) {
    atomic_store(&calls, 0);
    atomic_store(&watched, thread);
}

long allocation_counter_stop(void) {
    atomic_store(&watched, 0);
    return atomic_load(&calls);
}

#ifndef SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static inline void note(void) {
    unsigned long w = atomic_load_explicit(&watched, memory_order_relaxed);
    if (w != 0 && w == (unsigned long)pthread_self()) atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

void *malloc(size_t n) { note(); return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { note(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { note(); return __libc_realloc(p, n); }
void free(void *p) { if (p) note(); __libc_free(p); }
void *memalign(size_t alignment, size_t n) { note(); return __libc_memalign(alignment, n); }
void *aligned_alloc(size_t alignment, size_t n) { note(); return __libc_memalign(alignment, n); }
int posix_memalign(void **out, size_t alignment, size_t n) {
    note();
    void *p = __libc_memalign(alignment, n);
    if (!p) return 12;   // ENOMEM
    *out = p;
    return 0;
}
#endif
