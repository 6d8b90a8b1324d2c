#ifndef PRACTICE_CSTBIMAGE_SHIM_H
#define PRACTICE_CSTBIMAGE_SHIM_H
// Debian's libstb-dev: stb_image decodes JPEG, PNG, GIF and BMP covers for the terminal.
#include <stb/stb_image.h>
#endif
