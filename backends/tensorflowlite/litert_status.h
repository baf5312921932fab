// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LiteRT statuses in details: the names of its status codes (libLiteRt.so 2.3.0 does not export
// LiteRtGetStatusString) and the Error for a failed LiteRT call.
#pragma once

#include <string>
#include <string_view>

#include "litert_c_api.h"
#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::tensorflowlite {

using sdk::Error;

// "kLiteRtStatusErrorCompilation (504)".
std::string status_name(LiteRtStatus status);

// Error for a failed LiteRT call: "<what>: LiteRT returned <name>", with `status` as given.
Error litert_error(LiteRtStatus status, std::string_view what, wasinn_status as = WASINN_RUNTIME_ERROR);

}  // namespace wasinn::tensorflowlite
