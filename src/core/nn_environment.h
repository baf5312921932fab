// NnEnvironment: what every guest in a process shares: the backend catalog, the named-model
// registry and the limits. Create one per process (or per embedding) and hand it to each
// NnSession. Thread-safe.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "plugins/backend_catalog.h"
#include "core/compute_watchdog.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/loaded_graphs.h"
#include "core/nn_metrics.h"
#include "isolation/isolated_load.h"
#include "wasinn/limits.h"
#include "core/model_registry.h"

namespace wasinn {

struct EnvironmentOptions {
  std::vector<std::filesystem::path> backend_dirs;   // empty: BackendCatalog::default_dirs()
  std::map<std::string, std::string> backend_configs; // backend name -> JSON
  Limits limits;
  IsolationOptions isolation;  // which backends load a model in a checked child first
};

class NnEnvironment {
 public:
  explicit NnEnvironment(EnvironmentOptions options);

  BackendCatalog& backends() { return catalog_; }
  ModelRegistry& models() { return models_; }
  const Limits& limits() const { return limits_; }
  ComputeWatchdog& watchdog() { return watchdog_; }
  IsolatedLoadChecker& isolation() { return isolation_; }
  NnMetrics& metrics() { return metrics_; }

  // Loads a graph from builders with the plugin for `encoding` (autodetect: sniffed from the
  // bytes, with `hint` preferred when the bytes allow it). paths may be empty. For a backend
  // marked for isolation the load is first checked in a child process (isolation/isolated_load.h).
  // A guest's bytes (no paths) that are already loaded, with the same encoding, target and
  // config, give the live graph again: one graph, and one check, per distinct model.
  // model_name: the name a named model is registered under, its graph label in the metrics.
  Result<std::shared_ptr<Graph>> load_graph(Encoding encoding, Target target,
                                            std::span<const std::span<const uint8_t>> builders,
                                            std::span<const std::filesystem::path> paths,
                                            std::string_view config, std::string_view model_name = {});

  Result<std::shared_ptr<Graph>> load_named(std::string_view name, std::string_view config);

  // Counts a guest's load in the metrics: into the graph's series, or a failure into the series
  // of the backend serving `encoding` (a named model: its registered encoding) and its label.
  void count_load(const Result<std::shared_ptr<Graph>>& graph, Encoding encoding, std::string_view name = {});

 private:
  NnMetrics metrics_;  // first: the last to go
  Limits limits_;
  BackendCatalog catalog_;
  ModelRegistry models_;
  ComputeWatchdog watchdog_;
  IsolatedLoadChecker isolation_;
  LoadedGraphs loaded_graphs_;
};

}  // namespace wasinn
