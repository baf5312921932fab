// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plugins' two config shapes read one way: options set in layers (a graph's load config over
// the operator's --backend-config: each option the graph sets wins), and a backend config that is
// one flag. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>

#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::plugin_common {

// `base` with each of the listed optional members that `over` sets taken from `over`:
//   layered(backend_defaults, graph_config, &Config::num_threads, &Config::cache_dir)
template <typename Config, typename... Value>
Config layered(Config base, const Config& over, std::optional<Value> Config::*... options) {
  ((over.*options ? void(base.*options = over.*options) : void()), ...);
  return base;
}

// A backend config whose one key is a flag (false when left out); any other key is refused,
// naming `backend`'s known key.
inline sdk::Error read_one_flag_config(std::string_view text, std::string_view source, std::string_view backend,
                                       const char* key, bool& out) {
  nlohmann::json obj;
  if (sdk::Error e = sdk::parse_config_object(text, source, obj)) return e;
  if (sdk::Error e = sdk::refuse_unknown_keys(obj, source, backend, {key})) return e;
  std::optional<bool> flag;
  if (sdk::Error e = sdk::read_bool(obj, key, source, flag)) return e;
  out = flag.value_or(false);
  return {};
}

}  // namespace wasinn::plugin_common
