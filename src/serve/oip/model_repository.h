// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `--model-repository DIR`: Triton's layout, DIR/NAME/VERSION/model.* (VERSION a number; the
// highest is served, as Triton's default version policy; a model.wasm there is a pipeline
// component, served as --pipeline NAME=... is), with an optional DIR/NAME/config.json:
//   {"encoding": "onnx", "target": "cpu", "config": {...}, "max_batch_size": 16, "max_queue_delay_us": 2000}
// encoding and target as --nn-preload takes them (default: autodetect from the files, cpu);
// config: the graph config handed to the backend at load (a JSON object or string), as a
// guest's load-by-name config; max_batch_size (0 or absent: off) and max_queue_delay_us: dynamic
// batching (dynamic_batcher.h). Read once at start; nothing here loads a model.
//
// A DIR/NAME/config.pbtxt (Triton's own model configuration) is read too (triton_config.h), before
// config.json, whose keys win where both set one.
//
// Or flat: DIR holding one model's files directly (DIR/model.onnx, DIR/model.xml + model.bin, a
// SavedModel, a model.wasm pipeline; an optional DIR/config.json as above), which is what KServe's
// storage initializer leaves in /mnt/models for a storageUri naming a single file. Served as version
// 1 under the name the caller gives (--model-name; KServe passes the InferenceService's name), else
// the file's name without its extension ("model" for a SavedModel).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model_registry.h"
#include "serve/oip/dynamic_batcher.h"
#include "serve/oip/triton_config.h"

namespace wasinn::oip_server {

struct RepositoryModel {
  NamedModel model;                // registered under its directory's name
  std::string version;             // the VERSION directory served
  std::string config;              // the graph config, "" for none
  std::filesystem::path pipeline;  // VERSION/model.wasm: a pipeline component (model is unused)
  BatchingOptions batching;        // max_batch_size 0: none
  bool flat = false;               // DIR's own files (no NAME/VERSION directories)
  // NAME/config.pbtxt (triton_config.h): the inputs and outputs it declares, checked once the
  // model loads, and the fields of it wasinn ignores (warned at start).
  std::optional<TritonIo> triton_io;
  std::vector<std::string> ignored_fields;
};

// One entry per model directory, or the one entry of a flat DIR (named flat_name, "" for the
// default). A directory that is not a model (no numeric version with a model file in it), a
// config.json that does not parse, several model files directly in DIR, or model files beside
// NAME/VERSION directories is an error naming them and saying what to do.
Result<std::vector<RepositoryModel>> scan_model_repository(const std::filesystem::path& dir,
                                                           const std::string& flat_name = "");

}  // namespace wasinn::oip_server
