// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where a graph's GGUF comes from. llama.cpp loads from files, and memory-maps them, so:
//  - a preloaded model (the host passes the file's path) is opened by path: mapped, not copied;
//  - `preload:<path>` text in builder 0 (WasmEdge's form) names a host file, if the backend
//    config allows guests to name host paths;
//  - GGUF bytes from the guest are copied once into an anonymous in-memory file (memfd) that
//    llama.cpp then maps, so no temp file touches the disk.
// A trailing builder holding a JSON object is the load config (WasmEdge's convention). A preload's
// last file that is a projector GGUF (--nn-preload NAME:GGML:AUTO:model.gguf:mmproj.gguf) is the
// graph's projector, and one that is a WavTokenizer decoder (model.gguf:vocoder.gguf) its vocoder
// (text to speech on): the operator named them, so they need no allow-preload-paths.
#pragma once

#include <string>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"
#include "wasinn/plugin_sdk/load_request.hpp"

namespace wasinn::llamacpp {

using sdk::Error;

class ModelSource {
 public:
  ModelSource() = default;
  ~ModelSource();
  ModelSource(const ModelSource&) = delete;
  ModelSource& operator=(const ModelSource&) = delete;

  // The GGUF file, or its split parts in order.
  const std::vector<std::string>& paths() const { return paths_; }
  // JSON config texts in the order to apply them (request config, then a config builder).
  const std::vector<std::string>& configs() const { return configs_; }
  // The projector the host preloaded with the model ("" when none).
  const std::string& projector() const { return projector_; }
  // The vocoder the host preloaded with the model ("" when none).
  const std::string& vocoder() const { return vocoder_; }
  // For messages: the file name, or "<N bytes from the guest>".
  const std::string& description() const { return description_; }

  // Fills `out` from a load request. allow_host_paths: accept `preload:<path>` from a guest.
  friend Error resolve_model_source(const sdk::LoadRequest& request, bool allow_host_paths, ModelSource& out);

 private:
  std::vector<std::string> paths_;
  std::vector<std::string> configs_;
  std::string projector_;
  std::string vocoder_;
  std::string description_;
  int memfd_ = -1;  // owns the in-memory copy of guest bytes; closed once llama.cpp mapped it
};

Error resolve_model_source(const sdk::LoadRequest& request, bool allow_host_paths, ModelSource& out);

}  // namespace wasinn::llamacpp
