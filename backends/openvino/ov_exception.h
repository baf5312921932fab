// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// OpenVINO's exceptions -> sdk::Error. OpenVINO's C++ API reports every failure by throwing, so
// each call into it sits in a try block that ends here; the SDK's guard only catches what is left
// (bad_alloc from the standard library).
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::openvino {

using sdk::Error;

// OpenVINO's what() is a stack of "Exception from src/...:N:" and "Check '...' failed at ...:"
// frames around the one line that says what went wrong; this returns that line (or lines,
// joined with "; ") so a guest sees "Incorrect weights in bin file!", not source paths.
std::string ov_reason(const std::exception& e);

// "<what>: <reason>" with the given status.
Error from_exception(wasinn_status status, std::string_view what, const std::exception& e);

}  // namespace wasinn::openvino
