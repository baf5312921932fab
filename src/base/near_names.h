// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The "did you mean" of every message about an unknown name (options, commands, registered
// models, config keys): one rule for what counts as a typo, so all of them suggest alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wasinn {

// The known name nearest to `given` when it is near enough to be a typo of it: at most one
// edit (insert, delete, replace, or swap two neighbours) per 3 characters, at most 2, ignoring
// case. Ties go to the earliest in `known`; nullopt when none is near or `given` is known.
std::optional<std::string> nearest_name(std::string_view given, const std::vector<std::string>& known);

// "; did you mean 'NAME'?" for the nearest name, or "" when none is near.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& known);

}  // namespace wasinn
