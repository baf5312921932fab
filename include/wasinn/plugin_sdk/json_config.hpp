// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn plugin SDK: reading a backend or graph JSON config (the operator's --backend-config,
// a guest's load config) with one wording for every mistake. Uses nlohmann::json in its
// non-throwing parse mode, so a bad config is an Error, never an exception. Only plugins that
// link nlohmann_json include this file. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "wasinn/plugin_sdk/error.hpp"
#include "wasinn/plugin_thread_limit.h"

namespace wasinn::sdk {

// Parses `text` into a JSON object; empty text is an empty object. `source` names the config in
// details ("onnxruntime backend config"). Malformed JSON or a non-object is INVALID_ARGUMENT.
inline Error parse_config_object(std::string_view text, std::string_view source, nlohmann::json& out) {
  if (text.empty()) {
    out = nlohmann::json::object();
    return {};
  }
  out = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) return invalid(std::string(source) + ": malformed JSON");
  if (!out.is_object())
    return invalid(std::string(source) + ": expected a JSON object, got " + std::string(out.type_name()));
  return {};
}

// Refuses the first key of obj that `known` does not list, naming the backend and what it
// knows: `backend config: unknown tensorflow setting "x" (known: signature, tags)`.
inline Error refuse_unknown_keys(const nlohmann::json& obj, std::string_view source, std::string_view backend,
                                 std::initializer_list<std::string_view> known) {
  for (const auto& item : obj.items()) {
    bool found = false;
    for (std::string_view k : known) found = found || item.key() == k;
    if (found) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return invalid(std::string(source) + ": unknown " + std::string(backend) + " setting \"" + item.key() +
                   "\" (known: " + list + ")");
  }
  return {};
}

// A framework thread count: an integer from 0 (the framework's default) to
// max_config_threads(). A float, even 2.0, is refused: more likely a mistake than an intent.
inline Error read_thread_count(const nlohmann::json& obj, const char* key, std::string_view source,
                               std::optional<int>& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  if (!it->is_number_integer())
    return invalid(std::string(source) + ": \"" + key + "\" must be a non-negative integer, got " + it->dump());
  const int most = max_config_threads();
  if (it->is_number_unsigned() ? it->get<uint64_t>() > static_cast<uint64_t>(most)
                               : (it->get<int64_t>() < 0 || it->get<int64_t>() > most))
    return invalid(std::string(source) + ": \"" + key + "\" must be between 0 and " + std::to_string(most) +
                   " (4 per hardware thread), got " + it->dump());
  out = static_cast<int>(it->get<int64_t>());
  return {};
}

inline Error read_bool(const nlohmann::json& obj, const char* key, std::string_view source, std::optional<bool>& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  if (!it->is_boolean())
    return invalid(std::string(source) + ": \"" + key + "\" must be true or false, got " + it->dump());
  out = it->get<bool>();
  return {};
}

inline Error read_string(const nlohmann::json& obj, const char* key, std::string_view source,
                         std::optional<std::string>& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  if (!it->is_string()) return invalid(std::string(source) + ": \"" + key + "\" must be a string, got " + it->dump());
  out = it->get<std::string>();
  return {};
}

// A string that must be one of `choices` (its spelling and the value it stands for).
template <typename T>
Error read_choice(const nlohmann::json& obj, const char* key, std::string_view source,
                  std::initializer_list<std::pair<const char*, T>> choices, std::optional<T>& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return {};
  if (it->is_string())
    for (const auto& [spelling, value] : choices)
      if (it->get_ref<const std::string&>() == spelling) {
        out = value;
        return {};
      }
  std::string expected;
  size_t i = 0;
  for (const auto& choice : choices)
    expected += std::string(i++ == 0 ? "" : i == choices.size() ? " or " : ", ") + "\"" + choice.first + "\"";
  return invalid(std::string(source) + ": \"" + key + "\" must be one of " + expected + ", got " + it->dump());
}

// A property's value text as JSON (backend_plugin.h's property_set): "0.5", "true" and "[1]"
// are what they parse as; text that is not JSON ("hot", "llama") is a JSON string.
inline nlohmann::json property_value_json(std::string_view text) {
  nlohmann::json v = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) return nlohmann::json(std::string(text));
  return v;
}

}  // namespace wasinn::sdk
