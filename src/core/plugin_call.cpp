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

Errc errc_from_plugin_status(int status) {
  switch (status) {
    case WASINN_INVALID_ARGUMENT: return Errc::invalid_argument;
    case WASINN_INVALID_ENCODING: return Errc::invalid_encoding;
    case WASINN_MISSING_MEMORY: return Errc::missing_memory;
    case WASINN_BUSY: return Errc::busy;
    case WASINN_RUNTIME_ERROR: return Errc::runtime_error;
    case WASINN_UNSUPPORTED_OPERATION: return Errc::unsupported_operation;
    case WASINN_TOO_LARGE: return Errc::too_large;
    case WASINN_NOT_FOUND: return Errc::not_found;
    case WASINN_TIMEOUT: return Errc::timeout;
    case WASINN_SECURITY: return Errc::security;
    case WASINN_END_OF_SEQUENCE: return Errc::end_of_sequence;
    case WASINN_CONTEXT_FULL: return Errc::context_full;
    case WASINN_PROMPT_TOO_LONG: return Errc::prompt_too_long;
    case WASINN_MODEL_NOT_FOUND: return Errc::model_not_found;
    default: return Errc::unknown;
  }
}

Error PluginDiag::to_error(int status, std::string_view what) const {
  if (detail_.empty()) {
    return make_error(errc_from_plugin_status(status), fmt::format("{} failed with backend status {}", what, status));
  }
  return make_error(errc_from_plugin_status(status), detail_);
}

}  // namespace wasinn
