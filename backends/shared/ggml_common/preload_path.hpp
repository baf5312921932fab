// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WasmEdge's "preload:<path>" in builder 0: a guest naming a host file for a ggml plugin to load.
// A guest may do so only when the operator's backend config says "allow-preload-paths": true;
// the file must then be a regular file. Pure functions; thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::ggml_common {

inline constexpr std::string_view kPreloadPrefix = "preload:";

// nullopt when `builder` is not a preload reference; else the path, and in `error` why it may not
// be loaded: SECURITY when not allowed, INVALID_ARGUMENT for no path, MODEL_NOT_FOUND for no file.
inline std::optional<std::string> preload_path(std::string_view builder, bool allowed, std::string_view backend,
                                               sdk::Error& error) {
  if (builder.substr(0, kPreloadPrefix.size()) != kPreloadPrefix) return std::nullopt;
  std::string path(builder.substr(kPreloadPrefix.size()));
  if (!allowed) {
    error = {WASINN_SECURITY, "load: a guest may not name a host file ('preload:" + path +
                                  "'); register the model with --nn-preload and use load_by_name, or allow it with "
                                  "--backend-config " +
                                  std::string(backend) + "={\"allow-preload-paths\":true}"};
    return path;
  }
  std::error_code ec;
  if (path.empty() || path.find('\0') != std::string::npos)
    error = sdk::invalid("load: 'preload:' must be followed by a file path");
  else if (!std::filesystem::is_regular_file(path, ec))
    error = {WASINN_MODEL_NOT_FOUND, "model file " + path + " does not exist or is not a regular file"};
  return path;
}

}  // namespace wasinn::ggml_common
