// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSOXR_SHIM_H
#define PRACTICE_CSOXR_SHIM_H
#include <soxr.h>
#endif
