// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/error.h"

namespace wasinn {

std::string_view errc_name(Errc code) {
  switch (code) {
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http_status, grpc_code) \
  case Errc::name:                                                                     \
    return #name;
#include "core/errc.def"
#undef WASINN_ERRC
  }
  return "unknown";  // not an Errc at all (a cast of a stray number)
}

std::optional<Errc> errc_from_name(std::string_view name) {
  for (size_t i = 0; i < kErrcCount; ++i) {
    if (errc_name(static_cast<Errc>(i)) == name) return static_cast<Errc>(i);
  }
  return std::nullopt;
}

}  // namespace wasinn
