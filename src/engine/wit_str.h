// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wit_host.h's strings to and from C++, for the files that hand them to the Rust side or read
// them from it. Both borrow: the caller keeps the bytes alive for as long as the other side reads.
#pragma once

#include <string_view>

#include "engine/wit_host.h"

namespace wasinn {

inline wasinn_wit_str wit_str(std::string_view s) { return {.data = s.data(), .len = s.size()}; }
inline std::string_view view(wasinn_wit_str s) { return s.len ? std::string_view(s.data, s.len) : std::string_view(); }

}  // namespace wasinn
