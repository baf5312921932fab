// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/plugin_call.h"

#include <fmt/format.h>

namespace wasinn {

PluginDiag::PluginDiag() {
  diag_.host_data = this;
  diag_.set_detail = [](void* self, const char* message, size_t length) {
    static_cast<PluginDiag*>(self)->detail_.assign(message, length);
  };
}

namespace {

// Whether core/errc.def has a row for the status: a switch with no default, so that a status the
// ABI gains without a row fails the build here.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
constexpr bool has_row(wasinn_status status) {
  switch (status) {
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http_status, grpc_code) case plugin_status:
#include "core/errc.def"
#undef WASINN_ERRC
    return true;
    case WASINN_OK: return false;  // not a failure
  }
  return false;
}
#pragma GCC diagnostic pop
static_assert(has_row(WASINN_UNKNOWN) && !has_row(WASINN_OK));

}  // namespace

Errc errc_from_plugin_status(int status) {
  // An int, not a wasinn_status: a plugin may return any number.
  switch (status) {
#define WASINN_ERRC(name, plugin_status, witx_errno, wit_case, http_status, grpc_code) \
  case plugin_status:                                                                  \
    return Errc::name;
#include "core/errc.def"
#undef WASINN_ERRC
    default: return Errc::unknown;  // OK, or a number outside the ABI (a newer or broken plugin's)
  }
}

void trace_plugin_call(std::string_view backend, std::string_view function, int status,
                       std::chrono::steady_clock::duration took) {
  const double ms = std::chrono::duration<double, std::milli>(took).count();
  trace_line("plugin", status == WASINN_OK ? fmt::format("{}.{} -> ok in {:.3f} ms", backend, function, ms)
                                           : fmt::format("{}.{} -> {} ({}) in {:.3f} ms", backend, function,
                                                         errc_name(errc_from_plugin_status(status)), status, ms));
}

Error PluginDiag::to_error(int status, std::string_view what) const {
  if (detail_.empty()) {
    return make_error(errc_from_plugin_status(status), fmt::format("{} failed with backend status {}", what, status));
  }
  return make_error(errc_from_plugin_status(status), detail_);
}

}  // namespace wasinn
