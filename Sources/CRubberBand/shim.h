// SPDX-License-Identifier: GPL-3.0-or-later
// Rubber Band Library 3 (librubberband-dev): its C API, for the R3 ("finer") stretcher.
#include <rubberband/rubberband-c.h>
