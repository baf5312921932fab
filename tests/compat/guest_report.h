// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading what a compatibility guest printed ("key: value" lines, see guest/rust/digits and
// guest/wamr/digits_data.h) and checking it against a known answer.
#pragma once

#include <map>
#include <string>

#include "digits_reference.h"

namespace wasinn_compat {

// "key: value" lines of a guest's stdout; later lines win.
std::map<std::string, std::string> parse_report(const std::string& out);

// Adds a GoogleTest failure for every way the report's "<prefix>predictions", "<prefix>accuracy"
// and "<prefix>logits0" lines differ from the answer (logits to the 6 decimals printed).
void expect_answer(const std::string& out, const DigitsAnswer& answer, const std::string& prefix = "");

}  // namespace wasinn_compat
