// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "abi/nn_call_log.h"

#include "base/log.h"

namespace wasinn {

void log_nn_refusal(std::string_view module, std::string_view function, const Error& error, std::string_view code,
                    bool cancelled) {
  const Errc e = error.code;
  const bool quiet = cancelled || e == Errc::end_of_sequence || e == Errc::context_full || e == Errc::busy;
  const auto level = quiet ? spdlog::level::debug : spdlog::level::warn;
  logger().log(level, "{}::{} -> {} ({}): {}", module, function, errc_name(e), code, error.detail);
}

}  // namespace wasinn
