// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The composition root of the wasi-nn side: an NnEnvironment wired to the parts that plug into
// the core's ports (core/backend_ports.h): the backend plugin catalog (plugins/) and the load
// isolation (isolation/). The one place that knows all three; above core/, which knows neither.
// Made once per process or embedding (root/host_environment.cpp, wasinn-load-check, tests).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/nn_environment.h"
#include "isolation/isolated_load.h"
#include "plugins/backend_catalog.h"
#include "wasinn/limits.h"

namespace wasinn {

struct EnvironmentOptions {
  std::vector<std::filesystem::path> backend_dirs;     // empty: BackendCatalog::default_dirs()
  std::map<std::string, std::string> backend_configs;  // backend name -> JSON
  Limits limits;
  IsolationOptions isolation;  // which backends load a model in a checked child first
};

// The environment and, for whoever lists backends or reports on isolation, its two parts. All
// three are shared: the environment holds the others for as long as it lives.
struct WiredEnvironment {
  std::shared_ptr<NnEnvironment> env;
  std::shared_ptr<BackendCatalog> catalog;
  std::shared_ptr<IsolatedLoadChecker> isolation;
};

WiredEnvironment wire_environment(EnvironmentOptions options);

}  // namespace wasinn
