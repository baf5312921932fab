// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "audio_input.h"

#include "audio_common/wav_chunks.h"

#include <algorithm>
#include <span>

namespace wasinn::llamacpp {
namespace {

constexpr char kSend[] = "; send a well-formed WAV or MP3 file";

uint8_t at(std::string_view b, size_t i) { return static_cast<uint8_t>(b[i]); }
bool starts(std::string_view b, size_t i, std::string_view magic) {
  return b.size() >= i + magic.size() && b.substr(i, magic.size()) == magic;
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

sdk::Error check_wav(std::string_view bytes, std::string_view what, std::string& file) {
  audio_common::WavChunks chunks;
  const std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (sdk::Error e = audio_common::find_wav_chunks(raw, what, kSend, chunks)) return e;
  const audio_common::WavFormat f = audio_common::wav_format(chunks);
  // PCM, IEEE float, A-law, mu-law: a frame is block_align bytes, so the length is the data's.
  if (f.tag != 1 && f.tag != 3 && f.tag != 6 && f.tag != 7)
    return sdk::invalid(std::string(what) + " is a WAV file of format tag " + std::to_string(f.tag) +
                        (f.tag == 2 || f.tag == 0x11 ? " (ADPCM)" : "") +
                        ", which this backend does not take: send PCM, IEEE float, A-law or mu-law samples");
  if (f.channels == 0 || f.rate == 0 || f.block_align == 0 || f.bits == 0)
    return sdk::invalid(std::string(what) + " is a WAV file whose 'fmt ' chunk says " + std::to_string(f.channels) +
                        " channels, " + std::to_string(f.rate) + " Hz, " + std::to_string(f.bits) + " bits a sample" +
                        kSend);
  const uint64_t frames = chunks.data.size() / f.block_align;
  if (frames == 0) return sdk::invalid(std::string(what) + " is a WAV file that holds no samples" + kSend);
  if (frames > kMaxAudioSeconds * f.rate)
    return too_long(what, std::to_string(frames / f.rate) + " s long (" + std::to_string(frames) + " frames at " +
                              std::to_string(f.rate) + " Hz)");
  audio_common::canonical_wav(chunks, file);
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
