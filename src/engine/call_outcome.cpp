// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "engine/call_outcome.h"

#include <fmt/format.h>

namespace wasinn {

std::string timeout_words(uint64_t timeout_ms, std::string_view timeout_option) {
  return fmt::format("the guest ran longer than {} ({} ms) and was stopped", timeout_option, timeout_ms);
}

std::string describe_trap(const wasm_trap_t* trap, uint64_t timeout_ms, std::string_view timeout_option) {
  wasmtime_trap_code_t code;
  if (timeout_ms > 0 && wasmtime_trap_code(trap, &code) && code == WASMTIME_TRAP_CODE_INTERRUPT) {
    return fmt::format("{}\n{}", timeout_words(timeout_ms, timeout_option), message_of(trap));
  }
  return message_of(trap);
}

std::optional<RunOutcome> call_outcome(ErrorPtr err, wasm_trap_t* trap, uint64_t timeout_ms,
                                       std::string_view timeout_option) {
  if (err) {
    int status = 0;
    if (wasmtime_error_exit_status(err.get(), &status)) return RunOutcome{status, false, {}, {}};
    std::string msg = message_of(err.get());
    // WASI preview1 cannot carry exit codes of 126 and above; say so in one line.
    if (const auto at = msg.find("invalid exit status"); at != std::string::npos) {
      msg = msg.substr(at, msg.find('\n', at) - at);
      return RunOutcome{kInvalidExitStatusExit, false, msg, {}};
    }
    return RunOutcome{kHostFailureExit, false, msg, {}};
  }
  if (trap) {
    TrapPtr t(trap);
    return RunOutcome{kTrapExit, true, describe_trap(t.get(), timeout_ms, timeout_option), {}};
  }
  return std::nullopt;
}

}  // namespace wasinn
