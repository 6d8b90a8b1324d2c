// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CNETTLE_SHIM_H
#define PRACTICE_CNETTLE_SHIM_H
// Nettle's SHA-256, called directly: the library is linked in from libnettle.a.
#include <nettle/sha2.h>
#endif
