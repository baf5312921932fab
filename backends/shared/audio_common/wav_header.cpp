// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "wav_header.h"

#include <string_view>

namespace wasinn::audio_common {
namespace {

void put(std::vector<uint8_t>& out, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put(std::vector<uint8_t>& out, std::string_view tag) { out.insert(out.end(), tag.begin(), tag.end()); }

}  // namespace

std::vector<uint8_t> wav_header(int32_t sample_rate, uint32_t samples) {
  const uint32_t data = samples * 2;
  std::vector<uint8_t> h;
  put(h, "RIFF");
  put(h, 36 + data, 4);
  put(h, "WAVE");
  put(h, "fmt ");
  put(h, 16, 4);  // the fmt chunk's size
  put(h, 1, 2);   // PCM
  put(h, 1, 2);   // mono
  put(h, static_cast<uint32_t>(sample_rate), 4);
  put(h, static_cast<uint32_t>(sample_rate) * 2, 4);  // bytes per second
  put(h, 2, 2);                                       // bytes per frame
  put(h, 16, 2);                                      // bits per sample
  put(h, "data");
  put(h, data, 4);
  return h;
}

}  // namespace wasinn::audio_common
