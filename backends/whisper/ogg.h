// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Ogg (Vorbis or Opus) audio, which miniaudio alone does not decode: libsndfile (Debian's, with
// libvorbis and libopus) decodes it from memory, and miniaudio's data converter mixes and
// resamples it to 16 kHz as its own decoder does for the other formats (audio.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::whisper {

// `file` as f32 at 16 kHz in `channels` (1 or 2) channels, `max_frames` at most; the file's own
// channel count in `native_channels`. INVALID_ARGUMENT, saying what, for a file libsndfile cannot
// open, no samples, a length promised but not held (more than 0.1 s short), or too long.
sdk::Error decode_ogg(std::span<const uint8_t> file, uint32_t channels, uint64_t max_frames, std::vector<float>& out,
                      uint32_t* native_channels);

}  // namespace wasinn::whisper
