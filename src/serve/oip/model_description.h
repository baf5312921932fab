// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ModelDescription: what a served model declares (its platform, backend, inputs and outputs),
// whichever kind of model it is, and how the protocol says it: the OIP metadata and Triton's
// model configuration are both built from it, so the two cannot disagree. Plain values;
// stateless functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"
#include "oip/oip_types.h"
#include "serve/oip/dynamic_batcher.h"

namespace wasinn::oip_server {

// An input or output as the model declares it, under the name requests and answers use.
struct DeclaredTensor {
  std::string name;
  std::optional<TensorType> type;            // nullopt: a type no guest ABI expresses (BYTES)
  std::optional<std::vector<int64_t>> dims;  // nullopt: unknown rank, which no shape check holds to; -1: any size
  bool optional = false;                     // an input a request may leave out
};

struct ModelDescription {
  std::string platform;  // "wasinn_onnx", "wasinn_pipeline"
  std::string backend;   // Triton's backend field: the plugin's name, or "wasinn_pipeline"
  std::vector<DeclaredTensor> inputs, outputs;
};

// A tensor as Triton's model configuration lists it.
struct ConfigTensor {
  std::string name, data_type;  // "TYPE_FP32"
  std::vector<int64_t> dims;
  bool optional = false;
};
struct ModelConfigInfo {
  std::string name, platform, backend;
  std::vector<ConfigTensor> inputs, outputs;
  uint32_t max_batch_size = 0;  // dynamic batching: dims then leave out the batch dimension, as Triton's
  uint64_t max_queue_delay_us = 0;
};

// The OIP metadata of a model; name and version alone while it has no description (a graph not
// yet loaded).
oip::ModelMeta model_metadata(const std::string& name, const std::string& version, const ModelDescription* described);
// Triton's model configuration, in its batching form when `batching` is enabled.
ModelConfigInfo model_config(const std::string& name, const ModelDescription* described,
                             const BatchingOptions& batching);

// The OIP datatype of a wasinn type ("FP32"): what every message to a client calls a type.
std::string_view oip_type_name(TensorType type);
// The same, "BYTES" for a type no guest ABI expresses.
std::string oip_datatype(std::optional<TensorType> type);

}  // namespace wasinn::oip_server
