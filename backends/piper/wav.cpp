// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "wav.h"

#include <algorithm>
#include <cmath>

namespace wasinn::piper {

void append_pcm16(std::span<const float> samples, std::vector<uint8_t>& out) {
  out.reserve(out.size() + samples.size() * 2);
  for (float s : samples) {
    // NaN would be undefined to convert: a model that makes one gets silence there.
    const float clipped = std::isnan(s) ? 0.0f : std::clamp(s, -1.0f, 1.0f);
    const auto v = static_cast<int16_t>(clipped * 32767.0f);
    audio_common::put_pcm16(v, out);
  }
}

}  // namespace wasinn::piper
