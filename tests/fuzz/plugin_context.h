// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One execution context on a real plugin, for the fuzz targets that feed a backend's input:
// the build's plugins, a graph loaded once from one builder, its environment kept until exit. A
// graph that cannot load stops the fuzzer at start with the reason (libFuzzer has no skip).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/nn_environment.h"
#include "core/types.h"
#include "root/wired_environment.h"

namespace wasinn::fuzz {

// A context of the graph loaded from `builder` and `paths` with `config`, in an environment of the
// build's plugins with `backend_configs`; `what` names the model in the message of a failed load.
inline std::shared_ptr<ExecutionContext> load_context(const char* target, const std::string& what, Encoding encoding,
                                                      std::span<const uint8_t> builder,
                                                      std::span<const std::filesystem::path> paths,
                                                      const std::string& config,
                                                      std::map<std::string, std::string> backend_configs) {
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_FUZZ_BACKEND_DIR};
  for (auto& [backend, cfg] : backend_configs) options.backend_configs[backend] = cfg;
  static std::vector<std::shared_ptr<NnEnvironment>> kept;
  const auto& env = kept.emplace_back(wire_environment(std::move(options)).env);
  auto graph = env->load_graph(encoding, Target::cpu, std::span(&builder, 1), paths, config);
  if (!graph) {
    std::fprintf(stderr, "%s: cannot load %s: %s\n", target, what.c_str(), graph.error().detail.c_str());
    std::abort();
  }
  auto ctx = (*graph)->create_context();
  if (!ctx) std::abort();
  return *ctx;
}

inline std::shared_ptr<ExecutionContext> plugin_context(const char* target, Encoding encoding,
                                                        std::span<const uint8_t> builder,
                                                        std::map<std::string, std::string> backend_configs = {}) {
  return load_context(target, "its fixture", encoding, builder, {}, {}, std::move(backend_configs));
}

// The same for a model the plugin reads from `model` (a host path) with a JSON load `config`.
inline std::shared_ptr<ExecutionContext> path_context(const char* target, Encoding encoding,
                                                      const std::filesystem::path& model, const std::string& config,
                                                      std::map<std::string, std::string> backend_configs = {}) {
  return load_context(target, model.string(), encoding, {}, std::span(&model, 1), config, std::move(backend_configs));
}

}  // namespace wasinn::fuzz
