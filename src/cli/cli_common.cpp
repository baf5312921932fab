#include "cli/cli_common.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace wasinn_cli {

namespace fs = std::filesystem;

void add_common(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--config", o.config,
                  "Read options from this JSON file (keys: the long option names; the command line wins). "
                  "Default: $XDG_CONFIG_HOME/wasinn/config.json or ~/.config/wasinn/config.json, if it exists")
      ->type_name("FILE");
  cmd->add_option("--backend-dir", o.backend_dirs,
                  "Directory of backend manifests (*.json); repeatable. Default: $WASINN_BACKEND_PATH, "
                  "then <prefix>/lib/wasinn/backends")
      ->type_name("DIR")->allow_extra_args(false);
  cmd->add_option("--backend-config", o.backend_configs,
                  "NAME=JSON settings for one backend, e.g. onnxruntime={\"intra_op_threads\":1}; checked at "
                  "start (the backend must exist, the JSON must be an object); repeatable")
      ->type_name("NAME=JSON")->allow_extra_args(false);
  auto* level = cmd->add_option("--log-level", o.log_level,
                                "off, error, warn (the default: failed wasi-nn calls are shown), info or debug")
                    ->type_name("LEVEL")
                    ->check(CLI::IsMember({"off", "error", "warn", "info", "debug", "trace"}));
  auto* quiet = cmd->add_flag("-q,--quiet", o.quiet, "Log errors only (-qq: nothing); as --log-level error");
  auto* verbose = cmd->add_flag("-v,--verbose", o.verbose, "Log more: -v info (model loads), -vv debug");
  quiet->excludes(verbose);
  level->excludes(quiet)->excludes(verbose);
}

CLI::Validator whole_number(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const bool digits = !s.empty() && s.size() <= 20 &&
                            std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        errno = 0;
        const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
        if (!digits || errno == ERANGE || v < lo || v > hi) {
          return fmt::format("'{}' is not a whole number from {} to {}", s, lo, hi);
        }
        return {};
      },
      fmt::format("{}..{}", lo, hi));
}

void apply_common(const CommonOptions& o, wasinn::HostOptions& host) {
  host.backend_dirs = o.backend_dirs;
  for (const auto& kv : o.backend_configs) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError(fmt::format("--backend-config '{}': expected NAME=JSON", kv));
    }
    const std::string name = kv.substr(0, eq);
    const std::string json = kv.substr(eq + 1);
    nlohmann::json parsed;
    try {
      parsed = nlohmann::json::parse(json);
    } catch (const nlohmann::json::parse_error& e) {
      // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
      std::string why = e.what();
      if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
      throw UsageError(fmt::format("--backend-config {}: malformed JSON: {}", name, why));
    }
    if (!parsed.is_object()) {
      throw UsageError(fmt::format("--backend-config {}: expected a JSON object {{...}}, got {}", name, json));
    }
    auto it = host.backend_configs.find(name);
    if (it == host.backend_configs.end()) {
      host.backend_configs[name] = json;
    } else {  // given again: its keys replace the earlier ones
      auto merged = nlohmann::json::parse(it->second);
      merged.update(parsed);
      it->second = merged.dump();
    }
  }
  std::string level = o.log_level;
  if (level.empty()) {
    if (o.quiet >= 2) level = "off";
    else if (o.quiet == 1) level = "error";
    else if (o.verbose >= 2) level = "debug";
    else if (o.verbose == 1) level = "info";
    else level = "warn";
  }
  spdlog::set_level(spdlog::level::from_str(level));
}

std::vector<ManifestInfo> read_manifests(const std::vector<std::string>& dirs) {
  std::vector<ManifestInfo> out;
  std::set<std::string> seen;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      std::ifstream in(file);
      const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded() || !j.is_object() || !j.contains("name") || !j["name"].is_string()) continue;
      ManifestInfo m;
      m.name = j["name"].get<std::string>();
      m.path = file.string();
      if (j.contains("encodings") && j["encodings"].is_array()) {
        for (const auto& e : j["encodings"]) {
          if (e.is_string()) m.encodings.push_back(e.get<std::string>());
        }
      }
      if (seen.insert(m.name).second) out.push_back(std::move(m));
    }
  }
  return out;
}

void check_backend_names(const wasinn::HostOptions& host, const std::vector<std::string>& dirs) {
  if (host.backend_configs.empty()) return;
  const auto manifests = read_manifests(dirs);
  std::vector<std::string> known;
  for (const auto& m : manifests) known.push_back(m.name);
  for (const auto& [name, json] : host.backend_configs) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    if (known.empty()) {
      throw UsageError(fmt::format("--backend-config {}: no backend is installed (searched {})", name,
                                   fmt::join(dirs, ", ")));
    }
    throw UsageError(fmt::format("--backend-config {}: no backend named {}; the installed ones are {}", name, name,
                                 fmt::join(known, ", ")));
  }
}

}  // namespace wasinn_cli
