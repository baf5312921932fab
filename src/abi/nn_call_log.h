// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one log line of a refused wasi-nn call, the same for every guest ABI: a warning, except
// for the outcomes that end every token stream or busy retries, and calls their caller
// cancelled (debug).
#pragma once

#include <string_view>

#include "core/error.h"

namespace wasinn {

// module: "wasi_ephemeral_nn" or "wasi:nn/graph@0.2.0-rc-2024-10-28"; code: the ABI's own word
// or number for the error, as the guest sees it.
void log_nn_refusal(std::string_view module, std::string_view function, const Error& error, std::string_view code,
                    bool cancelled = false);

}  // namespace wasinn
