// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a call into the guest ended, as Wasmtime's CLI reports it: an exit status, a trap (134),
// an exit status WASI cannot carry (128) or a host failure (1). Used by the main thread's entry
// and by every wasi-threads thread alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/wasmtime_ptr.h"
#include "wasinn/host.h"

namespace wasinn {

inline constexpr int kTrapExit = 134;               // a trap, told apart from a host failure
inline constexpr int kHostFailureExit = 1;          // the module cannot be read, compiled or run
inline constexpr int kRefusedByOptionExit = 2;      // an option refuses the program (a usage error)
inline constexpr int kInvalidExitStatusExit = 128;  // an exit status WASI preview1 cannot carry (126+)

// "the guest ran longer than OPTION (N ms) and was stopped": timeout_option is how the caller
// set the limit (OptionNames::timeout).
std::string timeout_words(uint64_t timeout_ms, std::string_view timeout_option);

// A trap's message; an epoch interrupt under a timeout says which limit stopped the guest.
std::string describe_trap(const wasm_trap_t* trap, uint64_t timeout_ms, std::string_view timeout_option);

// nullopt when the call returned; otherwise the guest's outcome. Takes ownership of both.
std::optional<RunOutcome> call_outcome(ErrorPtr err, wasm_trap_t* trap, uint64_t timeout_ms,
                                       std::string_view timeout_option);

}  // namespace wasinn
