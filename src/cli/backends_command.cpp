// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cli/backends_command.h"

#include <filesystem>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/text_table.h"

namespace wasinn_cli {

namespace {

// The library as its manifest names it: a file name when it sits beside the manifest.
std::string library_cell(const wasinn::BackendStatus& b) {
  namespace fs = std::filesystem;
  const fs::path lib(b.library);
  std::string cell = lib.parent_path() == fs::path(b.manifest).parent_path() ? lib.filename().string() : b.library;
  return b.library_found ? cell : cell + " (missing)";
}

std::string keys_cell(const wasinn::BackendStatus& b) {
  if (!b.config_keys) return "(not declared)";
  if (b.config_keys->empty()) return "(none)";
  return fmt::format("{}", fmt::join(*b.config_keys, ", "));
}

nlohmann::json backend_json(const wasinn::BackendStatus& b, bool checked) {
  nlohmann::json j{{"name", b.name},
                   {"encodings", b.encodings},
                   {"library", b.library},
                   {"library_found", b.library_found},
                   {"manifest", b.manifest},
                   {"isolate_load", b.isolate_load},
                   {"config_keys", b.config_keys ? nlohmann::json(*b.config_keys) : nlohmann::json(nullptr)},
                   {"problem", b.problem}};
  if (checked) {
    j["loadable"] = b.loadable;
    j["framework_version"] = b.framework_version;
    j["description"] = b.description;
    auto devices = nlohmann::json::array();
    for (const auto& d : b.devices)
      devices.push_back({{"name", d.name}, {"api", d.api}, {"memory_bytes", d.memory_bytes}, {"target", d.target}});
    j["devices"] = std::move(devices);
    auto unavailable = nlohmann::json::object();
    for (const auto& [target, why] : b.unavailable_targets) unavailable[target] = why;
    j["unavailable_targets"] = std::move(unavailable);
  }
  return j;
}

void print_list(const std::vector<wasinn::BackendStatus>& backends) {
  TableRows rows{{"BACKEND", "ENCODINGS", "ISOLATE", "LIBRARY", "CONFIG KEYS"}};
  std::vector<std::string> problems;
  for (const auto& b : backends) {
    if (!b.problem.empty() && b.manifest.empty()) {  // a manifest that could not be read
      problems.push_back(b.problem);
      continue;
    }
    rows.push_back({b.name, fmt::format("{}", fmt::join(b.encodings, ",")), b.isolate_load ? "yes" : "no",
                    library_cell(b), keys_cell(b)});
  }
  print_table(rows);
  for (const auto& p : problems) fmt::print("bad manifest: {}\n", p);
  fmt::print("(nothing loaded: 'wasinn backends --check' loads each plugin and shows its framework version)\n");
}

std::string memory_cell(uint64_t bytes) {
  if (bytes == 0) return "-";
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

// The devices each backend found, then why a target it does not serve is unavailable.
void print_devices(const std::vector<wasinn::BackendStatus>& backends) {
  TableRows rows{{"BACKEND", "TARGET", "API", "DEVICE", "MEMORY"}};
  for (const auto& b : backends) {
    for (const auto& d : b.devices) rows.push_back({b.name, d.target, d.api, d.name, memory_cell(d.memory_bytes)});
  }
  if (rows.size() > 1) {
    fmt::print("\n");
    print_table(rows);
  }
  bool first = true;
  for (const auto& b : backends) {
    for (const auto& [target, why] : b.unavailable_targets) {
      if (target == "tpu") continue;  // no backend has one; a line each would only repeat it
      if (std::exchange(first, false)) fmt::print("\n");
      fmt::print("{}: no {}: {}\n", b.name, target, why);
    }
  }
}

void print_check(const std::vector<wasinn::BackendStatus>& backends) {
  TableRows rows{{"BACKEND", "ENCODINGS", "VERSION", "STATUS"}};
  for (const auto& b : backends) {
    rows.push_back({b.name, fmt::format("{}", fmt::join(b.encodings, ",")), b.loadable ? b.framework_version : "-",
                    b.loadable ? "ok" : b.problem});
  }
  print_table(rows);
  // What a backend found (accelerators, delegates and the target each serves): too long for a cell.
  for (const auto& b : backends) {
    if (b.loadable && !b.description.empty()) fmt::print("{}: {}\n", b.name, b.description);
  }
  print_devices(backends);
}

}  // namespace

void add_backends_options(CLI::App* backends, BackendsOptions& o, CommonOptions& common) {
  backends->add_flag("--check", o.check,
                     "Load each plugin and its framework (slow: libtorch, TensorFlow) to show the framework "
                     "version, or why it cannot load, and the devices each backend found (CPU, Vulkan, CUDA) "
                     "with why target gpu is unavailable where it is");
  backends->add_flag("--json", o.json, "Print the list as JSON");
  add_common(backends, common);
}

namespace {

// --check is a health check: a backend that cannot load fails it (exit 1), named on stderr.
bool check_failed(const std::vector<wasinn::BackendStatus>& backends) {
  std::vector<std::string> failed;
  for (const auto& b : backends) {
    if (b.checked && !b.loadable) failed.push_back(b.name);
  }
  if (failed.empty()) return false;
  fmt::print(stderr, "wasinn: error: {} of {} backends cannot load: {}\n", failed.size(), backends.size(),
             fmt::join(failed, ", "));
  return true;
}

}  // namespace

int backends_command(const BackendsOptions& o, const CommonOptions& common) {
  wasinn::HostOptions options;
  apply_common(common, options);
  auto host = make_host(options);
  const auto backends = o.check ? host->probe_backends() : host->list_backends();
  const auto searched = host->backend_search_dirs();
  if (o.json) {
    auto list = nlohmann::json::array();
    for (const auto& b : backends) list.push_back(backend_json(b, o.check));
    fmt::print("{}\n", nlohmann::json{{"searched", searched}, {"backends", list}}.dump(2));
    return backends.empty() || check_failed(backends) ? kExitFailure : 0;
  }
  fmt::print("searched: {}\n", fmt::join(searched, ", "));
  if (backends.empty()) {
    fmt::print("no backend plugins found\n");
    return kExitFailure;
  }
  if (o.check)
    print_check(backends);
  else
    print_list(backends);
  return check_failed(backends) ? kExitFailure : 0;
}

}  // namespace wasinn_cli
