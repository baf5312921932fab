// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A WAV file from outside, as miniaudio gets to see it (the whisper plugin's input, the llama.cpp
// plugin's audio for libmtmd). miniaudio's chunk reader trusts the sizes it reads (a short "fmt "
// chunk makes it read on into the next chunk and seek backwards for ever), so the plugins walk the
// RIFF chunks here, every size checked against the bytes given, and hand miniaudio a file written
// here: RIFF/WAVE, a 16-byte "fmt ", "data". Pure.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::audio_common {

// The two chunks decoding needs; both point into the bytes that were walked.
struct WavChunks {
  std::span<const uint8_t> fmt;   // the "fmt " chunk's body, at least 16 bytes (40 if extensible)
  std::span<const uint8_t> data;  // the first "data" chunk's body, not empty
};

// Walks the RIFF/WAVE file `bytes` (what follows its RIFF size is not the file's) up to its first
// "data" chunk. INVALID_ARGUMENT "`what` is ... WAV file ...`send`" for: a RIFF size past the bytes
// (truncated), a chunk header or body past the end, a "fmt " shorter than 16 bytes (or than
// WAVE_FORMAT_EXTENSIBLE's 40), no "fmt " before "data", no "data", an empty "data". Each step
// moves at least 8 bytes on: at most bytes.size() / 8 chunks.
sdk::Error find_wav_chunks(std::span<const uint8_t> bytes, std::string_view what, std::string_view send,
                           WavChunks& out);

// The format fields of `chunks.fmt` (WAVE_FORMAT_EXTENSIBLE's sub-format tag as the format tag,
// as miniaudio reads it).
struct WavFormat {
  uint16_t tag = 0;
  uint16_t channels = 0;
  uint32_t rate = 0;
  uint16_t block_align = 0;
  uint16_t bits = 0;
};
WavFormat wav_format(const WavChunks& chunks);

// Sets `out` (std::string or std::vector<uint8_t>) to the file miniaudio decodes: RIFF/WAVE, "fmt "
// with the 16 bytes of `chunks.fmt`'s PCM fields (the tag wav_format says), then "data" with a copy
// of `chunks.data`: 44 bytes more than the data.
template <class Bytes>
void canonical_wav(const WavChunks& chunks, Bytes& out);

}  // namespace wasinn::audio_common
