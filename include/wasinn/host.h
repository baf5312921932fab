// wasinn embedding API: run WebAssembly programs whose wasi-nn imports wasinn serves.
//
// A Host owns the engine, the backend catalog and the named models; create one per process
// and reuse it. Host is thread-safe: several threads may run programs at once, and named
// models are loaded once and shared by all of them. A Program is a plain description.
// An Instance is one instantiated program; use it from one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "wasinn/limits.h"

namespace wasinn {

struct HostOptions {
  std::vector<std::string> backend_dirs;              // empty: $WASINN_BACKEND_PATH, then <exe>/../lib/wasinn/backends
  std::map<std::string, std::string> backend_configs;  // backend name -> JSON for that backend
  std::vector<std::string> preloads;                   // NAME:ENCODING:TARGET:PATH[:PATH...]
  std::vector<std::string> wasmtime_graphs;            // Wasmtime's nn-graph ENCODING::DIR
  Limits limits;
  // Stops a guest whose run (or exported call) lasts longer, via Wasmtime's epoch
  // interruption; 0: no limit. Time spent inside a host call counts too, but the guest is
  // stopped only once it runs wasm code again (use limits.max_compute_ms for computes).
  uint64_t timeout_ms = 0;
  // Loads with a backend whose framework is known to crash on some malformed models (manifest
  // "isolate_load": true: llama.cpp, LiteRT, libtorch) first run in a child process,
  // wasinn-load-check, so that a crash there refuses the model instead of ending the host.
  // "auto" (those backends), "always" (every backend) or "never".
  std::string isolate_loads = "auto";
  // The child's address-space limit (RLIMIT_AS) in MiB; 0: 3072 + 4 x the model's size in MiB.
  uint64_t isolated_load_max_mb = 0;
};

struct Program {
  std::string wasm_path;
  std::vector<std::string> args;  // argv[1..]; argv[0] is the module's file name
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::pair<std::string, std::string>> dirs;  // host directory -> guest path
};

struct RunOutcome {
  int exit_code = 0;     // the guest's exit code; 128+ for host-side failures
  bool trapped = false;  // the guest trapped (message holds the wasm backtrace)
  std::string message;   // empty on a normal exit
};

struct BackendStatus {
  std::string name;
  std::vector<std::string> encodings;
  std::string library;
  bool loadable = false;
  std::string framework_version;
  std::string problem;
};

struct TensorInfo {
  std::string name;
  std::string type;         // "f32", ...; "?" for a type no guest ABI can express
  bool rank_known = false;
  std::vector<int64_t> dims;  // -1 for a dynamic dimension
};

struct ModelInfo {
  std::string backend;
  std::string framework_version;
  std::string encoding;
  std::vector<TensorInfo> inputs;   // in index order, as guests address them
  std::vector<TensorInfo> outputs;
};

class Instance;

class Host {
 public:
  // Returns nullptr and sets *error when an option is invalid (a bad preload, say).
  static std::unique_ptr<Host> create(HostOptions options, std::string* error);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Instantiates the program and runs its `_start` to completion.
  RunOutcome run(const Program& program);

  // Instantiates the program without running it, to call its exports (nullptr on error).
  std::unique_ptr<Instance> instantiate(const Program& program, std::string* error);

  // Every backend plugin found, loading each to report its version or why it cannot load.
  std::vector<BackendStatus> probe_backends();
  // Loads a model registered by name (preloads) or from files, and describes its declared
  // inputs and outputs in the index order guests use. encoding may be "autodetect".
  bool inspect_model(const std::vector<std::string>& name_or_paths, const std::string& encoding,
                     ModelInfo* out, std::string* error);
  // The directories searched for backend manifests, in order.
  std::vector<std::string> backend_search_dirs() const;

  struct Impl;

 private:
  explicit Host(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Instance {
 public:
  ~Instance();
  // Calls an export taking no arguments and returning nothing or one i32.
  // Returns false and sets *error on a trap or a missing export.
  bool call(const std::string& export_name, int32_t* result, std::string* error);

  struct Impl;
  explicit Instance(std::unique_ptr<Impl> impl);

 private:
  friend class Host;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wasinn
