#include "cli/config_file.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"

namespace wasinn_cli {

namespace {

namespace fs = std::filesystem;

// The line of the first `"key":` in the text (1-based), or 0: errors name where the key is.
size_t line_of_key(const std::string& text, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  for (size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
    size_t after = at + quoted.size();
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t' || text[after] == '\n' ||
                                   text[after] == '\r')) {
      ++after;
    }
    if (after < text.size() && text[after] == ':') {
      return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    }
  }
  return 0;
}

bool any_command_has(const CLI::App& app, const std::string& name) {
  if (app.get_option_no_throw(name) != nullptr) return true;
  for (const auto* sub : app.get_subcommands({})) {
    if (any_command_has(*sub, name)) return true;
  }
  return false;
}

// One JSON value as the words the option would get on the command line.
std::vector<std::string> words_of(const std::string& key, const nlohmann::json& v) {
  std::vector<std::string> out;
  const auto word = [&](const nlohmann::json& x) -> std::string {
    if (x.is_string()) return x.get<std::string>();
    if (x.is_boolean()) return x.get<bool>() ? "true" : "false";
    if (x.is_number()) return x.dump();
    throw std::invalid_argument(fmt::format("expected a string, number or boolean, got {}", x.dump()));
  };
  if (key == "backend-config" && v.is_object()) {  // {"NAME": {...}} -> NAME=JSON
    for (const auto& [name, config] : v.items()) out.push_back(name + "=" + config.dump());
  } else if (v.is_array()) {
    for (const auto& x : v) out.push_back(word(x));
  } else {
    out.push_back(word(v));
  }
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
  const fs::path file = base / "wasinn" / "config.json";
  std::error_code ec;
  return fs::is_regular_file(file, ec) ? file.string() : std::string();
}

void apply_config_file(const std::string& path, CLI::App* cmd, const CLI::App& all_commands) {
  if (path.empty()) return;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("--config {}: is a directory, not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--config {}: cannot read it", path));
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string why = e.what();
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    throw UsageError(fmt::format("{}: not valid JSON: {}", path, why));
  }
  if (!j.is_object()) throw UsageError(fmt::format("{}: expected a JSON object of options {{\"key\": value}}", path));
  for (const auto& [key, value] : j.items()) {
    const size_t line = line_of_key(text, key);
    const std::string where = line > 0 ? fmt::format("{}:{}", path, line) : path;
    const std::string name = key.size() == 1 ? "-" + key : "--" + key;
    if (key == "config" || key == "help" || key == "version") {
      throw UsageError(fmt::format("{}: \"{}\" cannot be set in a config file", where, key));
    }
    CLI::Option* opt = cmd->get_option_no_throw(name);
    if (!opt) {
      if (any_command_has(all_commands, name)) continue;  // an option of another command
      throw UsageError(fmt::format("{}: unknown key \"{}\" (the keys are the long option names, e.g. \"dir\", "
                                   "\"env\", \"max-graphs\", \"backend-config\"; see docs/cli.md)", where, key));
    }
    const bool list = opt->get_items_expected_max() > 1;
    if (!list && opt->count() > 0) continue;  // the command line gives it: the flag wins
    const auto& excluded = opt->get_excludes();
    if (std::any_of(excluded.begin(), excluded.end(), [](const CLI::Option* o) { return o->count() > 0; })) {
      continue;  // e.g. "log-level" in the file, -q on the command line
    }
    try {
      std::vector<std::string> words = words_of(key, value);
      if (!list && words.size() != 1) {
        throw std::invalid_argument(fmt::format("takes one value, got {}", words.size()));
      }
      const std::vector<std::string> given = opt->results();
      opt->clear();
      for (const auto& w : words) opt->add_result(w);
      for (const auto& w : given) opt->add_result(w);
      opt->run_callback();
    } catch (const CLI::Error& e) {
      throw UsageError(fmt::format("{}: \"{}\": {}", where, key, e.what()));
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}: \"{}\": {}", where, key, e.what()));
    }
  }
}

}  // namespace wasinn_cli
