// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host::Impl: what a Host owns, shared by host.cpp (running programs) and host_info.cpp
// (listing backends, inspecting models).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>

#include "abi/network_policy.h"
#include "base/log.h"
#include "core/nn_environment.h"
#include "plugins/backend_catalog.h"
#include "engine/epoch_ticker.h"
#include "engine/module_cache.h"
#include "engine/wasmtime_ptr.h"
#include "wasinn/host.h"

namespace wasinn {

struct Host::Impl {
  std::unique_ptr<AttachedLogCallback> log_callback;  // first: outlives what may still log
  EnginePtr engine;
  LinkerPtr linker;                     // shared by all programs: a Wasmtime linker may instantiate concurrently
  ComponentLinkerPtr component_linker;  // the same for components
  // WASI 0.3 components': WASI 0.2 in its async form beside 0.3 (they run inside a tokio
  // runtime, where 0.2's blocking form cannot), wasi:nn and wasinn's packages.
  ComponentLinkerPtr component_linker_p3;
  // What the sockets of modules importing WasmEdge's socket ABI may reach (nothing unless
  // HostOptions::network says).
  std::shared_ptr<const NetworkPolicy> network;
  std::shared_ptr<NnEnvironment> env;
  std::shared_ptr<BackendCatalog> catalog;  // env's backends, for listing and probing them
  uint64_t timeout_ms = 0;
  uint64_t max_memory_bytes = 0;
  bool wasi_p3 = true;                // HostOptions::wasi_p3
  bool component_model_async = true;  // HostOptions::component_model_async
  size_t max_resources = 0;           // HostOptions::max_resources; 0: no bound
  OptionNames option_names;           // what the run's messages call the caller's options
  size_t max_threads = 0;
  std::unique_ptr<EpochTicker> ticker;              // only when timeout_ms > 0; stopped before the engine dies
  std::unique_ptr<ModuleCache> module_cache;        // declared after engine: never outlives it
  std::unique_ptr<ComponentCache> component_cache;  // the same directory, for components

  // wasi-threads guests run on an engine of their own whose code checks epochs, so that the
  // guest's end can stop its other threads; ordinary guests do not pay for those checks.
  struct ThreadsEngine {
    EnginePtr engine;
    std::unique_ptr<ModuleCache> module_cache;
    std::unique_ptr<EpochTicker> ticker;  // only when timeout_ms > 0
    ~ThreadsEngine() {
      ticker.reset();
      module_cache.reset();
    }
  };
  // Made on first use; nullptr when it cannot be made.
  const ThreadsEngine* threads_engine();

  // The linker of modules that import WasmEdge's socket ABI and its trampoline module
  // (engine/socket_imports.h). Made on first use; nullptr (and *error) when it cannot be made.
  struct SocketLinker {
    LinkerPtr linker;
    ModulePtr trampoline;
  };
  const SocketLinker* socket_linker(std::string* error);

  std::filesystem::path module_cache_dir;
  std::once_flag socket_linker_once;
  std::unique_ptr<SocketLinker> socket_linker_;
  std::string socket_linker_error;
  std::once_flag threads_engine_once;
  std::unique_ptr<ThreadsEngine> threads_engine_;

  ~Impl() {
    // wasinn:nn-async's calls end (their stores are gone, so they are cancelled) before any
    // framework may be torn down; bounded, for a backend that cannot be cancelled.
    if (env) (void)env->async_calls()->wait_idle(std::chrono::seconds(30));
    socket_linker_.reset();
    threads_engine_.reset();
    ticker.reset();
  }
};

}  // namespace wasinn
