#include "practice_taglib.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <taglib/aifffile.h>
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

}  // namespace

extern "C" int practice_taglib_front_cover(const char *path, practice_picture *out) {
    static bool quiet = (TagLib::setDebugListener(&silent), true);
    (void)quiet;
    std::memset(out, 0, sizeof *out);
    const std::string e = extension(path);
    if (e == "mp3" || e == "mp2") {
        TagLib::MPEG::File f(path, false);
        if (!f.isValid()) return -1;
        return fromID3v2(f.ID3v2Tag(), out) ? 1 : 0;
    }
    if (e == "flac") {
        TagLib::FLAC::File f(path, false);
        if (!f.isValid()) return -1;
        return fromPictures(f.pictureList(), out) || fromXiph(f.xiphComment(), out) ? 1 : 0;
    }
    if (e == "ogg" || e == "oga") {
        TagLib::Ogg::Vorbis::File f(path, false);
        if (!f.isValid()) return -1;
        return fromXiph(f.tag(), out) ? 1 : 0;
    }
    if (e == "opus") {
        TagLib::Ogg::Opus::File f(path, false);
        if (!f.isValid()) return -1;
        return fromXiph(f.tag(), out) ? 1 : 0;
    }
    if (e == "wav" || e == "wave") {
        TagLib::RIFF::WAV::File f(path, false);
        if (!f.isValid()) return -1;
        return f.hasID3v2Tag() && fromID3v2(f.ID3v2Tag(), out) ? 1 : 0;
    }
    if (e == "aif" || e == "aiff" || e == "aifc") {
        TagLib::RIFF::AIFF::File f(path, false);
        if (!f.isValid()) return -1;
        return f.hasID3v2Tag() && fromID3v2(f.tag(), out) ? 1 : 0;
    }
    if (e == "m4a" || e == "mp4" || e == "m4b") {
        TagLib::MP4::File f(path, false);
        if (!f.isValid()) return -1;
        TagLib::MP4::Tag *tag = f.tag();
        if (tag == nullptr || !tag->contains("covr")) return 0;
        TagLib::MP4::CoverArtList covers = tag->item("covr").toCoverArtList();
        if (covers.isEmpty()) return 0;
        const TagLib::MP4::CoverArt &c = covers.front();
        const char *mime = c.format() == TagLib::MP4::CoverArt::PNG ? "image/png" : c.format() == TagLib::MP4::CoverArt::JPEG ? "image/jpeg" : "";
        return take(c.data(), mime, out) ? 1 : 0;
    }
    return 0;
}

extern "C" void practice_picture_free(practice_picture *picture) {
    std::free(picture->data);
    picture->data = nullptr;
    picture->size = 0;
}
