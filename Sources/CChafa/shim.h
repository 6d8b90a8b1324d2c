// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CCHAFA_SHIM_H
#define PRACTICE_CCHAFA_SHIM_H
#include <stb/stb_image.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

// What we use of libchafa's interface, declared here rather than through <chafa.h>: that header
// needs GLib's include folders, which only pkg-config knows, and pkg-config would also put
// libchafa and GLib on the link line, mapping them into every command. The values are those of
// chafa 1.12's headers (Debian 12), whose enums only ever grow at the end; the tests of the
// terminal database and of the drawing check them.
typedef struct ChafaSymbolMap ChafaSymbolMap;
typedef struct ChafaCanvasConfig ChafaCanvasConfig;
typedef struct ChafaCanvas ChafaCanvas;
typedef struct ChafaTermDb ChafaTermDb;
typedef struct ChafaTermInfo ChafaTermInfo;
/// GLib's GString: the text and its length.
typedef struct { char *str; size_t len; size_t allocated_len; } GString;
enum { CHAFA_PIXEL_MODE_SYMBOLS = 0, CHAFA_PIXEL_MODE_SIXELS = 1, CHAFA_PIXEL_MODE_KITTY = 2 };
enum { CHAFA_CANVAS_MODE_TRUECOLOR = 0, CHAFA_CANVAS_MODE_INDEXED_240 = 2, CHAFA_CANVAS_MODE_INDEXED_16 = 3 };
enum { CHAFA_SYMBOL_TAG_SPACE = 1 << 0, CHAFA_SYMBOL_TAG_BLOCK = 1 << 3 };
enum { CHAFA_DITHER_MODE_NONE = 0 };
enum { CHAFA_PIXEL_RGBA8_UNASSOCIATED = 4 };
enum { CHAFA_TERM_SEQ_BEGIN_SIXELS = 40, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1 = 43 };

/// The libchafa and stb_image calls we use, resolved at run time (GLib's g_string_free through
/// libchafa, which links it).
#define PRACTICE_CHAFA_CALLS(X) \
    X(ChafaSymbolMap *, symbol_map_new, (void), "chafa_symbol_map_new") \
    X(void, symbol_map_unref, (ChafaSymbolMap *), "chafa_symbol_map_unref") \
    X(void, symbol_map_add_by_tags, (ChafaSymbolMap *, int), "chafa_symbol_map_add_by_tags") \
    X(ChafaCanvasConfig *, config_new, (void), "chafa_canvas_config_new") \
    X(void, config_unref, (ChafaCanvasConfig *), "chafa_canvas_config_unref") \
    X(void, config_set_pixel_mode, (ChafaCanvasConfig *, int), "chafa_canvas_config_set_pixel_mode") \
    X(void, config_set_canvas_mode, (ChafaCanvasConfig *, int), "chafa_canvas_config_set_canvas_mode") \
    X(void, config_set_geometry, (ChafaCanvasConfig *, int, int), "chafa_canvas_config_set_geometry") \
    X(void, config_set_cell_geometry, (ChafaCanvasConfig *, int, int), "chafa_canvas_config_set_cell_geometry") \
    X(void, config_set_symbol_map, (ChafaCanvasConfig *, const ChafaSymbolMap *), "chafa_canvas_config_set_symbol_map") \
    X(void, config_set_dither_mode, (ChafaCanvasConfig *, int), "chafa_canvas_config_set_dither_mode") \
    X(void, calc_canvas_geometry, (int, int, int *, int *, float, int, int), "chafa_calc_canvas_geometry") \
    X(ChafaCanvas *, canvas_new, (const ChafaCanvasConfig *), "chafa_canvas_new") \
    X(void, canvas_unref, (ChafaCanvas *), "chafa_canvas_unref") \
    X(void, canvas_draw_all_pixels, (ChafaCanvas *, int, const uint8_t *, int, int, int), "chafa_canvas_draw_all_pixels") \
    X(GString *, canvas_print, (ChafaCanvas *, ChafaTermInfo *), "chafa_canvas_print") \
    X(ChafaTermDb *, term_db_get_default, (void), "chafa_term_db_get_default") \
    X(ChafaTermInfo *, term_db_detect, (ChafaTermDb *, char **), "chafa_term_db_detect") \
    X(void, term_info_unref, (ChafaTermInfo *), "chafa_term_info_unref") \
    X(int, term_info_have_seq, (const ChafaTermInfo *, int), "chafa_term_info_have_seq") \
    X(char *, string_free, (GString *, int), "g_string_free")

#define PRACTICE_STB_CALLS(X) \
    X(int, info_from_memory, (const stbi_uc *, int, int *, int *, int *), "stbi_info_from_memory") \
    X(stbi_uc *, load_from_memory, (const stbi_uc *, int, int *, int *, int *, int), "stbi_load_from_memory") \
    X(const char *, failure_reason, (void), "stbi_failure_reason") \
    X(void, image_free, (void *), "stbi_image_free")

#define PRACTICE_PICTURE_FIELD(ret, name, args, symbol) ret (*name) args;
typedef struct {
    PRACTICE_CHAFA_CALLS(PRACTICE_PICTURE_FIELD)
} practice_chafa_api;
typedef struct {
    PRACTICE_STB_CALLS(PRACTICE_PICTURE_FIELD)
} practice_stb_api;
#undef PRACTICE_PICTURE_FIELD

#define PRACTICE_PICTURE_SYMBOL(ret, name, args, symbol) \
    if ((*(void **)&api->name = dlsym(library, symbol)) == NULL) return "no " symbol;

/// Opens libchafa and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_chafa_load(practice_chafa_api *api) {
    void *library = dlopen("libchafa.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
    PRACTICE_CHAFA_CALLS(PRACTICE_PICTURE_SYMBOL)
    return NULL;
}

/// Opens stb_image (Debian's libstb) and fills `api`; returns NULL, or what went wrong.
static inline const char *practice_stb_load(practice_stb_api *api) {
    void *library = dlopen("libstb.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
    PRACTICE_STB_CALLS(PRACTICE_PICTURE_SYMBOL)
    return NULL;
}
#undef PRACTICE_PICTURE_SYMBOL
#endif
