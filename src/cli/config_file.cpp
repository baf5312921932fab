// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/config_file.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/config_document.h"
#include "base/near_names.h"

namespace wasinn_cli {

namespace {

namespace fs = std::filesystem;

bool any_command_has(const CLI::App& app, const std::string& name) {
  if (app.get_option_no_throw(name) != nullptr) return true;
  for (const auto* sub : app.get_subcommands({})) {
    if (any_command_has(*sub, name)) return true;
  }
  return false;
}

std::string word_of(const nlohmann::json& x) {
  if (x.is_string()) return x.get<std::string>();
  if (x.is_boolean()) return x.get<bool>() ? "true" : "false";
  if (x.is_number()) return x.dump();
  throw std::invalid_argument(fmt::format("expected a string, number or boolean, got {}", x.dump()));
}

// One value as the words the option would get on the command line. An object (a TOML table)
// is KEY=VALUE words, so that Wasmtime's `[wasm] timeout = "10s"` is `-W timeout=10s`, `env`
// takes {NAME = "VALUE"}, and `backend-config` {NAME = {...}} is NAME=JSON. A single-valued
// option takes one word: no table, and a list only of one.
std::vector<std::string> words_of(const nlohmann::json& v, bool repeatable) {
  std::vector<std::string> out;
  if (!repeatable && v.is_object()) throw std::invalid_argument("takes one value, got a table");
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      if (x.is_object()) {
        out.push_back(k + "=" + x.dump());
      } else if (x.is_array()) {
        for (const auto& each : x) out.push_back(k + "=" + word_of(each));
      } else {
        out.push_back(k + "=" + word_of(x));
      }
    }
  } else if (v.is_array()) {
    for (const auto& x : v) out.push_back(word_of(x));
  } else {
    out.push_back(word_of(v));
  }
  if (!repeatable && out.size() != 1) throw std::invalid_argument(fmt::format("takes one value, got {}", out.size()));
  return out;
}

}  // namespace

std::string config_file_path(const std::string& given) {
  if (!given.empty()) return given;
  fs::path base;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = fs::path(home) / ".config";
  } else {
    return {};
  }
  const fs::path toml = base / "wasinn" / "config.toml";
  const fs::path json = base / "wasinn" / "config.json";
  std::error_code ec;
  const bool has_toml = fs::is_regular_file(toml, ec);
  const bool has_json = fs::is_regular_file(json, ec);
  if (has_toml && has_json) {
    throw UsageError(
        fmt::format("both {} and {} exist: keep one, or name it with --config", toml.string(), json.string()));
  }
  return has_toml ? toml.string() : has_json ? json.string() : std::string();
}

ConfigSources apply_config_file(const std::string& path, CLI::App* cmd, const CLI::App& all_commands) {
  ConfigSources sources;
  if (path.empty()) return sources;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("--config {}: is a directory, not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--config {}: cannot read it", path));
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  for (const auto& [key, value, line] : read_config_document(path, text)) {
    const std::string where = line > 0 ? fmt::format("{}:{}", path, line) : path;
    const std::string name = key.size() == 1 ? "-" + key : "--" + key;
    if (key == "config" || key == "help" || key == "version") {
      throw UsageError(fmt::format("{}: \"{}\" cannot be set in a config file", where, key));
    }
    CLI::Option* opt = cmd->get_option_no_throw(name);
    if (!opt) {
      if (any_command_has(all_commands, name)) continue;  // an option of another command
      std::vector<std::string> keys;
      for (const auto& o : option_names(*cmd)) {
        if (o.rfind("--", 0) == 0) keys.push_back(o.substr(2));
      }
      throw UsageError(
          fmt::format("{}: unknown key \"{}\"{} (the keys are the long option names, e.g. \"dir\", "
                      "\"env\", \"max-graphs\", \"backend-config\"; see docs/cli.md)",
                      where, key, wasinn::did_you_mean(key, keys)));
    }
    const bool list = opt->get_items_expected_max() > 1;
    if (!list && opt->count() > 0) continue;  // the command line gives it: the flag wins
    const auto& excluded = opt->get_excludes();
    if (std::any_of(excluded.begin(), excluded.end(), [](const CLI::Option* o) { return o->count() > 0; })) {
      continue;  // e.g. "log-level" in the file, -q on the command line
    }
    try {
      std::vector<std::string> words = words_of(value, list);
      const std::vector<std::string> given = opt->results();
      opt->clear();
      for (const auto& w : words) opt->add_result(w);
      for (const auto& w : given) opt->add_result(w);
      opt->run_callback();
      if (list) sources[key].assign(words.size(), fmt::format("{}: \"{}\"", where, key));
    } catch (const CLI::Error& e) {
      throw UsageError(fmt::format("{}: \"{}\": {}", where, key, e.what()));
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}: \"{}\": {}", where, key, e.what()));
    }
  }
  return sources;
}

}  // namespace wasinn_cli
