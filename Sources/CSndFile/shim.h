#ifndef PRACTICE_CSNDFILE_SHIM_H
#define PRACTICE_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
