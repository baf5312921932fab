// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/name_check.h"

#include <fmt/format.h>

namespace wasinn {

namespace {
// Returns the offset of the first byte that breaks UTF-8, or npos.
size_t invalid_utf8_at(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Reject overlong forms, surrogates and values past U+10FFFF.
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return i;
    }
    i += n;
  }
  return std::string_view::npos;
}
}  // namespace

Status check_model_name(std::string_view name) {
  if (name.empty()) return make_error(Errc::invalid_argument, "model name is empty");
  if (auto nul = name.find('\0'); nul != std::string_view::npos) {
    return make_error(Errc::invalid_argument, fmt::format("model name contains a NUL byte at offset {}", nul));
  }
  if (auto bad = invalid_utf8_at(name); bad != std::string_view::npos) {
    return make_error(Errc::invalid_argument, fmt::format("model name is not valid UTF-8 (byte {})", bad));
  }
  return {};
}

}  // namespace wasinn
