#ifndef PRACTICE_CCHAFA_SHIM_H
#define PRACTICE_CCHAFA_SHIM_H
#include <chafa.h>
#endif
