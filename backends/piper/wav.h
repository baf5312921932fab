// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The model's float audio as the guest gets it, byte for byte what WasmEdge's Piper plugin
// writes: each sample clipped to [-1, 1], times 32767, truncated to int16 (piper's Python does
// the same with normalize_audio off); a 44-byte RIFF/WAVE header (PCM, mono, 16-bit) before
// them for "wav", nothing for "raw". Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "audio_common/wav_header.h"

namespace wasinn::piper {

// Appends `samples` as little-endian int16 to `out`.
void append_pcm16(std::span<const float> samples, std::vector<uint8_t>& out);

using audio_common::wav_header;

}  // namespace wasinn::piper
