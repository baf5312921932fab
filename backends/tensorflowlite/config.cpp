// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON configs, read with the SDK's helpers (nlohmann::json in its non-throwing mode).
#include "config.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <set>

#include "wasinn/plugin_sdk/json_config.hpp"

namespace wasinn::tensorflowlite {

std::string label(const DelegateSpec& spec) { return "delegate \"" + spec.name + "\" (" + spec.path + ")"; }

namespace {

std::optional<bool> fallback_setting(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  return *v == "cpu";
}

// "/usr/lib/libvx_delegate.so.1" -> "vx_delegate".
std::string default_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).filename().string();
  stem = stem.substr(0, stem.find(".so"));
  if (stem.rfind("lib", 0) == 0 && stem.size() > 3) stem.erase(0, 3);
  return stem;
}

Error parse_delegate(const nlohmann::json& d, const std::string& source, DelegateSpec& out) {
  if (!d.is_object()) return sdk::invalid(source + ": expected an object, got " + d.dump());
  if (Error e =
          sdk::refuse_unknown_keys(d, source, "tensorflowlite", {"name", "path", "target", "options", "fallback"}))
    return e;
  std::optional<std::string> name, path, fallback;
  std::optional<int32_t> target;
  if (Error e = sdk::read_string(d, "path", source, path)) return e;
  if (!path || path->empty()) return sdk::invalid(source + ": \"path\" (the delegate library's file) is required");
  if (Error e = sdk::read_string(d, "name", source, name)) return e;
  if (Error e = sdk::read_choice<int32_t>(
          d, "target", source, {{"tpu", WASINN_TARGET_TPU}, {"gpu", WASINN_TARGET_GPU}, {"cpu", WASINN_TARGET_CPU}},
          target))
    return e;
  if (Error e = sdk::read_choice<std::string>(d, "fallback", source, {{"cpu", "cpu"}, {"none", "none"}}, fallback))
    return e;
  out.path = *path;
  out.name = name ? *name : default_name(*path);
  if (out.name.empty() || out.name == "none")
    return sdk::invalid(source + ": \"name\" must be a non-empty name other than \"none\"");
  if (target) out.target = *target;
  out.fallback_cpu = fallback_setting(fallback).value_or(false);
  if (auto it = d.find("options"); it != d.end()) {
    if (!it->is_object())
      return sdk::invalid(source + ": \"options\" must be an object of key: value, got " + it->dump());
    for (const auto& o : it->items()) {
      const auto& v = o.value();
      if (v.is_string())
        out.options.emplace_back(o.key(), v.get<std::string>());
      else if (v.is_number() || v.is_boolean())
        out.options.emplace_back(o.key(), v.dump());
      else
        return sdk::invalid(source + ": option \"" + o.key() + "\" must be a string, number or boolean, got " +
                            v.dump());
    }
  }
  return {};
}

}  // namespace

Error parse_backend_config(std::string_view text, BackendConfig& out) {
  constexpr std::string_view source = "backend config";
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, source, j)) return e;
  if (Error e = sdk::refuse_unknown_keys(j, source, "tensorflowlite", {"delegates"})) return e;
  auto it = j.find("delegates");
  if (it == j.end()) return {};
  if (!it->is_array()) return sdk::invalid(std::string(source) + ": \"delegates\" must be an array, got " + it->dump());
  std::set<std::string> names;
  for (size_t i = 0; i < it->size(); ++i) {
    DelegateSpec spec;
    const std::string where = std::string(source) + ": delegates[" + std::to_string(i) + "]";
    if (Error e = parse_delegate((*it)[i], where, spec)) return e;
    if (!names.insert(spec.name).second)
      return sdk::invalid(where + ": a second delegate named \"" + spec.name + "\" (give each a distinct \"name\")");
    out.delegates.push_back(std::move(spec));
  }
  return {};
}

Error parse_graph_config(std::string_view text, GraphConfig& out) {
  constexpr std::string_view source = "graph config";
  out = {};
  nlohmann::json j;
  if (Error e = sdk::parse_config_object(text, source, j)) return e;
  // A guest chooses among the host's delegates; it never names a library to load.
  for (const char* key : {"path", "delegates", "options"})
    if (j.contains(key))
      return sdk::invalid(std::string(source) + ": \"" + key +
                          "\" is host configuration (--backend-config tensorflowlite=...); a "
                          "graph config picks a configured delegate by \"delegate\": NAME");
  if (Error e = sdk::refuse_unknown_keys(j, source, "tensorflowlite", {"signature", "delegate", "fallback"})) return e;
  std::optional<std::string> signature, fallback;
  if (Error e = sdk::read_string(j, "signature", source, signature)) return e;
  if (Error e = sdk::read_string(j, "delegate", source, out.delegate)) return e;
  if (Error e = sdk::read_choice<std::string>(j, "fallback", source, {{"cpu", "cpu"}, {"none", "none"}}, fallback))
    return e;
  if (signature) out.signature = *signature;
  out.fallback_cpu = fallback_setting(fallback);
  return {};
}

}  // namespace wasinn::tensorflowlite
