// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A guest's WAV file as miniaudio gets to see it. miniaudio's chunk reader trusts the sizes it
// reads (a short "fmt " chunk makes it read on into the next chunk and seek backwards for ever),
// so the plugin walks the RIFF chunks itself, every size checked against the bytes given, and
// hands miniaudio a file it writes: RIFF/WAVE, a 16-byte "fmt ", "data". Pure.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::whisper {

// The two chunks decoding needs; both point into the bytes that were walked.
struct WavChunks {
  std::span<const uint8_t> fmt;   // the "fmt " chunk's body, at least 16 bytes
  std::span<const uint8_t> data;  // the first "data" chunk's body
};

// Walks the chunks of `riff` (a whole RIFF/WAVE file, header included, cut to its RIFF size)
// up to the first "data" chunk. INVALID_ARGUMENT, naming the chunk, for a chunk header or body
// past the end, a "fmt " shorter than 16 bytes (or than WAVE_FORMAT_EXTENSIBLE's 40), or no
// "fmt " before "data". Each step moves at least 8 bytes on: at most riff.size() / 8 chunks.
sdk::Error find_wav_chunks(std::span<const uint8_t> riff, WavChunks& out);

// The file miniaudio decodes: RIFF/WAVE, "fmt " with the 16 bytes of `chunks.fmt`'s PCM fields
// (WAVE_FORMAT_EXTENSIBLE's sub-format tag as the format tag, as miniaudio reads it), then
// "data" with a copy of `chunks.data`: 44 bytes more than the data.
std::vector<uint8_t> canonical_wav(const WavChunks& chunks);

}  // namespace wasinn::whisper
