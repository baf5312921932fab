// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The inputs and outputs of one SignatureDef of a SavedModel, read from the serialized
// MetaGraphDef that TF_LoadSessionFromSavedModel returns.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wasinn/plugin_sdk/error.hpp"

namespace wasinn::tensorflow {

using sdk::Error;

struct TensorSpec {
  std::string key;            // the signature's name for it, e.g. "x"
  std::string tensor;         // the graph tensor, "serving_default_x:0"
  int dtype = 0;              // TF_DataType
  int32_t rank = -1;          // -1: unknown rank
  std::vector<int64_t> dims;  // -1: unknown size
  bool dense = true;          // false for sparse and composite tensors, which wasinn cannot carry
};

struct Signature {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

// Finds signature `key` in a MetaGraphDef. NOT_FOUND names the signatures the model has;
// INVALID_ARGUMENT means the bytes are not a well-formed MetaGraphDef.
Error read_signature(std::span<const uint8_t> meta_graph_def, const std::string& key, Signature& out);

}  // namespace wasinn::tensorflow
