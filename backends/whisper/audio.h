// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A guest's audio: a whole WAV (RIFF) file, 16 kHz, 16-bit PCM, mono or stereo, as WasmEdge's
// whisper plugin takes it. Decoded with miniaudio (whisper.cpp's own audio reader) from a copy
// of its "fmt " and "data" chunks that the plugin checked first (wav_layout.h); every other
// file is refused with what is wrong and what to send instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::whisper {

struct Audio {
  std::vector<float> mono;         // what whisper.cpp hears: the channels' mean
  std::vector<float> left, right;  // stereo input only, for diarize
  uint32_t channels = 0;
  double seconds() const { return static_cast<double>(mono.size()) / 16000.0; }
};

// INVALID_ARGUMENT for: no RIFF/WAVE header, a RIFF size beyond the bytes given (truncated), a
// chunk past the RIFF extent, no "fmt " chunk of 16 bytes or more before "data", a format
// miniaudio cannot decode, a rate other than 16 kHz, samples other than 16-bit, more than
// two channels, or no samples at all.
sdk::Error decode_wav(std::span<const uint8_t> bytes, Audio& out);

}  // namespace wasinn::whisper
