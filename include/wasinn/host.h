// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// wasinn embedding API: run WebAssembly programs whose wasi-nn imports wasinn serves.
//
// A Host owns the engine, the backend catalog and the named models; create one per process
// and reuse it. Host is thread-safe: several threads may run programs at once, and named
// models are loaded once and shared by all of them. A Program is a plain description.
// An Instance is one instantiated program; use it from one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasinn/host_options.h"

namespace wasinn {

// Module files larger than this are refused before they are read.
inline constexpr uint64_t kMaxModuleBytes = 1ull << 30;

struct Program {
  // The program: a core module or a component (told apart from the binary), as binary .wasm or
  // text .wat. A core module is served WASI preview 1 and the witx wasi-nn ABIs; a component
  // WASI 0.2 (any 0.2.x it imports) and wasi:nn's WIT interface (0.2.0-rc-2024-10-28, -08-19,
  // -06-25). Anything else (a directory, a file that is not WebAssembly, a truncated or
  // oversized one) is an error in RunOutcome, never an abort.
  std::string wasm_path;
  // When set, the module's bytes (binary or text) instead of reading wasm_path, which then only
  // names the module in messages (e.g. "-" for a module read from stdin).
  std::optional<std::vector<uint8_t>> wasm_bytes;
  std::vector<std::string> args;  // argv[1..]
  std::string argv0;              // argv[0]; empty: wasm_path's file name
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::pair<std::string, std::string>> dirs;  // host directory -> guest path
  // Empty: run the command's `_start` (a component's `wasi:cli/run`). Otherwise call this export
  // instead (after `_initialize`, if a module has one, as for a reactor); args are then its
  // parameters, converted to the parameter types (integers and floats; a component's function
  // takes none), and its results come back in RunOutcome::results.
  std::string invoke;
  // The guest's standard streams; by default the host process's own. stdin_bytes: what the
  // guest reads on stdin (then it never reads the host's). on_stdout, on_stderr: called with
  // each of the guest's writes, on the thread running the guest (a copy is kept as long as the
  // Instance lives); a callback that throws fails that write with EIO. In a wasi-threads guest
  // each thread writes through its own copy, from its own host thread: such a callback must be
  // thread-safe, and stdin_bytes is given whole to each thread.
  std::optional<std::string> stdin_bytes;
  std::function<void(std::string_view)> on_stdout;
  std::function<void(std::string_view)> on_stderr;
};

struct RunOutcome {
  // The guest's exit code; 1 when the module cannot be read, compiled or instantiated (or the
  // export to run is missing): message says why; 2 when an option refuses it (wasi_p3 false
  // and a WASI 0.3 component), as a usage error; 134 for a trap; 128 for an exit status
  // WASI cannot carry (126 and above).
  int exit_code = 0;
  bool trapped = false;  // the guest trapped (message holds the wasm backtrace)
  std::string message;   // empty on a normal exit
  // With Program::invoke: the function's results, one per value, as Wasmtime's CLI prints them.
  std::vector<std::string> results;
  // wasi-threads guests: threads that had not stopped shortly after the guest ended (parked in
  // memory.atomic.wait, which nothing interrupts, or blocked reading stdin). They hold their own
  // state and end on their own; a program that exits now should not wait for them.
  size_t unstopped_threads = 0;
};

// A device a backend found, for `wasinn backends --check`.
struct DeviceInfo {
  std::string name;           // the framework's name for it
  std::string api;            // how the backend reaches it: "Vulkan", "CUDA", "CPU", ...
  uint64_t memory_bytes = 0;  // 0 when unknown
  std::string target;         // the target it serves: "cpu", "gpu", "tpu"
};

struct BackendStatus {
  std::string name;  // "(bad manifest)" for a manifest that cannot be read: problem says why
  std::vector<std::string> encodings;
  std::string library;
  std::string manifest;        // the manifest file
  bool library_found = false;  // the plugin file exists (looked up without loading it)
  bool isolate_load = false;   // its loads are checked in a child first (--isolate-loads auto)
  // The keys its backend config takes (--backend-config NAME=JSON); nullopt when its manifest
  // does not say, and then any key is passed on unchecked.
  std::optional<std::vector<std::string>> config_keys;
  // Filled by probe_backends only, which loads the plugin.
  bool checked = false;
  bool loadable = false;
  std::string framework_version;
  std::string description;          // what the backend found: accelerators, delegates, the target each serves
  std::vector<DeviceInfo> devices;  // the devices it found (empty when the plugin does not say)
  // The targets it cannot serve ("gpu", "tpu"), each with the backend's reason.
  std::vector<std::pair<std::string, std::string>> unavailable_targets;
  std::string problem;
};

struct TensorInfo {
  std::string name;
  std::string type;  // "f32", ...; "?" for a type no guest ABI can express
  bool rank_known = false;
  std::vector<int64_t> dims;   // -1 for a dynamic dimension
  std::string framework_type;  // the framework's own words when they say more ("TorchScript int"), or ""
};

// One property of a model as guests read it (wasinn:nn-ext's properties, docs/compatibility.md).
struct PropertyInfo {
  std::string name;
  std::string value;      // a settable knob's default
  bool settable = false;  // a guest may set it per graph handle or context
};

struct ModelInfo {
  std::string backend;
  std::string framework_version;
  std::string encoding;
  std::vector<std::string> files;  // what was loaded (a model directory resolved to its files)
  std::vector<TensorInfo> inputs;  // in index order, as guests address them
  std::vector<TensorInfo> outputs;
  std::string target;                    // the target it was loaded for
  std::string placement;                 // how the framework placed it (e.g. nodes per delegate), or ""
  std::vector<PropertyInfo> properties;  // facts (backend, device, the model's metadata), then knobs
};

class Server;  // wasinn/server.h, with ServeOptions: include it to serve
struct ServeOptions;
class Instance;

class Host {
 public:
  // Returns nullptr and sets *error when an option is invalid (a bad preload, say).
  static std::unique_ptr<Host> create(HostOptions options, std::string* error);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Instantiates the program and runs its `_start` (or Program::invoke) to completion. A module
  // that imports a shared memory is a wasi-threads guest: its threads share its wasi-nn handles,
  // and run returns when any of them exits or traps (see RunOutcome::unstopped_threads).
  RunOutcome run(const Program& program);

