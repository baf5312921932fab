// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "ogg.h"

#include <ogg/ogg.h>
#include <opusfile.h>
#include <vorbis/vorbisfile.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <type_traits>
#include <vector>

namespace wasinn::whisper {
namespace {

constexpr uint32_t kMaxChannels = 8;  // Vorbis's and Opus's standard layouts; more is no speech upload
constexpr long kMinRate = 1000, kMaxRate = 384000;
constexpr size_t kMaxStreams = 16;  // logical streams open at once: a page of each is cheap to send

sdk::Error bad(const std::string& what) { return sdk::invalid("input 0: the Ogg file " + what); }

struct Sync {
  ogg_sync_state s{};
  Sync() { ogg_sync_init(&s); }
  ~Sync() { ogg_sync_clear(&s); }
};

const char* codec_name(const ogg_page& first) {
  const auto starts = [&](const char* magic, size_t n) {
    return static_cast<size_t>(first.body_len) >= n && std::memcmp(first.body, magic, n) == 0;
  };
  if (starts("\x01vorbis", 7)) return "vorbis";
  if (starts("OpusHead", 8)) return "opus";
  if (starts("\x7f"
             "FLAC",
             5))
    return "Ogg FLAC";
  if (starts("Speex   ", 8)) return "Speex";
  if (starts("\x80theora", 7)) return "Theora video";
  if (starts("fishead", 7)) return "an Ogg Skeleton stream first";
  return "no codec this backend knows";
}

// --- the decoding backends: one ma_data_source over an open libvorbisfile or libopusfile file ---

// The request's bytes as libvorbisfile's stream (seekable, so it finds the length and the links).
struct Memory {
  std::span<const uint8_t> bytes;
  size_t at = 0;
};
size_t mem_read(void* out, size_t size, size_t count, void* p) {
  auto* m = static_cast<Memory*>(p);
  if (size == 0) return 0;
  const size_t n = std::min(count, (m->bytes.size() - m->at) / size);
  std::memcpy(out, m->bytes.data() + m->at, n * size);
  m->at += n * size;
  return n;
}
int mem_seek(void* p, ogg_int64_t offset, int whence) {
  auto* m = static_cast<Memory*>(p);
  const int64_t base = whence == SEEK_CUR   ? static_cast<int64_t>(m->at)
                       : whence == SEEK_END ? static_cast<int64_t>(m->bytes.size())
                                            : 0;
  if (offset > INT64_MAX - base) return -1;
  const int64_t to = base + offset;
  if (to < 0 || to > static_cast<int64_t>(m->bytes.size())) return -1;
  m->at = static_cast<size_t>(to);
  return 0;
}
long mem_tell(void* p) { return static_cast<long>(static_cast<Memory*>(p)->at); }

std::string vorbis_error(int code) {
  switch (code) {
    case OV_ENOTVORBIS: return "holds no Vorbis stream";
    case OV_EBADHEADER: return "has a malformed Vorbis header";
    case OV_EVERSION: return "is of a Vorbis version libvorbis does not decode";
    case OV_HOLE: return "has a hole: pages of it are missing or damaged";
    case OV_EBADLINK: return "has a malformed link (chained stream)";
    case OV_ENOSEEK: return "cannot be sought in";
    default: return "cannot be decoded (libvorbisfile error " + std::to_string(code) + ")";
  }
}

std::string opus_error(int code) {
  switch (code) {
    case OP_ENOTFORMAT: return "holds no Opus stream";
    case OP_EBADHEADER: return "has a malformed Opus header";
    case OP_EVERSION: return "is of an Opus version libopusfile does not decode";
    case OP_HOLE: return "has a hole: pages of it are missing or damaged";
    case OP_EBADLINK: return "has a malformed link (chained stream)";
    case OP_EBADPACKET: return "has a malformed Opus packet";
    case OP_EBADTIMESTAMP: return "has invalid granule positions (timestamps)";
    case OP_EIMPL: return "uses a feature libopusfile does not implement";
    default: return "cannot be decoded (libopusfile error " + std::to_string(code) + ")";
  }
}

// One open file of either codec as a miniaudio data source: `base` first, so miniaudio's pointer
// to it is a pointer to this (a standard-layout struct, no virtual functions).
struct Source {
  ma_data_source_base base;
  OggCodec codec = OggCodec::vorbis;
  OggFailure* failure = nullptr;
  uint32_t channels = 0, rate = 0;
  uint64_t cursor = 0;
  bool failed = false;
  Memory memory;        // Vorbis: libvorbisfile's stream
  OggVorbis_File vf{};  // Vorbis, when vf_open
  bool vf_open = false;
  OggOpusFile* of = nullptr;  // Opus
  ~Source() {
    if (vf_open) ov_clear(&vf);
    if (of) op_free(of);
  }
  void fail(int code) {
    failed = true;
    if (failure && failure->what.empty())
      failure->what = codec == OggCodec::vorbis ? vorbis_error(code) : opus_error(code);
  }
  // Up to `frames` interleaved f32 frames into `out`: how many, 0 at the end, < 0 a library error.
  long read(float* out, uint64_t frames) {
    int link = 0;
    if (codec == OggCodec::opus) {
      const int cap = static_cast<int>(std::min<uint64_t>(frames, 5760) * channels);  // 120 ms at 48 kHz
      const int n = op_read_float(of, out, cap, &link);
      if (n > 0 && static_cast<uint32_t>(op_channel_count(of, link)) != channels) return OP_EBADLINK;
      return n;
    }
    float** pcm = nullptr;
    const long n = ov_read_float(&vf, &pcm, static_cast<int>(std::min<uint64_t>(frames, 4096)), &link);
    if (n <= 0) return n;
    const vorbis_info* vi = ov_info(&vf, link);
    if (!vi || static_cast<uint32_t>(vi->channels) != channels) return OV_EBADLINK;
    for (long i = 0; i < n; ++i)
      for (uint32_t c = 0; c < channels; ++c) out[i * channels + c] = pcm[c][i];
    return n;
  }
  bool seek(uint64_t frame) {
    const auto at = static_cast<ogg_int64_t>(frame);
    return (codec == OggCodec::opus ? op_pcm_seek(of, at) : ov_pcm_seek(&vf, at)) == 0;
  }
  uint64_t length() {
    const ogg_int64_t n = codec == OggCodec::opus ? op_pcm_total(of, -1) : ov_pcm_total(&vf, -1);
    return n > 0 ? static_cast<uint64_t>(n) : 0;
  }
};

static_assert(std::is_standard_layout_v<Source>);
Source* self(ma_data_source* ds) { return reinterpret_cast<Source*>(ds); }

ma_result on_read(ma_data_source* ds, void* out, ma_uint64 frames, ma_uint64* read) {
  Source* s = self(ds);
  ma_uint64 done = 0;
  while (done < frames && !s->failed) {
    const long n = s->read(static_cast<float*>(out) + done * s->channels, frames - done);
    if (n == 0) break;
    if (n < 0) {
      s->fail(static_cast<int>(n));
      break;
    }
    done += static_cast<ma_uint64>(n);
  }
  s->cursor += done;
  if (read) *read = done;
  if (done > 0) return MA_SUCCESS;
  return s->failed ? MA_INVALID_DATA : MA_AT_END;
}
ma_result on_seek(ma_data_source* ds, ma_uint64 frame) {
  Source* s = self(ds);
  if (!s->seek(frame)) return MA_INVALID_OPERATION;
  s->cursor = frame;
  return MA_SUCCESS;
}
ma_result on_format(ma_data_source* ds, ma_format* format, ma_uint32* channels, ma_uint32* rate, ma_channel* map,
                    size_t map_cap) {
  Source* s = self(ds);
  if (format) *format = ma_format_f32;
  if (channels) *channels = s->channels;
  if (rate) *rate = s->rate;
  if (map) ma_channel_map_init_standard(ma_standard_channel_map_vorbis, map, map_cap, s->channels);
  return MA_SUCCESS;
}
ma_result on_cursor(ma_data_source* ds, ma_uint64* cursor) {
  *cursor = self(ds)->cursor;
  return MA_SUCCESS;
}
ma_result on_length(ma_data_source* ds, ma_uint64* length) {
  *length = self(ds)->length();
  return MA_SUCCESS;
}

ma_data_source_vtable source_vtable = {on_read, on_seek, on_format, on_cursor, on_length, nullptr, 0};

// The checks both codecs share, then the source made a miniaudio data source.
ma_result finish_open(Source* s, OggFailure* failure, uint32_t channels, long rate, bool same_links,
                      ma_data_source** out) {
  if (!same_links) {
    failure->what = "chains links whose channel count or sample rate change; send one stream";
  } else if (channels == 0 || channels > kMaxChannels) {
    failure->what =
        "says " + std::to_string(channels) + " channels; 1 to " + std::to_string(kMaxChannels) + " are taken";
  } else if (rate < kMinRate || rate > kMaxRate) {
    failure->what = "says " + std::to_string(rate) + " Hz; " + std::to_string(kMinRate) + " to " +
                    std::to_string(kMaxRate) + " Hz are taken";
  } else {
    s->channels = channels;
    s->rate = static_cast<uint32_t>(rate);
    s->failure = failure;
    ma_data_source_config config = ma_data_source_config_init();
    config.vtable = &source_vtable;
    if (ma_data_source_init(&config, &s->base) == MA_SUCCESS) {
      *out = &s->base;
      return MA_SUCCESS;
    }
    failure->what = "cannot be decoded (miniaudio's data source)";
  }
  delete s;
  return MA_INVALID_DATA;
}

ma_result vorbis_init_memory(void* user, const void* data, size_t size, const ma_decoding_backend_config*,
                             const ma_allocation_callbacks*, ma_data_source** out) {
  auto* failure = static_cast<OggFailure*>(user);
  auto* s = new Source;
  s->codec = OggCodec::vorbis;
  s->memory.bytes = {static_cast<const uint8_t*>(data), size};
  const ov_callbacks io{mem_read, mem_seek, nullptr, mem_tell};
  // On failure ov_open_callbacks clears what it made itself (libvorbisfile 1.3.7): no ov_clear then.
  const int rc = ov_open_callbacks(&s->memory, &s->vf, nullptr, 0, io);
  if (rc != 0) {
    failure->what = vorbis_error(rc);
    delete s;
    return MA_INVALID_DATA;
  }
  s->vf_open = true;
  const vorbis_info* first = ov_info(&s->vf, 0);
  bool same = first != nullptr;
  for (long i = 1; same && i < ov_streams(&s->vf); ++i) {
    const vorbis_info* vi = ov_info(&s->vf, static_cast<int>(i));
    same = vi && vi->channels == first->channels && vi->rate == first->rate;
  }
  return finish_open(s, failure, first ? static_cast<uint32_t>(std::max(first->channels, 0)) : 0,
                     first ? first->rate : 0, same, out);
}

ma_result opus_init_memory(void* user, const void* data, size_t size, const ma_decoding_backend_config*,
                           const ma_allocation_callbacks*, ma_data_source** out) {
  auto* failure = static_cast<OggFailure*>(user);
  int rc = 0;
  OggOpusFile* of = op_open_memory(static_cast<const unsigned char*>(data), size, &rc);
  if (!of) {
    failure->what = opus_error(rc);
    return MA_INVALID_DATA;
  }
  auto* s = new Source;
  s->codec = OggCodec::opus;
  s->of = of;
  const int channels = op_channel_count(of, 0);
  bool same = true;
  for (int i = 1; same && i < op_link_count(of); ++i) same = op_channel_count(of, i) == channels;
  return finish_open(s, failure, static_cast<uint32_t>(std::max(channels, 0)), 48000, same, out);  // Opus is 48 kHz
}

// onInit (miniaudio's generic reader) is never used: both open from memory.
ma_result no_stream_init(void*, ma_read_proc, ma_seek_proc, ma_tell_proc, void*, const ma_decoding_backend_config*,
                         const ma_allocation_callbacks*, ma_data_source**) {
  return MA_NOT_IMPLEMENTED;
}
void uninit(void*, ma_data_source* ds, const ma_allocation_callbacks*) {
  Source* s = self(ds);
  ma_data_source_uninit(&s->base);
  delete s;
}

ma_decoding_backend_vtable vorbis_vtable = {no_stream_init, nullptr, nullptr, vorbis_init_memory, uninit};
ma_decoding_backend_vtable opus_vtable = {no_stream_init, nullptr, nullptr, opus_init_memory, uninit};

}  // namespace

sdk::Error check_ogg(std::span<const uint8_t> file, OggCodec& codec) {
  Sync sync;
  std::set<long> open, ended;
  const char* name = nullptr;
  size_t fed = 0;
  for (ogg_page page;;) {
    const int r = ogg_sync_pageout(&sync.s, &page);
    if (r < 0) {
      return bad("is damaged near byte " + std::to_string(fed) +
                 ": a page's checksum or framing is wrong; send the file as it was recorded");
    }
    if (r == 1) {
      const long serial = ogg_page_serialno(&page);
      if (!name) name = codec_name(page);
      if (ogg_page_bos(&page)) {
        if (open.size() >= kMaxStreams || !open.insert(serial).second)
          return bad("starts too many logical streams, or one twice");
      } else if (!open.count(serial)) {
        return bad("is damaged: a page belongs to no stream that began" +
                   std::string(ended.count(serial) ? " (its stream had ended)" : ""));
      }
      if (ogg_page_eos(&page)) {
        open.erase(serial);
        if (ended.size() < kMaxStreams) ended.insert(serial);
      }
      continue;
    }
    if (fed == file.size()) break;
    const size_t n = std::min<size_t>(file.size() - fed, 65536);
    char* buffer = ogg_sync_buffer(&sync.s, static_cast<long>(n));
    if (!buffer) return {WASINN_RUNTIME_ERROR, "input 0: libogg could not allocate its page buffer"};
    std::memcpy(buffer, file.data() + fed, n);
    ogg_sync_wrote(&sync.s, static_cast<long>(n));
    fed += n;
  }
  if (sync.s.fill > sync.s.returned)
    return bad("is truncated: its last page is cut off " + std::to_string(sync.s.fill - sync.s.returned) +
               " bytes in; send the whole file");
  if (!name) return bad("holds no page");
  if (!open.empty())
    return bad("is truncated: it ends without its last page (no end-of-stream flag); send the whole file");
  if (std::strcmp(name, "vorbis") == 0) return codec = OggCodec::vorbis, sdk::Error{};
  if (std::strcmp(name, "opus") == 0) return codec = OggCodec::opus, sdk::Error{};
  return bad("holds " + std::string(name) + ", which this backend does not decode; send Ogg Vorbis or Ogg Opus");
}

ma_decoding_backend_vtable* ogg_backend(OggCodec codec) {
  return codec == OggCodec::vorbis ? &vorbis_vtable : &opus_vtable;
}

}  // namespace wasinn::whisper
