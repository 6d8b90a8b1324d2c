// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_TAGLIB_H
#define PRACTICE_TAGLIB_H
// TagLib (C++) behind a small C interface (its own C API has no pictures), built into a shared
// object of its own, libpractice-taglib.so, that PracticeLibrary opens with dlopen when it first
// reads tags (CTagLib's shim.h): the program itself does not link TagLib, which is half of the
// symbols the loader binds at each start.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A picture embedded in a file: its bytes (malloc'd; `practice_picture_free` frees them) and
/// its MIME type as the tag gives it ("image/jpeg"; empty when the tag says none).
typedef struct {
    unsigned char *data;
    size_t size;
    char mime[64];
} practice_picture;

/// The file's front cover (else its first picture): ID3v2 APIC in MP3, WAV and AIFF, FLAC
/// pictures, METADATA_BLOCK_PICTURE in Ogg Vorbis and Opus, `covr` in MP4. 1: found; 0: the file
/// has none; -1: TagLib cannot read the file.
int practice_taglib_front_cover(const char *path, practice_picture *out);

void practice_picture_free(practice_picture *picture);

/// A file's tags as the library shows them. Strings are UTF-8, malloc'd (NULL when the tag has
/// none; `practice_tags_free` frees them); numbers are 0 when absent.
typedef struct {
    char *title, *artist, *album, *album_artist, *genre;
    int year, track, disc;
    /// The audio's length as the file's headers give it (milliseconds; 0 when unknown).
    int length_ms;
} practice_tags;

/// The tags of `path`, and its front cover into `cover` when that is not NULL (empty when it
/// has none). 1: read; 0: not a kind of file we play; -1: TagLib cannot read it.
int practice_taglib_tags(const char *path, practice_tags *out, practice_picture *cover);

void practice_tags_free(practice_tags *tags);

#ifdef __cplusplus
}
#endif
#endif
