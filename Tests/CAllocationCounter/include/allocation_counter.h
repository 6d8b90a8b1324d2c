// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_ALLOCATION_COUNTER_H
#define PRACTICE_ALLOCATION_COUNTER_H
#include <stdbool.h>

// Counts calls to malloc, calloc, realloc, free and the aligned allocators made by one thread,
// for tests that prove the audio thread does none. The functions below replace the C library's
// in the test executable (ELF symbol interposition) and forward to glibc's own.

/// Whether counting works in this build (not under ThreadSanitizer, which owns malloc itself).
bool allocation_counter_available(void);
/// Counts the calls made by the thread `thread` (a pthread_t) from now on, from zero.
void allocation_counter_watch(unsigned long thread);
/// Stops counting; returns how many calls the watched thread made.
long allocation_counter_stop(void);
#endif
