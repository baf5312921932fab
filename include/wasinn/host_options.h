// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn embedding API: what a Host is made from (Host::create, wasinn/host.h). The composition
// root and the command line read these; neither needs the Host itself.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "wasinn/limits.h"

namespace wasinn {

enum class LogLevel { trace, debug, info, warn, error, critical };

// What the host's messages (Host::create's errors, a RunOutcome's message) call the options
// they are about, so that an error points at what the caller wrote: by default this API's own fields; the C API names
// its functions, the command line its flags. A message names an entry as NAME 'ENTRY': "--nn-preload 'm:onnx:...'".
struct OptionNames {
  std::string preload = "HostOptions::preloads";
  // Per entry of preloads: when given and not empty, what names that entry instead of `preload`
  // (the command line's config file: "FILE:LINE: \"nn-preload\"").
  std::vector<std::string> preload_sources;
  std::string wasmtime_graph = "HostOptions::wasmtime_graphs";
  std::string backend_config = "HostOptions::backend_configs";
  std::string isolate_loads = "HostOptions::isolate_loads";
  std::string timeout = "HostOptions::timeout_ms";
  std::string max_memory = "HostOptions::max_memory_bytes";
  std::string wasi_p3 = "HostOptions::wasi_p3";  // what turned WASI 0.3 off (in its refusal)
  std::string component_model_async = "HostOptions::component_model_async";  // likewise, the async ABI
  std::string invoke = "Program::invoke";
  std::string listen = "HostOptions::network.listen";
  std::string connect = "HostOptions::network.connect";
};

// What a core module's sockets may reach. wasinn serves WasmEdge's socket ABI (sock_open,
// sock_bind, ... in wasi_snapshot_preview1, as LlamaEdge's llama-api-server imports it) to the
// modules that import it; with nothing here their bind, connect and name lookups are refused
// (ACCES, and a log line naming the option that allows them). Bad entries fail Host::create.
struct NetworkOptions {
  // ADDR:PORT a guest may bind and listen on: ADDR an IPv4 address, [IPv6] or localhost; PORT a
  // number or * (any port, including one the system picks).
  std::vector<std::string> listen;
  // HOST[:PORT] a guest may connect to: an address, [IPv6] or a name (resolved when the Host is
  // created, and the one kind of name a guest may look up, with localhost); no PORT: any port.
  std::vector<std::string> connect;
};

struct HostOptions {
  // Empty: $WASINN_BACKEND_PATH, then wasinn/backends/ beside libwasinn.so (<libdir>/wasinn/backends).
  std::vector<std::string> backend_dirs;
  std::map<std::string, std::string> backend_configs;  // backend name -> JSON for that backend
  std::vector<std::string> preloads;                   // NAME:ENCODING:TARGET:PATH[:PATH...]
  std::vector<std::string> wasmtime_graphs;            // Wasmtime's nn-graph ENCODING::DIR
  Limits limits;
  // Stops a guest whose run (or exported call) lasts longer, via Wasmtime's epoch
  // interruption; 0: no limit. Time spent inside a host call counts too, but the guest is
  // stopped only once it runs wasm code again (use limits.max_compute_ms for computes).
  uint64_t timeout_ms = 0;
  // Loads with a backend whose framework is known to crash on some malformed models (manifest
  // "isolate_load": true: llama.cpp, whisper.cpp, LiteRT, libtorch) first run in a child process,
  // wasinn-load-check, so that a crash there refuses the model instead of ending the host.
  // "auto" (those backends), "always" (every backend) or "never".
  std::string isolate_loads = "auto";
  // The child's address-space limit (RLIMIT_AS) in MiB; 0: 3072 + 4 x the model's size in MiB.
  uint64_t isolated_load_max_mb = 0;
  // The child's time limit in ms (killed then, and the model refused); 0: none. A served
  // request's deadline ends it sooner.
  uint64_t isolated_load_timeout_ms = 300'000;
  // Where those checks' verdicts are kept, so a model is checked once: "" for ~/.cache/wasinn/
  // load-checks (or under $XDG_CACHE_HOME), a directory, "memory" (this process) or "off".
  std::string isolated_load_cache;
  // The most bytes one linear memory of a guest may grow to (memory.grow fails beyond it, as
  // with Wasmtime's -W max-memory-size); 0: no limit.
  uint64_t max_memory_bytes = 0;
  // WASI 0.3's APIs (a @0.3 interface, and wasinn:nn-async, which needs 0.3's async calls);
  // false: a component importing or exporting one is refused (RunOutcome exit code 2, naming
  // option_names.wasi_p3), where Wasmtime's -S p3=n leaves its imports unserved. A component
  // whose only 0.3 feature is an async function runs, as on Wasmtime.
  bool wasi_p3 = true;
  // The component model's async ABI; false: every 0.3 component, and any component with an
  // async function, is refused (exit code 2, naming option_names.component_model_async), where
  // Wasmtime's -W component-model-async=n fails to compile it.
  bool component_model_async = true;
  // The most entries a guest's resource tables may hold at once (WASI's handles, a 0.3
  // component's tasks, streams and futures), as Wasmtime's -S max-resources: the call that
  // would create one more fails, ending the guest. 0: no bound.
  size_t max_resources = 0;
  // The most threads one wasi-threads guest may have spawned and running at once (beyond it,
  // wasi.thread-spawn returns an error to the guest).
  size_t max_threads = 64;
  // Where compiled guests are kept so the next run of the same module skips compiling (as
  // Wasmtime's default cache): "" for ~/.cache/wasinn/modules (or under $XDG_CACHE_HOME), a
  // directory, or "off". Used only if no other user can write it.
  std::string module_cache;
  // When set, wasinn's log lines (its own and the frameworks', info and above, the bare message)
  // go here instead of stderr, from whichever thread logs, one call at a time, from create until
  // the Host is destroyed. wasinn has one logger per process: while several Hosts have a
  // callback, each gets every line. The callback must not throw.
  std::function<void(LogLevel level, std::string_view message)> log;
  // What core modules' sockets (WasmEdge's socket ABI) may reach: nothing by default.
  NetworkOptions network;
  // Models loaded at their first use instead of a server's start, and unloaded again (`wasinn
  // serve --models-dir`): GGUF models registered by name here (a name may hold ':', which a
  // preload's cannot), preloads named in `names`, and the rules that keep them (0: no limit).
  // Past max_loaded the least recently used idle one is unloaded; one unused for idle_timeout_ms
  // is unloaded; a load whose estimate does not fit memory_limit_bytes (with those loaded), the
  // memory available or the cgroup's limit is refused (docs/serving.md, "Many models").
  struct OnDemandModels {
    struct Gguf {
      std::string name;
      std::vector<std::string> files;  // a split GGUF: its parts, in order
    };
    std::vector<Gguf> gguf;
    std::vector<std::string> names;
    size_t max_loaded = 0;
    uint64_t idle_timeout_ms = 0;
    uint64_t memory_limit_bytes = 0;
  } on_demand_models;
  OptionNames option_names;
};

}  // namespace wasinn
