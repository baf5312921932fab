// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "wav_chunks.h"

#include <cstring>
#include <string>
#include <vector>

namespace wasinn::audio_common {
namespace {

constexpr size_t kPcmFmt = 16;         // format tag, channels, rate, bytes a second, block align, bits
constexpr size_t kExtensibleFmt = 40;  // WAVEFORMATEXTENSIBLE: 18 + cbSize 22
constexpr uint16_t kExtensibleTag = 0xFFFE;

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// A chunk id as text for a message: printable ASCII, '?' for any other byte.
std::string printable_id(const uint8_t* p) {
  std::string id(reinterpret_cast<const char*>(p), 4);
  for (char& c : id) c = (c >= 32 && c < 127) ? c : '?';
  return id;
}

template <class Bytes>
void put32(Bytes& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<typename Bytes::value_type>(v >> (8 * i)));
}
template <class Bytes>
void put_id(Bytes& out, const char* id) {
  out.insert(out.end(), id, id + 4);
}

}  // namespace

sdk::Error find_wav_chunks(std::span<const uint8_t> bytes, std::string_view what, std::string_view send,
                           WavChunks& out) {
  out = {};
  const auto bad = [&](const std::string& how) {
    return sdk::invalid(std::string(what) + " is a" + how + std::string(send));
  };
  const uint64_t riff_end = uint64_t{le32(bytes.data() + 4)} + 8;  // a caller's sniff saw 12 bytes
  if (riff_end > bytes.size())
    return bad(" truncated WAV file: its header says " + std::to_string(riff_end) + " bytes, " +
               std::to_string(bytes.size()) + " were given");
  const std::span<const uint8_t> riff = bytes.first(static_cast<size_t>(riff_end));
  bool fmt = false;
  for (uint64_t at = 12; at < riff.size();) {
    if (riff.size() - at < 8) return bad(" WAV file that ends inside a chunk header");
    const uint8_t* head = riff.data() + at;
    const uint32_t size = le32(head + 4);
    const uint64_t body = at + 8;
    if (size > riff.size() - body)  // a pad byte after an odd size may be left out at the end
      return bad(" WAV file whose '" + printable_id(head) + "' chunk claims " + std::to_string(size) +
                 " bytes, past the file's end");
    const std::span<const uint8_t> chunk = riff.subspan(static_cast<size_t>(body), size);
    if (std::memcmp(head, "fmt ", 4) == 0 && !fmt) {
      if (size < kPcmFmt)
        return bad(" WAV file whose 'fmt ' chunk is " + std::to_string(size) + " bytes; a PCM format takes 16");
      if (le16(chunk.data()) == kExtensibleTag && size < kExtensibleFmt)
        return bad(" WAV file whose 'fmt ' chunk says WAVE_FORMAT_EXTENSIBLE in " + std::to_string(size) +
                   " bytes; that takes 40");
      out.fmt = chunk;
      fmt = true;
    } else if (std::memcmp(head, "data", 4) == 0) {
      if (!fmt) return bad(" WAV file with its 'data' chunk before any 'fmt ' chunk");
      if (size == 0) return bad(" WAV file that holds no samples");
      out.data = chunk;
      return {};
    }
    at = body + size + (size & 1);
  }
  return bad(std::string(" WAV file with no '") + (fmt ? "data" : "fmt ") + "' chunk");
}

WavFormat wav_format(const WavChunks& chunks) {
  const uint8_t* f = chunks.fmt.data();
  WavFormat w;
  // miniaudio decodes an extensible file by its sub-format GUID's first two bytes: the tag it means.
  w.tag = le16(f) == kExtensibleTag ? le16(f + 24) : le16(f);
  w.channels = le16(f + 2);
  w.rate = le32(f + 4);
  w.block_align = le16(f + 12);
  w.bits = le16(f + 14);
  return w;
}

template <class Bytes>
void canonical_wav(const WavChunks& chunks, Bytes& out) {
  out.clear();
  out.reserve(44 + chunks.data.size());
  put_id(out, "RIFF");
  put32(out, static_cast<uint32_t>(36 + chunks.data.size()));  // data came from a RIFF extent: fits
  put_id(out, "WAVE");
  put_id(out, "fmt ");
  put32(out, kPcmFmt);
  const size_t tag_at = out.size();
  out.insert(out.end(), chunks.fmt.begin(), chunks.fmt.begin() + kPcmFmt);
  const uint16_t tag = wav_format(chunks).tag;
  out[tag_at] = static_cast<typename Bytes::value_type>(tag & 0xFF);
  out[tag_at + 1] = static_cast<typename Bytes::value_type>(tag >> 8);
  put_id(out, "data");
  put32(out, static_cast<uint32_t>(chunks.data.size()));
  out.insert(out.end(), chunks.data.begin(), chunks.data.end());
}

template void canonical_wav(const WavChunks&, std::string&);
template void canonical_wav(const WavChunks&, std::vector<uint8_t>&);

}  // namespace wasinn::audio_common
