// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Checks on guest-supplied model names shared by every guest ABI: no NUL bytes, valid UTF-8.
#pragma once

#include <string_view>

#include "core/error.h"

namespace wasinn {

Status check_model_name(std::string_view name);

}  // namespace wasinn
