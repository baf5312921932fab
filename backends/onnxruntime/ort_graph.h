// A loaded ONNX model: one OrtSession shared by all contexts of the graph, plus the declared
// inputs and outputs cached at load so io queries and set_input checks never call into ORT.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ort_api.h"

struct wasinn_backend;

namespace wasinn_ort {

// One declared input or output.
struct IoDesc {
  std::string name;
  ONNXType kind = ONNX_TYPE_UNKNOWN;  // tensor, sequence, map, ...
  ONNXTensorElementDataType onnx_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  int32_t type = WASINN_TYPE_UNKNOWN;  // wasinn_tensor_type
  int32_t rank = -1;                   // -1: no shape declared, or not a tensor
  std::vector<int64_t> dims;           // -1 for symbolic/dynamic dims

  // "f32 [-1, 64]", or a description of why no wasinn tensor fits ("a sequence").
  std::string describe() const;
};

}  // namespace wasinn_ort

struct wasinn_graph {
  wasinn_backend *backend = nullptr;  // not owned; outlives every graph
  // ORT documents OrtSession::Run as safe to call concurrently, so contexts of this graph run
  // in parallel without a lock; nothing in the graph is mutated after load.
  wasinn_ort::SessionPtr session;
  std::vector<wasinn_ort::IoDesc> inputs;
  std::vector<wasinn_ort::IoDesc> outputs;
  // NUL-terminated names in declared order, as Run wants them; point into inputs/outputs.
  std::vector<const char *> input_names;
  std::vector<const char *> output_names;

  const std::vector<wasinn_ort::IoDesc> &io(bool is_output) const {
    return is_output ? outputs : inputs;
  }
};

namespace wasinn_ort {

Error load_graph(wasinn_backend *backend, const wasinn_load_request *request,
                 std::unique_ptr<wasinn_graph> &out);

// Resolves a tensor id (index, or name when id->name != NULL) against the declared inputs or
// outputs. Unknown ids are INVALID_ARGUMENT naming the valid range or names.
Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id,
                 size_t &index);

// `input 0 ("input")`, the prefix of every per-tensor detail.
std::string io_label(const wasinn_graph &graph, bool is_output, size_t index);

}  // namespace wasinn_ort
