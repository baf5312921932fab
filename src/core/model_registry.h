// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ModelRegistry: models registered by name by the host (--nn-preload, the embedding API),
// for load_by_name. Each (name, config) pair is loaded at most once at a time and the Graph
// is shared by every guest that asks for it; files are memory-mapped, not copied. The graph of
// the empty config lives as long as the registry; one of a guest-chosen config lives only while
// a guest holds it, so guests cannot grow the host by asking for ever new configs.
// Thread-safe: concurrent first requests for one model wait for a single load.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
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

  // The shared graph for (name, config), loading it with `loader` on first use.
  Result<std::shared_ptr<Graph>> get(std::string_view name, std::string_view config, const GraphLoader& loader);

 private:
  struct Entry {
    NamedModel model;
    std::mutex load_mu;                    // held while loading, so one model is never loaded twice at once
    std::shared_ptr<Graph> default_graph;  // config ""
    std::map<std::string, std::weak_ptr<Graph>, std::less<>> by_config;
  };
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;
};

}  // namespace wasinn
