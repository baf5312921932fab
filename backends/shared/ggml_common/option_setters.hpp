// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ggml plugins' JSON options (WasmEdge's keys: "ctx-size", "beam-size", ...) as a table of
// setters over a plugin's options struct, one wording for every mistake:
//   load config: "beam-size" must be an integer from 0 to 16, got "big"
// A setter checks one value and writes one field; the caller applies a whole object to a copy,
// so a bad key leaves the options as they were. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::ggml_common {

using json = nlohmann::json;

template <typename Options>
using Setter = std::function<sdk::Error(const json&, std::string_view source, Options&)>;
template <typename Options>
using SetterTable = std::map<std::string, Setter<Options>, std::less<>>;

inline std::string shown(const json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

inline sdk::Error bad_value(std::string_view source, std::string_view key, std::string_view expected, const json& v) {
  return sdk::invalid(std::string(source) + ": \"" + std::string(key) + "\" must be " + std::string(expected) +
                      ", got " + shown(v));
}

// An integer, also written as an integral float (512.0), as JSON writers differ.
inline std::optional<int64_t> as_integer(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

template <typename Options>
Setter<Options> boolean(bool Options::*field, std::string key) {
  return [field, key](const json& v, std::string_view source, Options& o) -> sdk::Error {
    if (!v.is_boolean()) return bad_value(source, key, "true or false", v);
    o.*field = v.get<bool>();
    return {};
  };
}

template <typename Options, typename T>
Setter<Options> integer(T Options::*field, std::string key, int64_t lo, int64_t hi) {
  return [=](const json& v, std::string_view source, Options& o) -> sdk::Error {
    auto n = as_integer(v);
    if (!n || *n < lo || *n > hi)
      return bad_value(source, key, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi), v);
    o.*field = static_cast<T>(*n);
    return {};
  };
}

template <typename Options>
Setter<Options> number(double Options::*field, std::string key, double lo, double hi) {
  return [=](const json& v, std::string_view source, Options& o) -> sdk::Error {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
      return bad_value(source, key, "a number from " + json(lo).dump() + " to " + json(hi).dump(), v);
    o.*field = v.get<double>();
    return {};
  };
}

template <typename Options>
Setter<Options> text(std::string Options::*field, std::string key) {
  return [field, key](const json& v, std::string_view source, Options& o) -> sdk::Error {
    if (!v.is_string()) return bad_value(source, key, "a string", v);
    o.*field = v.get<std::string>();
    return {};
  };
}

}  // namespace wasinn::ggml_common
