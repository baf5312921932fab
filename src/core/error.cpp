// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/error.h"

namespace wasinn {

std::string_view errc_name(Errc code) {
  switch (code) {
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::invalid_encoding: return "invalid_encoding";
    case Errc::missing_memory: return "missing_memory";
    case Errc::busy: return "busy";
    case Errc::runtime_error: return "runtime_error";
    case Errc::unsupported_operation: return "unsupported_operation";
    case Errc::too_large: return "too_large";
    case Errc::not_found: return "not_found";
    case Errc::timeout: return "timeout";
    case Errc::security: return "security";
    case Errc::unknown: return "unknown";
    case Errc::end_of_sequence: return "end_of_sequence";
    case Errc::context_full: return "context_full";
    case Errc::prompt_too_long: return "prompt_too_long";
    case Errc::model_not_found: return "model_not_found";
  }
  return "unknown";
}

}  // namespace wasinn
