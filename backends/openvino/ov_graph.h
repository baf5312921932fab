// A loaded model: one ov::CompiledModel shared by every context of the graph (each context has
// its own infer request), plus the declared inputs and outputs cached at load so io queries and
// set_input checks never call into OpenVINO.
#pragma once

#include <openvino/runtime/compiled_model.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ov_error.h"

struct wasinn_backend;

namespace wasinn_ov {

// One declared input or output, in the model's order.
struct IoDesc {
  std::string name;                // the port's first name; "" if it has none
  std::vector<std::string> names;  // every name of the port, for lookup by name
  ov::element::Type ov_type;
  int32_t type = WASINN_TYPE_UNKNOWN;  // wasinn_tensor_type
  int32_t rank = -1;                   // -1: dynamic rank
  std::vector<int64_t> dims;           // -1 for a dynamic dimension (io info)
  // Bounds of each dimension, for dims with a range like "1..8"; max -1 means unbounded.
  std::vector<int64_t> min_dims, max_dims;
  std::string declared;  // "f32 [?,64]", for details

  // Whether a guest tensor of this type and shape fits the declaration.
  bool accepts(int32_t type, const uint32_t *dims, uint32_t rank) const;
};

}  // namespace wasinn_ov

struct wasinn_graph {
  wasinn_backend *backend = nullptr;  // not owned; outlives every graph
  // The IR's weights, shared (not copied) by the model's constants, which a freshly compiled
  // model may keep using (empty when the model came from the cache): declared before
  // `compiled` so it is destroyed after it.
  ov::Tensor weights;
  // OpenVINO documents a compiled model as usable from many infer requests at once, so contexts
  // of this graph run in parallel without a lock; nothing here changes after load.
  ov::CompiledModel compiled;
  std::string device;  // "CPU", "GPU", "NPU" or "AUTO"
  bool cancellable = true;  // compute via start_async + wait (see "cancellable" in ov_config.h)
  std::vector<wasinn_ov::IoDesc> inputs;
  std::vector<wasinn_ov::IoDesc> outputs;

  const std::vector<wasinn_ov::IoDesc> &io(bool is_output) const { return is_output ? outputs : inputs; }
};

namespace wasinn_ov {

Error load_graph(wasinn_backend *backend, const wasinn_load_request *request,
                 std::unique_ptr<wasinn_graph> &out);

// Resolves a tensor id (index, or name when id->name != NULL) against the declared inputs or
// outputs. Unknown ids are INVALID_ARGUMENT naming the valid range or names.
Error resolve_id(const wasinn_graph &graph, bool is_output, const wasinn_tensor_id *id, size_t &index);

// `input 0 ("input")`, the prefix of every per-tensor detail.
std::string io_label(const wasinn_graph &graph, bool is_output, size_t index);

}  // namespace wasinn_ov
