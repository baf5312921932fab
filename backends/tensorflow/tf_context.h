// One inference session of a graph: its input tensors and every output of its last compute.
// compute runs the session once and keeps all outputs, so reading several never re-runs it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tf_error.h"
#include "tf_handles.h"

struct wasinn_graph;

struct wasinn_context {
  wasinn_graph *graph = nullptr;  // not owned; outlives its contexts
  std::vector<wasinn_tf::TensorPtr> inputs;          // graph input order; null until set
  std::vector<std::vector<uint32_t>> input_dims;     // the shape of each input tensor
  std::vector<TF_Tensor *> input_values;             // views of `inputs`, for TF_SessionRun
  std::vector<wasinn_tf::TensorPtr> outputs;         // of the last compute
  std::vector<TF_Tensor *> output_values;            // TF_SessionRun's out-array, reused
  std::vector<std::vector<uint32_t>> output_dims;
  bool has_outputs = false;
  wasinn_tf::StatusPtr status;                       // reused by every run
};

namespace wasinn_tf {

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out);
Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor);
Error compute(wasinn_context &ctx);
Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out);

}  // namespace wasinn_tf
