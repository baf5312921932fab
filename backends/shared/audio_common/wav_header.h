// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The 44-byte RIFF/WAVE header of a mono 16-bit PCM file: what the speech plugins (piper, and
// llamacpp's text to speech) put before their samples. Pure.
#pragma once

#include <cstdint>
#include <vector>

namespace wasinn::audio_common {

// The header of a mono 16-bit PCM WAV holding `samples` samples at `sample_rate`.
std::vector<uint8_t> wav_header(int32_t sample_rate, uint32_t samples);

// Appends `v` as little-endian int16.
inline void put_pcm16(int16_t v, std::vector<uint8_t>& out) {
  out.push_back(static_cast<uint8_t>(static_cast<uint16_t>(v)));
  out.push_back(static_cast<uint8_t>(static_cast<uint16_t>(v) >> 8));
}

}  // namespace wasinn::audio_common