  // Instantiates the program without running it, to call its exports (nullptr on error).
  std::unique_ptr<Instance> instantiate(const Program& program, std::string* error);

  // Every backend plugin found, from the manifests alone: no plugin or framework is loaded.
  std::vector<BackendStatus> list_backends() const;
  // The same, loading each plugin to report its framework version or why it cannot load.
  std::vector<BackendStatus> probe_backends();
  // Loads a model registered by name (preloads) or from files, and describes its declared
  // inputs and outputs in the index order guests use. encoding may be "autodetect": then the
  // format is recognised from the path and bytes (an OpenVINO .xml finds its .bin, a directory
  // its model file, a SavedModel directory or frozen .pb is TensorFlow), or *error asks for
  // an encoding. target (cpu, gpu, tpu, auto) is what a file is loaded for; a registered
  // name keeps the target it was registered with.
  bool inspect_model(const std::vector<std::string>& name_or_paths, const std::string& encoding, ModelInfo* out,
                     std::string* error, const std::string& target = "cpu");
  // Serves a wasi:http/proxy component (one exporting wasi:http/incoming-handler@0.2.x) over
  // HTTP/1.1: each request gets a fresh instance, with the Host's named models shared by all,
  // each loaded before it listens (one that does not load is an error; a remote one a warning).
  // The program's env and dirs are every instance's; its args and invoke are not used. Returns
  // once it listens (nullptr and *error when the program is not such a component, an import is
  // not served, or the address cannot be bound). GET /healthz and /readyz are answered by the
  // host. The Host must outlive the Server. *exit_code, when given: 2 when an option refuses the
  // component (a WASI 0.3 one with HostOptions::wasi_p3 or component_model_async off), else 1.
  std::unique_ptr<Server> serve(const Program& program, const ServeOptions& options, std::string* error,
                                int* exit_code = nullptr);
  // The guest's NN_OPTIONS (--env NN_OPTIONS=JSON, the properties http_openai sets on each
  // context of a model that has them) against the settable properties of every model loaded at
  // start, loading them: false with `error` naming a key no model has and the nearest one that
  // some model has, or the value a model that has the key refuses.
  bool check_nn_options(const Program& program, std::string* error);
  // The directories searched for backend manifests, in order.
  std::vector<std::string> backend_search_dirs() const;
  // The wasi-nn metrics of every guest this Host has run or runs now, per backend and graph
  // (loads, computes, errors by code, compute latency, bytes in and out, live graphs and
  // contexts), as Prometheus text, exposition format 0.0.4 (docs/metrics.md lists them).
  // Callable from any thread, while guests run.
  std::string metrics_text() const;

  struct Impl;

 private:
  explicit Host(std::unique_ptr<Impl> impl);
  RunOutcome run_unguarded(const Program& program);
  // Host::instantiate's body; *exit_code: the RunOutcome exit code of a failure.
  std::unique_ptr<Instance> instantiate(const Program& program, std::string* error, int* exit_code);
  std::unique_ptr<Impl> impl_;
};

class Instance {
 public:
  ~Instance();
  // Calls an export taking no arguments and returning nothing or one i32 (for a component: a
  // root-level function returning nothing, an s32/u32, or a result, which gives 0 for ok and 1
  // for err). Returns false and sets *error on a trap or a missing export.
  bool call(const std::string& export_name, int32_t* result, std::string* error);

  struct Impl;
  explicit Instance(std::unique_ptr<Impl> impl);

 private:
  friend class Host;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wasinn
