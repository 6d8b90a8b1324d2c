// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef PRACTICE_CFFMPEG_SHIM_H
#define PRACTICE_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/vorbis_parser.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/dict.h>
#include <libavutil/log.h>
#include <dlfcn.h>
#include <stddef.h>

/// The FFmpeg calls we use (demuxing and decoding one audio stream), resolved at run time from
/// the libraries Debian 12 ships (FFmpeg 5.1: libavformat.so.59, libavcodec.so.59, libavutil.so.57).
typedef struct {
    int (*open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
    int (*find_stream_info)(AVFormatContext *, AVDictionary **);
    void (*close_input)(AVFormatContext **);
    int (*read_frame)(AVFormatContext *, AVPacket *);
    int (*seek_frame)(AVFormatContext *, int, int64_t, int);
    const AVCodec *(*find_decoder)(enum AVCodecID);
    AVCodecContext *(*alloc_context)(const AVCodec *);
    int (*parameters_to_context)(AVCodecContext *, const AVCodecParameters *);
    int (*open_codec)(AVCodecContext *, const AVCodec *, AVDictionary **);
    int (*send_packet)(AVCodecContext *, const AVPacket *);
    int (*receive_frame)(AVCodecContext *, AVFrame *);
    void (*flush_buffers)(AVCodecContext *);
    void (*free_context)(AVCodecContext **);
    const char *(*codec_name)(enum AVCodecID);
    AVPacket *(*packet_alloc)(void);
    void (*packet_free)(AVPacket **);
    void (*packet_unref)(AVPacket *);
    AVFrame *(*frame_alloc)(void);
    void (*frame_free)(AVFrame **);
    void (*frame_unref)(AVFrame *);
    int (*strerror)(int, char *, size_t);
    AVDictionaryEntry *(*dict_get)(const AVDictionary *, const char *, const AVDictionaryEntry *, int);
    void (*log_set_level)(int);
    AVVorbisParseContext *(*vorbis_parse_init)(const uint8_t *, int);
    int (*vorbis_parse_frame)(AVVorbisParseContext *, const uint8_t *, int);
    void (*vorbis_parse_free)(AVVorbisParseContext **);
    int (*frame_duration)(AVCodecParameters *, int);
    /* Encoding and muxing (render to .m4a). */
    const AVCodec *(*find_encoder)(enum AVCodecID);
    int (*send_frame)(AVCodecContext *, const AVFrame *);
    int (*receive_packet)(AVCodecContext *, AVPacket *);
    int (*parameters_from_context)(AVCodecParameters *, const AVCodecContext *);
    int (*alloc_output_context)(AVFormatContext **, const AVOutputFormat *, const char *, const char *);
    AVStream *(*new_stream)(AVFormatContext *, const AVCodec *);
    void (*free_context_format)(AVFormatContext *);
    int (*write_header)(AVFormatContext *, AVDictionary **);
    int (*write_frame)(AVFormatContext *, AVPacket *);
    int (*write_trailer)(AVFormatContext *);
    int (*avio_open)(AVIOContext **, const char *, int);
    int (*avio_closep)(AVIOContext **);
    void (*packet_rescale_ts)(AVPacket *, AVRational, AVRational);
    int (*frame_get_buffer)(AVFrame *, int);
    int (*frame_make_writable)(AVFrame *);
    void (*channel_layout_default)(AVChannelLayout *, int);
    int (*dict_set)(AVDictionary **, const char *, const char *, int);
    void (*dict_free)(AVDictionary **);
} practice_ffmpeg_api;

/// Opens FFmpeg's libraries and fills `api`; returns NULL, or what went wrong (dlerror's text).
static inline const char *practice_ffmpeg_load(practice_ffmpeg_api *api) {
    void *util = dlopen("libavutil.so.57", RTLD_NOW | RTLD_LOCAL);
    if (util == NULL) return dlerror();
    void *codec = dlopen("libavcodec.so.59", RTLD_NOW | RTLD_LOCAL);
    if (codec == NULL) return dlerror();
    void *format = dlopen("libavformat.so.59", RTLD_NOW | RTLD_LOCAL);
    if (format == NULL) return dlerror();
#define PRACTICE_FFMPEG_SYMBOL(library, file, field, name) \
    if ((*(void **)&api->field = dlsym(library, name)) == NULL) return file " has no " name;
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", open_input, "avformat_open_input")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", find_stream_info, "avformat_find_stream_info")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", close_input, "avformat_close_input")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", read_frame, "av_read_frame")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", seek_frame, "av_seek_frame")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", find_decoder, "avcodec_find_decoder")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", alloc_context, "avcodec_alloc_context3")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", parameters_to_context, "avcodec_parameters_to_context")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", open_codec, "avcodec_open2")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", send_packet, "avcodec_send_packet")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", receive_frame, "avcodec_receive_frame")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", flush_buffers, "avcodec_flush_buffers")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", free_context, "avcodec_free_context")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", codec_name, "avcodec_get_name")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", packet_alloc, "av_packet_alloc")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", vorbis_parse_init, "av_vorbis_parse_init")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", vorbis_parse_frame, "av_vorbis_parse_frame")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", vorbis_parse_free, "av_vorbis_parse_free")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", frame_duration, "av_get_audio_frame_duration2")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", find_encoder, "avcodec_find_encoder")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", send_frame, "avcodec_send_frame")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", receive_packet, "avcodec_receive_packet")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", parameters_from_context, "avcodec_parameters_from_context")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", packet_rescale_ts, "av_packet_rescale_ts")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", alloc_output_context, "avformat_alloc_output_context2")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", new_stream, "avformat_new_stream")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", free_context_format, "avformat_free_context")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", write_header, "avformat_write_header")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", write_frame, "av_interleaved_write_frame")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", write_trailer, "av_write_trailer")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", avio_open, "avio_open")
    PRACTICE_FFMPEG_SYMBOL(format, "libavformat.so.59", avio_closep, "avio_closep")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", frame_get_buffer, "av_frame_get_buffer")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", frame_make_writable, "av_frame_make_writable")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", channel_layout_default, "av_channel_layout_default")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", dict_set, "av_dict_set")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", dict_free, "av_dict_free")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", packet_free, "av_packet_free")
    PRACTICE_FFMPEG_SYMBOL(codec, "libavcodec.so.59", packet_unref, "av_packet_unref")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", frame_alloc, "av_frame_alloc")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", frame_free, "av_frame_free")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", frame_unref, "av_frame_unref")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", strerror, "av_strerror")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", dict_get, "av_dict_get")
    PRACTICE_FFMPEG_SYMBOL(util, "libavutil.so.57", log_set_level, "av_log_set_level")
#undef PRACTICE_FFMPEG_SYMBOL
    return NULL;
}

/// Swift cannot take the address of C macros' values; these are FFmpeg's.
static inline int practice_averror_eof(void) { return AVERROR_EOF; }
static inline int practice_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t practice_av_nopts(void) { return AV_NOPTS_VALUE; }
#endif
