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

inline std::shared_ptr<ExecutionContext> plugin_context(const char* target, Encoding encoding,
                                                        std::span<const uint8_t> builder,
                                                        std::map<std::string, std::string> backend_configs = {}) {
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_FUZZ_BACKEND_DIR};
  for (auto& [backend, config] : backend_configs) options.backend_configs[backend] = config;
  static std::vector<std::shared_ptr<NnEnvironment>> kept;
  const auto& env = kept.emplace_back(wire_environment(std::move(options)).env);
  auto graph = env->load_graph(encoding, Target::cpu, std::span(&builder, 1), {}, {});
  if (!graph) {
    std::fprintf(stderr, "%s: cannot load its fixture: %s\n", target, graph.error().detail.c_str());
    std::abort();
  }
  auto ctx = (*graph)->create_context();
  if (!ctx) std::abort();
  return *ctx;
}

// The same for a model the plugin reads from `model` (a host path) with a JSON load `config`.
inline std::shared_ptr<ExecutionContext> path_context(const char* target, Encoding encoding,
                                                      const std::filesystem::path& model, const std::string& config,
                                                      std::map<std::string, std::string> backend_configs = {}) {
  EnvironmentOptions options;
  options.backend_dirs = {WASINN_FUZZ_BACKEND_DIR};
  for (auto& [backend, cfg] : backend_configs) options.backend_configs[backend] = cfg;
  static std::vector<std::shared_ptr<NnEnvironment>> kept;
  const auto& env = kept.emplace_back(wire_environment(std::move(options)).env);
  const std::vector<uint8_t> none;
  const std::span<const uint8_t> builder(none);
  auto graph = env->load_graph(encoding, Target::cpu, std::span(&builder, 1), std::span(&model, 1), config);
  if (!graph) {
    std::fprintf(stderr, "%s: cannot load %s: %s\n", target, model.c_str(), graph.error().detail.c_str());
    std::abort();
  }
  auto ctx = (*graph)->create_context();
  if (!ctx) std::abort();
  return *ctx;
}

}  // namespace wasinn::fuzz
