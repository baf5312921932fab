// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A config file read into its top-level keys, each with its value (as JSON) and its line, from
// TOML or JSON: what apply_config_file (config_file.h) turns into options. The format is the
// file's extension (.toml, .json), else JSON when the text starts with '{', else TOML.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wasinn_cli {

struct ConfigEntry {
  std::string key;
  nlohmann::json value;  // a TOML table is an object, a TOML datetime its text
  size_t line = 0;       // 1-based; 0 when unknown
};

// Entries in file order. Throws UsageError naming the file and line for a syntax error.
std::vector<ConfigEntry> read_config_document(const std::string& path, const std::string& text);

}  // namespace wasinn_cli
