// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "base/utf8_pieces.h"

namespace wasinn {

namespace {
// The length of the sequence a lead byte starts, or 0 for a byte that starts none.
size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}
bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
}  // namespace

std::string Utf8Pieces::take(std::string_view bytes) {
  std::string all = std::move(held_);
  held_.clear();
  all.append(bytes);
  // Only the last three bytes can start a sequence still waiting for its end.
  const size_t n = all.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(all[n - back]);
    if (continuation(c)) continue;
    const size_t need = sequence_length(c);
    if (need > back) {
      bool tail_ok = true;  // every byte after the lead a continuation: it may yet complete
      for (size_t i = n - back + 1; i < n; ++i) tail_ok = tail_ok && continuation(static_cast<unsigned char>(all[i]));
      if (tail_ok) {
        held_ = all.substr(n - back);
        all.resize(n - back);
      }
    }
    break;
  }
  return all;
}

std::string Utf8Pieces::finish() {
  std::string rest = std::move(held_);
  held_.clear();
  return rest;
}

}  // namespace wasinn
