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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasinn/limits.h"
#include "wasinn/request_record.h"

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
  // "isolate_load": true: llama.cpp, LiteRT, libtorch) first run in a child process,
  // wasinn-load-check, so that a crash there refuses the model instead of ending the host.
  // "auto" (those backends), "always" (every backend) or "never".
  std::string isolate_loads = "auto";
  // The child's address-space limit (RLIMIT_AS) in MiB; 0: 3072 + 4 x the model's size in MiB.
  uint64_t isolated_load_max_mb = 0;
  // Where those checks' verdicts are kept, so a model is checked once: "" for ~/.cache/wasinn/
  // load-checks (or under $XDG_CACHE_HOME), a directory, "memory" (this process) or "off".
  std::string isolated_load_cache;
  // The most bytes one linear memory of a guest may grow to (memory.grow fails beyond it, as
  // with Wasmtime's -W max-memory-size); 0: no limit.
  uint64_t max_memory_bytes = 0;
  // WASI 0.3 components (and wasinn:nn-async, which needs 0.3's async calls); false: such a
  // component is refused (RunOutcome exit code 2, naming option_names.wasi_p3), as Wasmtime's
  // -S p3=n / -W component-model-async=n leave its imports unserved.
  bool wasi_p3 = true;
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
  OptionNames option_names;
};

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

struct ServeOptions {
  // HOST:PORT; port 0: any free port. Loopback unless told otherwise: an unauthenticated server
  // is on the network only when asked (0.0.0.0:8080, as `wasmtime serve`'s default, is not).
  std::string address = "127.0.0.1:8080";
  size_t workers = 0;                        // guests that run at once; 0: the machine's cores
  size_t max_queue = 64;                     // requests that wait for a worker; past it 503 + Retry-After
  uint64_t request_timeout_ms = 0;           // 0: none; past it 504, and the guest is stopped
  uint64_t max_request_bytes = 64ull << 20;  // past it 413 before the guest runs; 0: no limit
  // Instances from preallocated slots (Wasmtime's pooling allocator, as `wasmtime serve`), not
  // mapped afresh for each request.
  bool pooling_allocator = true;
  // Called once per request when its answer is sent (or the client left), from the server's
  // threads, several at once; must be thread-safe and must not throw.
  std::function<void(const RequestRecord&)> on_request;
  // Empty: no key needed. Else every request but /healthz and /readyz is asked whether its
  // Authorization header's value ("" when absent) holds a key, and answered 401 when not; the
  // guest never sees the header. From the server's threads; must be thread-safe, not throw.
  std::function<bool(std::string_view authorization)> authorize;
  // Or, with no authorize, the keys `wasinn serve --api-key` and `--api-key-file` take: these keys
  // and the files' (one a line; blank lines and '#' comments skipped), compared in constant time.
  // A file that cannot be read or holds no key is serve's error; Server::reload_api_keys rereads them.
  std::vector<std::string> api_keys, api_key_files;
  // Request headers must arrive within it (an idle keep-alive connection too), and a body at
  // 1 KiB/s or more past it; else the connection is closed (408 for a body). 0: no limit.
  uint64_t header_timeout_ms = 10000;
  size_t max_connections = 1024;  // open at once; past it a new one is closed at once (counted); 0: no limit
  // HTTPS (HTTP/2 or HTTP/1.1 by ALPN): PEM files of the certificate chain and its private key
  // (both empty: plain HTTP); client certificates signed by the CAs of tls_client_ca are
  // required when it is given. A bad or mismatched file is serve's error, naming it.
  std::string tls_cert, tls_key, tls_client_ca;
  // A wasi:http@0.3 component's instances are reused, as `wasmtime serve` 48+ does: each takes at
  // most this many requests in all (0: Wasmtime's 128; 1: a fresh instance per request, for
  // isolation) and this many at once (0: Wasmtime's 16), and an idle one is dropped after
  // idle_instance_timeout_ms (0: Wasmtime's 1 s). A 0.2 component gets a fresh instance per request.
  size_t max_instance_reuse_count = 0;
  size_t max_instance_concurrent_reuse_count = 0;
  uint64_t idle_instance_timeout_ms = 0;
};

class Server;
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
  // host. The Host must outlive the Server.
  std::unique_ptr<Server> serve(const Program& program, const ServeOptions& options, std::string* error);
  // The guest's NN_OPTIONS (--env NN_OPTIONS=JSON, the properties http_openai sets on each of a
  // model's contexts) against every registered GGML model's settable properties, loading them:
  // false with `error` naming the key and the nearest valid one, or the value a model refuses.
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

// A running server (Host::serve). stop() may be called from any thread (not from a signal
// handler); wait() and the destructor from the thread that owns it.
class Server {
 public:
  ~Server();  // stops at once, cutting answers in progress, unless wait() has returned
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  const std::string& address() const;  // HOST:PORT it listens on
  // Stops accepting connections; answers in progress go on, /readyz answers 503.
  void stop();
  // Blocks until stop() is called, then waits up to grace_ms for the answers in progress.
  // Returns how many were cut (0: all finished).
  uint64_t wait(uint64_t grace_ms);
  // Its request metrics (count by status, latency, in flight, queued, rejected) as Prometheus
  // text; any thread.
  std::string metrics_text() const;
  // Rereads ServeOptions::api_key_files (its api_keys stay), as `wasinn serve` on SIGHUP; any
  // thread. The keys in use after it, or nullopt and *error (the keys in use then stay; a server
  // given no keys has none to reload).
  std::optional<size_t> reload_api_keys(std::string* error);

  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);

 private:
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
