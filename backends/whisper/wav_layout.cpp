// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "wav_layout.h"

#include <cstring>
#include <string>

namespace wasinn::whisper {
namespace {

constexpr size_t kPcmFmt = 16;         // format tag, channels, rate, bytes a second, block align, bits
constexpr size_t kExtensibleFmt = 40;  // WAVEFORMATEXTENSIBLE: 18 + cbSize 22
constexpr uint16_t kExtensibleTag = 0xFFFE;
constexpr char kSend[] = "; send a well-formed WAV, FLAC, MP3 or Ogg file";

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_id(std::vector<uint8_t>& out, const char* id) { out.insert(out.end(), id, id + 4); }

// A chunk id as text for a message: printable ASCII, '?' for any other byte.
std::string printable_id(const uint8_t* p) {
  std::string id(reinterpret_cast<const char*>(p), 4);
  for (char& c : id) c = (c >= 32 && c < 127) ? c : '?';
  return id;
}

sdk::Error bad(const std::string& what) { return sdk::invalid("input 0: the WAV file" + what + kSend); }

}  // namespace

sdk::Error find_wav_chunks(std::span<const uint8_t> riff, WavChunks& out) {
  out = {};
  bool fmt = false;
  for (uint64_t at = 12; at < riff.size();) {
    if (riff.size() - at < 8) return bad(" ends inside a chunk header");
    const uint8_t* head = riff.data() + at;
    const uint32_t size = le32(head + 4);
    const uint64_t body = at + 8;
    if (size > riff.size() - body)  // a pad byte after an odd size may be left out at the end
      return bad("'s '" + printable_id(head) + "' chunk claims " + std::to_string(size) +
                 " bytes, past the file's end");
    const std::span<const uint8_t> chunk = riff.subspan(static_cast<size_t>(body), size);
    if (std::memcmp(head, "fmt ", 4) == 0 && !fmt) {
      if (size < kPcmFmt) return bad("'s 'fmt ' chunk is " + std::to_string(size) + " bytes; a PCM format takes 16");
      if (le16(chunk.data()) == kExtensibleTag && size < kExtensibleFmt)
        return bad("'s 'fmt ' chunk says WAVE_FORMAT_EXTENSIBLE in " + std::to_string(size) + " bytes; that takes 40");
      out.fmt = chunk;
      fmt = true;
    } else if (std::memcmp(head, "data", 4) == 0) {
      if (!fmt) return bad(" has its 'data' chunk before any 'fmt ' chunk");
      out.data = chunk;
      return {};
    }
    at = body + size + (size & 1);
  }
  return bad(std::string(" has no '") + (fmt ? "data" : "fmt ") + "' chunk");
}

std::vector<uint8_t> canonical_wav(const WavChunks& chunks) {
  std::vector<uint8_t> out;
  out.reserve(44 + chunks.data.size());
  put_id(out, "RIFF");
  put32(out, static_cast<uint32_t>(36 + chunks.data.size()));  // data came from a RIFF extent: fits
  put_id(out, "WAVE");
  put_id(out, "fmt ");
  put32(out, kPcmFmt);
  const size_t tag_at = out.size();
  out.insert(out.end(), chunks.fmt.begin(), chunks.fmt.begin() + kPcmFmt);
  // miniaudio decodes an extensible file by its sub-format GUID's first two bytes: the tag it means.
  if (le16(chunks.fmt.data()) == kExtensibleTag) std::memcpy(out.data() + tag_at, chunks.fmt.data() + 24, 2);
  put_id(out, "data");
  put32(out, static_cast<uint32_t>(chunks.data.size()));
  out.insert(out.end(), chunks.data.begin(), chunks.data.end());
  return out;
}

}  // namespace wasinn::whisper
