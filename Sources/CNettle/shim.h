// SPDX-License-Identifier: GPL-3.0-or-later
#include <nettle/sha2.h>
