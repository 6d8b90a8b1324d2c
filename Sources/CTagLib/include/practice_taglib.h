#ifndef PRACTICE_TAGLIB_H
#define PRACTICE_TAGLIB_H
// TagLib (C++) behind a small C interface: its own C API has no pictures. Only PracticeAudio
// calls it.
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

#ifdef __cplusplus
}
#endif
#endif
