// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CSQLITE_SHIM_H
#define PRACTICE_CSQLITE_SHIM_H
// SQLite's API, called directly: the library is linked in from libsqlite3.a.
#include <sqlite3.h>
#endif
