// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An enum's names in one table read both ways: the name a message or a flag shows, and the value
// a flag or config names. Aliases ("npu", "tflite") stay with the parse function that takes them.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace wasinn {

template <typename Enum, std::size_t N>
struct NameTable {
  std::array<std::pair<Enum, std::string_view>, N> entries;

  // "?" for a value the table does not list (a bad cast), never a crash.
  constexpr std::string_view name_of(Enum value) const {
    for (const auto& [v, name] : entries)
      if (v == value) return name;
    return "?";
  }
  constexpr std::optional<Enum> value_of(std::string_view name) const {
    for (const auto& [v, n] : entries)
      if (n == name) return v;
    return std::nullopt;
  }
};

}  // namespace wasinn
