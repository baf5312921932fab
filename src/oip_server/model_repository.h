// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `--model-repository DIR`: Triton's layout, DIR/NAME/VERSION/model.* (VERSION a number; the
// highest is served, as Triton's default version policy; a model.wasm there is a pipeline
// component, served as --pipeline NAME=... is), with an optional DIR/NAME/config.json:
//   {"encoding": "onnx", "target": "cpu", "config": {...}, "max_batch_size": 16, "max_queue_delay_us": 2000}
// encoding and target as --nn-preload takes them (default: autodetect from the files, cpu);
// config: the graph config handed to the backend at load (a JSON object or string), as a
// guest's load-by-name config; max_batch_size (0 or absent: off) and max_queue_delay_us: dynamic
// batching (dynamic_batcher.h). Read once at start; nothing here loads a model.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model_registry.h"
#include "oip_server/dynamic_batcher.h"

namespace wasinn::oip_server {

struct RepositoryModel {
  NamedModel model;    // registered under its directory's name
  std::string version;  // the VERSION directory served
  std::string config;   // the graph config, "" for none
  std::filesystem::path pipeline;  // VERSION/model.wasm: a pipeline component (model is unused)
  BatchingOptions batching;  // max_batch_size 0: none
};

// One entry per model directory; a directory that is not a model (no numeric version with a
// model file in it) or a config.json that does not parse is an error naming it.
Result<std::vector<RepositoryModel>> scan_model_repository(const std::filesystem::path& dir);

}  // namespace wasinn::oip_server
