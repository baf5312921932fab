// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "audio_input.h"

#include <algorithm>
#include <cstring>

namespace wasinn::llamacpp {
namespace {

constexpr char kSend[] = "; send a well-formed WAV or MP3 file";
constexpr uint16_t kExtensibleTag = 0xFFFE;

uint8_t at(std::string_view b, size_t i) { return static_cast<uint8_t>(b[i]); }
uint32_t le32(std::string_view b, size_t i) {
  return at(b, i) | at(b, i + 1) << 8 | at(b, i + 2) << 16 | static_cast<uint32_t>(at(b, i + 3)) << 24;
}
uint16_t le16(std::string_view b, size_t i) { return static_cast<uint16_t>(at(b, i) | at(b, i + 1) << 8); }
bool starts(std::string_view b, size_t i, std::string_view magic) {
  return b.size() >= i + magic.size() && b.substr(i, magic.size()) == magic;
}
void put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// Where an ID3v2 tag at the start ends (its 10 bytes, a syncsafe size, a footer of 10 more); 0
// without one.
uint64_t id3_end(std::string_view b) {
  if (!starts(b, 0, "ID3") || b.size() < 10) return 0;
  return 10 +
         (uint64_t{at(b, 6) & 0x7Fu} << 21 | uint64_t{at(b, 7) & 0x7Fu} << 14 | uint64_t{at(b, 8) & 0x7Fu} << 7 |
          (at(b, 9) & 0x7Fu)) +
         ((at(b, 5) & 0x10) ? 10 : 0);
}

sdk::Error too_long(std::string_view what, const std::string& how_long) {
  return sdk::invalid(std::string(what) + " is " + how_long + "; at most " + std::to_string(kMaxAudioSeconds) +
                      " s of audio is taken");
}

// A chunk id as text for a message: printable ASCII, '?' for any other byte.
std::string printable_id(std::string_view b, size_t i) {
  std::string id(b.substr(i, 4));
  for (char& c : id) c = (c >= 32 && c < 127) ? c : '?';
  return id;
}

sdk::Error check_wav(std::string_view bytes, std::string_view what, std::string& file) {
  const auto bad = [&](const std::string& how) {
    return sdk::invalid(std::string(what) + " is a WAV file" + how + kSend);
  };
  const uint64_t riff_end = uint64_t{le32(bytes, 4)} + 8;
  if (riff_end > bytes.size())
    return bad(" cut short: its header says " + std::to_string(riff_end) + " bytes, " + std::to_string(bytes.size()) +
               " were given");
  const std::string_view riff = bytes.substr(0, static_cast<size_t>(riff_end));  // what follows is not the file's
  std::string_view fmt, data;
  bool found_data = false;
  for (uint64_t i = 12; i < riff.size() && !found_data;) {
    if (riff.size() - i < 8) return bad(" that ends inside a chunk header");
    const uint32_t size = le32(riff, static_cast<size_t>(i) + 4);
    const uint64_t body = i + 8;
    if (size > riff.size() - body)
      return bad(" whose '" + printable_id(riff, static_cast<size_t>(i)) + "' chunk claims " + std::to_string(size) +
                 " bytes, past the file's end");
    const std::string_view chunk = riff.substr(static_cast<size_t>(body), size);
    if (starts(riff, static_cast<size_t>(i), "fmt ") && fmt.empty()) {
      if (size < 16) return bad(" whose 'fmt ' chunk is " + std::to_string(size) + " bytes; a PCM format takes 16");
      if (le16(chunk, 0) == kExtensibleTag && size < 40)
        return bad(" whose 'fmt ' chunk says WAVE_FORMAT_EXTENSIBLE in " + std::to_string(size) +
                   " bytes; that takes 40");
      fmt = chunk;
    } else if (starts(riff, static_cast<size_t>(i), "data")) {
      if (fmt.empty()) return bad(" with its 'data' chunk before any 'fmt ' chunk");
      data = chunk;
      found_data = true;
    }
    i = body + size + (size & 1);
  }
  if (!found_data) return bad(std::string(" with no '") + (fmt.empty() ? "fmt " : "data") + "' chunk");
  // miniaudio decodes an extensible file by its sub-format GUID's first two bytes: the tag it means.
  const uint16_t tag = le16(fmt, 0) == kExtensibleTag ? le16(fmt, 24) : le16(fmt, 0);
  const uint16_t channels = le16(fmt, 2), block_align = le16(fmt, 12), bits = le16(fmt, 14);
  const uint32_t rate = le32(fmt, 4);
  // PCM, IEEE float, A-law, mu-law: a frame is block_align bytes, so the length is the data's.
  if (tag != 1 && tag != 3 && tag != 6 && tag != 7)
    return sdk::invalid(std::string(what) + " is a WAV file of format tag " + std::to_string(tag) +
                        (tag == 2 || tag == 0x11 ? " (ADPCM)" : "") +
                        ", which this backend does not take: send PCM, IEEE float, A-law or mu-law samples");
  if (channels == 0 || rate == 0 || block_align == 0 || bits == 0)
    return bad(" whose 'fmt ' chunk says " + std::to_string(channels) + " channels, " + std::to_string(rate) + " Hz, " +
               std::to_string(bits) + " bits a sample");
  const uint64_t frames = data.size() / block_align;
  if (frames == 0) return bad(" that holds no samples");
  if (frames > kMaxAudioSeconds * rate)
    return too_long(what, std::to_string(frames / rate) + " s long (" + std::to_string(frames) + " frames at " +
                              std::to_string(rate) + " Hz)");
  file.clear();
  file.reserve(44 + data.size());
  file += "RIFF";
  put32(file, static_cast<uint32_t>(36 + data.size()));  // data came from a RIFF extent: it fits
  file += "WAVEfmt ";
  put32(file, 16);
  file += fmt.substr(0, 16);
  file[20] = static_cast<char>(tag & 0xFF);
  file[21] = static_cast<char>(tag >> 8);
  file += "data";
  put32(file, static_cast<uint32_t>(data.size()));
  file += data;
  return {};
}

// STREAMINFO, the first metadata block: the sample rate (20 bits) and total samples (36 bits)
// from which miniaudio sizes what it reads.
sdk::Error check_flac(std::string_view bytes, size_t from, std::string_view what) {
  const std::string head = std::string(what) + " is a FLAC file";
  if (bytes.size() < from + 42 || (at(bytes, from + 4) & 0x7F) != 0)
    return sdk::invalid(head + " without its STREAMINFO block" + kSend);
  const size_t s = from + 8;
  const uint32_t rate = uint32_t{at(bytes, s + 10)} << 12 | uint32_t{at(bytes, s + 11)} << 4 | at(bytes, s + 12) >> 4;
  const uint64_t total = uint64_t{at(bytes, s + 13) & 0x0Fu} << 32 | uint64_t{at(bytes, s + 14)} << 24 |
                         uint64_t{at(bytes, s + 15)} << 16 | uint64_t{at(bytes, s + 16)} << 8 | at(bytes, s + 17);
  if (rate == 0) return sdk::invalid(head + " whose STREAMINFO says 0 Hz" + kSend);
  if (total == 0) return sdk::invalid(head + " that does not say how many samples it holds" + kSend);
  if (total > kMaxAudioSeconds * rate)
    return too_long(what, std::to_string(total / rate) + " s long, as its STREAMINFO says");
  return {};
}

// miniaudio's MP3 decoder (minimp3) counts the samples of each frame it finds, each at a valid
// frame header, and resamples at the first frame's rate. Summing the samples of every position
// that holds a valid header, over the lowest rate among them, bounds what it can decode to.
sdk::Error check_mp3(std::string_view bytes, std::string_view what) {
  static const uint32_t kHz[3] = {44100, 48000, 32000};
  uint64_t samples = 0;
  uint32_t lowest = 0;
  for (size_t i = 0; i + 4 <= bytes.size(); ++i) {
    const uint8_t b1 = at(bytes, i + 1), b2 = at(bytes, i + 2);
    const bool valid = at(bytes, i) == 0xFF && ((b1 & 0xF0) == 0xF0 || (b1 & 0xFE) == 0xE2) && ((b1 >> 1) & 3) != 0 &&
                       (b2 >> 4) != 15 && ((b2 >> 2) & 3) != 3;
    if (!valid) continue;
    const uint32_t hz = kHz[(b2 >> 2) & 3] >> !(b1 & 0x8) >> !(b1 & 0x10);
    samples += (b1 & 6) == 6 ? 384 : ((b1 & 14) == 2 ? 576 : 1152);
    lowest = lowest ? std::min(lowest, hz) : hz;
  }
  if (samples == 0)
    return sdk::invalid(std::string(what) + " is no MP3 file: it holds no MPEG audio frame header" + kSend);
  if (samples > kMaxAudioSeconds * lowest)
    return too_long(what, "an MP3 file whose frames could decode to " + std::to_string(samples / lowest) + " s");
  return {};
}

}  // namespace

AudioContainer sniff_audio(std::string_view b) {
  if (b.size() < 12) return AudioContainer::none;  // as is_audio_file
  if (starts(b, 0, "RIFF") && starts(b, 8, "WAVE")) return AudioContainer::wav;
  if (starts(b, 0, "fLaC")) return AudioContainer::flac;
  if (starts(b, 0, "ID3")) {
    const uint64_t end = id3_end(b);
    return end < b.size() && starts(b, static_cast<size_t>(end), "fLaC") ? AudioContainer::flac : AudioContainer::mp3;
  }
  if (at(b, 0) == 0xFF && (at(b, 1) & 0xE0) == 0xE0) return AudioContainer::mp3;
  return AudioContainer::none;
}

const char* container_name(AudioContainer c) {
  return c == AudioContainer::wav ? "WAV" : c == AudioContainer::mp3 ? "MP3" : c == AudioContainer::flac ? "FLAC" : "";
}

sdk::Error check_audio(std::string_view bytes, std::string_view what, std::string& file) {
  file.clear();
  switch (sniff_audio(bytes)) {
    case AudioContainer::wav: return check_wav(bytes, what, file);
    case AudioContainer::flac: {
      const uint64_t from = id3_end(bytes);
      if (sdk::Error e = check_flac(bytes, static_cast<size_t>(from), what)) return e;
      break;
    }
    case AudioContainer::mp3:
      if (id3_end(bytes) >= bytes.size())
        return sdk::invalid(std::string(what) + " is an MP3 file whose ID3 tag runs past its end: it is cut short" +
                            kSend);
      if (sdk::Error e = check_mp3(bytes, what)) return e;
      break;
    case AudioContainer::none: return sdk::invalid(std::string(what) + " is not a WAV, MP3 or FLAC file" + kSend);
  }
  file.assign(bytes);
  return {};
}

}  // namespace wasinn::llamacpp
