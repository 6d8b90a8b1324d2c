#ifndef PRACTICE_CSOXR_SHIM_H
#define PRACTICE_CSOXR_SHIM_H
#include <soxr.h>
#endif
