// SPDX-License-Identifier: GPL-3.0-or-later
#include "practice_taglib.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <taglib/tpropertymap.h>
#include <string>
#include <taglib/aifffile.h>
#include <taglib/asffile.h>
#include <taglib/attachedpictureframe.h>
#include <taglib/flacfile.h>
#include <taglib/flacpicture.h>
#include <taglib/id3v2tag.h>
#include <taglib/mp4file.h>
#include <taglib/mp4coverart.h>
#include <taglib/mpegfile.h>
#include <taglib/opusfile.h>
#include <taglib/tdebuglistener.h>
#include <taglib/vorbisfile.h>
#include <taglib/wavfile.h>
#include <taglib/xiphcomment.h>

namespace {

// TagLib prints its complaints about odd files to stderr; ours say what matters in one line.
class Silent : public TagLib::DebugListener {
public:
    void printMessage(const TagLib::String &) override {}
};
Silent silent;

bool take(const TagLib::ByteVector &data, const std::string &mime, practice_picture *out) {
    if (data.isEmpty()) return false;
    out->data = static_cast<unsigned char *>(std::malloc(data.size()));
    if (out->data == nullptr) return false;
    std::memcpy(out->data, data.data(), data.size());
    out->size = data.size();
    std::strncpy(out->mime, mime.c_str(), sizeof out->mime - 1);
    out->mime[sizeof out->mime - 1] = 0;
    return true;
}

bool fromID3v2(TagLib::ID3v2::Tag *tag, practice_picture *out) {
    if (tag == nullptr) return false;
    const TagLib::ID3v2::FrameList &frames = tag->frameListMap()["APIC"];
    TagLib::ID3v2::AttachedPictureFrame *first = nullptr;
    for (auto *f : frames) {
        auto *p = dynamic_cast<TagLib::ID3v2::AttachedPictureFrame *>(f);
        if (p == nullptr) continue;
        if (p->type() == TagLib::ID3v2::AttachedPictureFrame::FrontCover) return take(p->picture(), p->mimeType().to8Bit(true), out);
        if (first == nullptr) first = p;
    }
    return first != nullptr && take(first->picture(), first->mimeType().to8Bit(true), out);
}

bool fromPictures(const TagLib::List<TagLib::FLAC::Picture *> &pictures, practice_picture *out) {
    TagLib::FLAC::Picture *first = nullptr;
    for (auto *p : pictures) {
        if (p->type() == TagLib::FLAC::Picture::FrontCover) return take(p->data(), p->mimeType().to8Bit(true), out);
        if (first == nullptr) first = p;
    }
    return first != nullptr && take(first->data(), first->mimeType().to8Bit(true), out);
}

bool fromXiph(TagLib::Ogg::XiphComment *comment, practice_picture *out) {
    return comment != nullptr && fromPictures(comment->pictureList(), out);
}

std::string extension(const char *path) {
    std::string p(path);
    auto slash = p.find_last_of('/');
    auto dot = p.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = p.substr(dot + 1);
    for (auto &c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

// The front cover of a file TagLib has opened, whatever its kind.
bool coverOf(TagLib::File *file, practice_picture *out) {
    if (auto *f = dynamic_cast<TagLib::MPEG::File *>(file)) return fromID3v2(f->ID3v2Tag(), out);
    if (auto *f = dynamic_cast<TagLib::FLAC::File *>(file)) return fromPictures(f->pictureList(), out) || fromXiph(f->xiphComment(), out);
    if (auto *f = dynamic_cast<TagLib::Ogg::Vorbis::File *>(file)) return fromXiph(f->tag(), out);
    if (auto *f = dynamic_cast<TagLib::Ogg::Opus::File *>(file)) return fromXiph(f->tag(), out);
    if (auto *f = dynamic_cast<TagLib::RIFF::WAV::File *>(file)) return f->hasID3v2Tag() && fromID3v2(f->ID3v2Tag(), out);
    if (auto *f = dynamic_cast<TagLib::RIFF::AIFF::File *>(file)) return f->hasID3v2Tag() && fromID3v2(f->tag(), out);
    if (auto *f = dynamic_cast<TagLib::MP4::File *>(file)) {
        TagLib::MP4::Tag *tag = f->tag();
        if (tag == nullptr || !tag->contains("covr")) return false;
        TagLib::MP4::CoverArtList covers = tag->item("covr").toCoverArtList();
        if (covers.isEmpty()) return false;
        const TagLib::MP4::CoverArt &c = covers.front();
        const char *mime = c.format() == TagLib::MP4::CoverArt::PNG ? "image/png" : c.format() == TagLib::MP4::CoverArt::JPEG ? "image/jpeg" : "";
        return take(c.data(), mime, out);
    }
    return false;
}

// The file opened as the kind its extension names (TagLib's own choice, as for FileRef); null
// for a kind TagLib does not read (Matroska and WebM: FFmpeg's metadata). WAV, AIFF, FLAC, Ogg
// Vorbis, Opus, MP3, MP4/M4A/MOV and ASF (WMA).
TagLib::File *open(const char *path, bool properties) {
    const std::string e = extension(path);
    const auto style = TagLib::AudioProperties::Fast;
    if (e == "mp3" || e == "mp2") return new TagLib::MPEG::File(path, properties, style);
    if (e == "flac") return new TagLib::FLAC::File(path, properties, style);
    if (e == "ogg" || e == "oga") return new TagLib::Ogg::Vorbis::File(path, properties, style);
    if (e == "opus") return new TagLib::Ogg::Opus::File(path, properties, style);
    if (e == "wav" || e == "wave") return new TagLib::RIFF::WAV::File(path, properties, style);
    if (e == "aif" || e == "aiff" || e == "aifc") return new TagLib::RIFF::AIFF::File(path, properties, style);
    if (e == "m4a" || e == "mp4" || e == "m4b" || e == "m4v" || e == "mov") return new TagLib::MP4::File(path, properties, style);
    if (e == "wma" || e == "asf") return new TagLib::ASF::File(path, properties, style);
    return nullptr;
}

void quiet() {
    static bool once = (TagLib::setDebugListener(&silent), true);
    (void)once;
}

char *copy(const TagLib::String &s) {
    if (s.isEmpty()) return nullptr;
    return strdup(s.to8Bit(true).c_str());
}

// The first number in "3/12" (TRACKNUMBER, DISCNUMBER); 0 for none.
int leadingNumber(const TagLib::String &s) {
    const std::string t = s.to8Bit(true);
    int n = 0;
    size_t k = 0;
    while (k < t.size() && t[k] == ' ') k++;
    for (; k < t.size() && t[k] >= '0' && t[k] <= '9' && n < 100000; k++) n = n * 10 + (t[k] - '0');
    return n;
}

TagLib::String first(const TagLib::PropertyMap &map, const char *key) {
    auto it = map.find(key);
    return it == map.end() || it->second.isEmpty() ? TagLib::String() : it->second.front();
}

}  // namespace

extern "C" int practice_taglib_front_cover(const char *path, practice_picture *out) {
    quiet();
    std::memset(out, 0, sizeof *out);
    try {
        std::unique_ptr<TagLib::File> f(open(path, false));
        if (!f) return 0;
        if (!f->isValid()) return -1;
        return coverOf(f.get(), out) ? 1 : 0;
    } catch (...) {
        practice_picture_free(out);
        return -1;
    }
}

extern "C" int practice_taglib_tags(const char *path, practice_tags *out, practice_picture *cover) {
    quiet();
    std::memset(out, 0, sizeof *out);
    if (cover != nullptr) std::memset(cover, 0, sizeof *cover);
    try {
        std::unique_ptr<TagLib::File> f(open(path, true));
        if (!f) return 0;
        if (!f->isValid()) return -1;
        // The property map, which TagLib fills from whichever tags the file has (ID3v2 and RIFF
        // INFO in a WAV, Xiph comments, MP4 atoms): one way for every format.
        const TagLib::PropertyMap map = f->properties();
        out->title = copy(first(map, "TITLE"));
        out->artist = copy(first(map, "ARTIST"));
        out->album = copy(first(map, "ALBUM"));
        out->album_artist = copy(first(map, "ALBUMARTIST"));
        out->genre = copy(first(map, "GENRE"));
        out->year = leadingNumber(first(map, "DATE"));
        out->track = leadingNumber(first(map, "TRACKNUMBER"));
        out->disc = leadingNumber(first(map, "DISCNUMBER"));
        if (TagLib::AudioProperties *a = f->audioProperties()) out->length_ms = a->lengthInMilliseconds();
        if (cover != nullptr) coverOf(f.get(), cover);
        return 1;
    } catch (...) {
        practice_tags_free(out);
        if (cover != nullptr) practice_picture_free(cover);
        return -1;
    }
}

extern "C" void practice_tags_free(practice_tags *tags) {
    for (char **s : {&tags->title, &tags->artist, &tags->album, &tags->album_artist, &tags->genre}) {
        std::free(*s);
        *s = nullptr;
    }
}

extern "C" void practice_picture_free(practice_picture *picture) {
    std::free(picture->data);
    picture->data = nullptr;
    picture->size = 0;
}
