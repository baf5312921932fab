// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What serve/http's Host::serve reads of a Host, in place of the engine's private Host::Impl
// (host_impl.h, which no other layer includes): the wasi-nn environment every served guest
// shares and the settings a served guest inherits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/nn_environment.h"
#include "wasinn/host.h"

namespace wasinn {

// HostOptions' switches for WASI 0.3, and the options that turned them off (for the refusal).
struct P3Switches {
  bool wasi_p3 = true;
  bool component_model_async = true;
  std::string wasi_p3_by, async_by;
};

struct ServedHost {
  std::shared_ptr<NnEnvironment> env;      // the named models, loaded once for every request
  uint64_t max_memory_bytes = 0;           // per linear memory (HostOptions::max_memory_bytes); 0: none
  std::filesystem::path module_cache_dir;  // where compiled components are kept; empty: not kept
  P3Switches p3;                           // a 0.3 component is refused when they turn 0.3 off
  size_t max_resources = 0;                // a store's WASI table, as -S max-resources; 0: no bound
};

// A copy of those parts of the Host (host.cpp).
ServedHost served_host(const Host::Impl& host);
P3Switches p3_switches(const Host::Impl& host);

}  // namespace wasinn
