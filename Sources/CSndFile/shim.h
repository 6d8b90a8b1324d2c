// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSNDFILE_SHIM_H
#define PRACTICE_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
