// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// NnEnvironment: what every guest in a process shares: the backends (behind the core's ports,
// core/backend_ports.h), the named-model registry and the limits. Made, wired to the plugin
// catalog and load isolation, by the composition root (src/root/wired_environment.h), one per
// process (or per embedding), and handed to each NnSession. Thread-safe.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/backend_ports.h"
#include "core/compute_watchdog.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/loaded_graphs.h"
#include "core/async_call.h"
#include "core/nn_metrics.h"
#include "wasinn/limits.h"
#include "core/model_registry.h"

namespace wasinn {

using Deadline = std::chrono::steady_clock::time_point;

class NnEnvironment {
 public:
  // gate: null when no load is checked before it runs.
  NnEnvironment(Limits limits, std::shared_ptr<BackendSource> backends, std::shared_ptr<LoadGate> gate);

  BackendSource& backends() { return *backends_; }
  ModelRegistry& models() { return models_; }
  const Limits& limits() const { return limits_; }
  ComputeWatchdog& watchdog() { return watchdog_; }
  // wasinn:nn-async's live calls in every session of the process (core/async_call.h).
  const std::shared_ptr<AsyncCallCount>& async_calls() const { return async_calls_; }
  NnMetrics& metrics() { return metrics_; }

  // Loads a graph from builders with the plugin for `encoding` (autodetect: sniffed from the
  // bytes, with `hint` preferred when the bytes allow it). paths may be empty. For a backend
  // the gate applies to, the load is first checked by it (a child process: isolation/isolated_load.h).
  // A guest's bytes (no paths) that are already loaded, with the same encoding, target and
  // config, give the live graph again: one graph, and one check, per distinct model.
  // model_name: the name a named model is registered under, its graph label in the metrics.
  Result<std::shared_ptr<Graph>> load_graph(Encoding encoding, Target target,
                                            std::span<const std::span<const uint8_t>> builders,
                                            std::span<const std::filesystem::path> paths, std::string_view config,
                                            std::string_view model_name = {}, std::optional<Deadline> deadline = {});

  // deadline: a served request's end; an isolated check (the slow part a load can be stopped in)
  // ends there at the latest.
  Result<std::shared_ptr<Graph>> load_named(std::string_view name, std::string_view config,
                                            std::optional<Deadline> deadline = {});

  // Counts a guest's load in the metrics: into the graph's series, or a failure into the series
  // of the backend serving `encoding` (a named model: its registered encoding) and its label.
  void count_load(const Result<std::shared_ptr<Graph>>& graph, Encoding encoding, std::string_view name = {});

 private:
  NnMetrics metrics_;  // first: the last to go
  Limits limits_;
  std::shared_ptr<BackendSource> backends_;
  ModelRegistry models_;
  ComputeWatchdog watchdog_;
  std::shared_ptr<LoadGate> gate_;
  LoadedGraphs loaded_graphs_;
  std::shared_ptr<AsyncCallCount> async_calls_ = std::make_shared<AsyncCallCount>();
};

}  // namespace wasinn
