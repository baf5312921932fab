// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: URL text a plugin or the host shows. Header-only.
#pragma once

#include <string>
#include <string_view>

namespace wasinn::sdk {

// `text` with the credentials of any URL in it ("user:password@" after "://") replaced by
// "***@": every URL wasinn prints or logs goes through this, so a password never reaches a log.
inline std::string redact_credentials(std::string_view text) {
  std::string out(text);
  for (size_t at = out.find("://"); at != std::string::npos; at = out.find("://", at + 3)) {
    const size_t start = at + 3;
    const size_t end = out.find_first_of("/?# \t'\"", start);
    const size_t user_end = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (user_end != std::string::npos && user_end >= start) out.replace(start, user_end - start, "***");
  }
  return out;
}

}  // namespace wasinn::sdk
