// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ModelRegistry: models registered by name by the host (--nn-preload, the embedding API),
// for load_by_name. Each (name, config) pair is loaded at most once at a time and the Graph
// is shared by every guest that asks for it; files are memory-mapped, not copied. The graph of
// the empty config lives as long as the registry; one of a guest-chosen config lives only while
// a guest holds it, so guests cannot grow the host by asking for ever new configs.
// Thread-safe: concurrent first requests for one model wait for a single load.
// Models registered on demand (`serve --models-dir`) are managed further (ModelResidency): not
// loaded until asked for, unloaded again for room (the least recently used idle one past
// max_loaded), after idle_timeout, or when asked; a load that would not fit in memory is refused
// before it is tried. The rest stay as above.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/graph.h"
#include "core/types.h"

namespace wasinn {

struct NamedModel {
  std::string name;
  Encoding encoding = Encoding::autodetect;
  Target target = Target::cpu;
  std::vector<std::filesystem::path> paths;
  // Encoding remote only: where the model is served and how to reach it (a URL, or JSON with
  // "url" and options; backends/remote/config.h), handed to the backend as the model's one
  // builder. It may hold auth headers: never logged.
  std::string remote_spec;
  // Loaded at its first use, not at a server's start, and unloaded by ModelResidency's rules.
  bool on_demand = false;
};

// How models registered on demand are kept (`wasinn serve --models-max`, `--models-idle-timeout`,
// `--models-memory-limit`). Zeros: no limit.
struct ModelResidency {
  size_t max_loaded = 0;  // on-demand models loaded (or loading) at once
  std::chrono::milliseconds idle_timeout{0};
  // What their estimates (model_memory.h) may add up to; 0: only what the machine and cgroup have.
  uint64_t memory_limit_bytes = 0;
};

enum class ModelState { unloaded, loading, loaded };
std::string_view model_state_name(ModelState state);

struct ModelStatus {
  std::string name;
  ModelState state = ModelState::unloaded;
  bool on_demand = false;
  bool in_use = false;           // a guest holds its graph (or a context of it)
  uint64_t estimated_bytes = 0;  // model_memory.h's estimate; 0 for a remote model
};

// Parses WasmEdge's NAME:ENCODING:TARGET:PATH[:PATH...] (encoding and target case-insensitive),
// and NAME:remote:TARGET:SPEC, whose SPEC (the rest, colons and all) is a remote_spec.
Result<NamedModel> parse_preload_spec(std::string_view spec);

// Parses Wasmtime's nn-graph ENCODING::DIR: the name is DIR's base name and the files follow
// Wasmtime's conventions (model.xml + model.bin, model.onnx, model.pt; also model.tflite,
// model.gguf, and DIR itself for a TensorFlow SavedModel).
// Both parsers' error details are bare: the caller names the option that held the spec.
Result<NamedModel> parse_wasmtime_graph_spec(std::string_view spec);

// Loads a graph from builders. paths[i] is the file builder i was mapped from.
using GraphLoader = std::function<Result<std::shared_ptr<Graph>>(
    Encoding, Target, std::span<const std::span<const uint8_t>> builders, std::span<const std::filesystem::path> paths,
    std::string_view config)>;

class ModelRegistry {
 public:
  // Files are not opened until first use; the host checks they exist at start
  // (root/host_environment.cpp), and one gone since fails that load_by_name only (with
  // model_not_found for ggml, as WasmEdge's guests expect).
  Status add(NamedModel model);
  bool contains(std::string_view name) const;
  std::vector<NamedModel> list() const;

  // The shared graph for (name, config), loading it with `loader` on first use. An on-demand
  // model's default graph may first need room: the least recently used idle on-demand model is
  // unloaded past max_loaded, and none idle is too_large (the server's 503), as is a load whose
  // estimate does not fit in memory. `reason` says why it loads, for the log line ("request").
  Result<std::shared_ptr<Graph>> get(std::string_view name, std::string_view config, const GraphLoader& loader,
                                     std::string_view reason = "request");

  ~ModelRegistry();
  // Applies to every on-demand model from now on; an idle timeout starts a thread that checks
  // every quarter of it (at most every second) for models idle that long.
  void set_residency(ModelResidency residency);
  std::vector<ModelStatus> statuses() const;
  // Unloads an on-demand model's graph now: not_found for an unknown name, busy while a guest
  // holds it or it is loading, invalid_argument for a model not on demand; an unloaded model is
  // left so (ok).
  Status unload(std::string_view name, std::string_view reason);

 private:
  struct Entry {
    NamedModel model;
    std::mutex load_mu;                    // held while loading, so one model is never loaded twice at once
    std::shared_ptr<Graph> default_graph;  // config ""
    std::map<std::string, std::weak_ptr<Graph>, std::less<>> by_config;
    // On-demand models' residency, under mu_: state, the last time it was used (or seen in use).
    ModelState state = ModelState::unloaded;
    std::chrono::steady_clock::time_point last_used{};
    uint64_t estimated_bytes = 0;
  };
  Entry* find(std::string_view name, Error* missing) const;
  // Makes room for `entry` under max_loaded and the memory limits, marking it loading, or says why not.
  Status reserve(Entry& entry);
  // Unloads `entry` if it is loaded and idle (its load_mu free, no graph held outside): true if so.
  bool unload_if_idle(Entry& entry, std::string_view reason);
  void unload_idle_loop();

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;
  ModelResidency residency_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread idle_thread_;
};

}  // namespace wasinn
