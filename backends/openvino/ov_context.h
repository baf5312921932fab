// One execution context: its own ov::InferRequest on the graph's shared compiled model.
//
// Copies: set_input copies the guest's bytes once, straight into the infer request's own input
// tensor (so OpenVINO reads them in place and nothing points into guest memory afterwards);
// get_output returns a view of the request's output tensor, which the host copies once into
// guest memory. Used by one thread at a time, except cancel().
#pragma once

#include <openvino/runtime/infer_request.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "ov_error.h"

struct wasinn_graph;

struct wasinn_context {
  wasinn_graph *graph = nullptr;  // not owned; released after its contexts
  ov::InferRequest request;
  std::vector<bool> input_set;    // per input: set since the context was made
  ov::Shape scratch_shape;        // reused by set_input, so a repeated shape allocates nothing
  // Per output: the tensor of the last compute a returned view points into (held so the view
  // stays valid whatever the request does with its own reference) and its dims as u32.
  std::vector<ov::Tensor> held_outputs;
  std::vector<std::vector<uint32_t>> output_dims;
  bool has_outputs = false;
  std::atomic<bool> cancel_requested{false};
};

namespace wasinn_ov {

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out);
Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor);
Error compute(wasinn_context &ctx);
Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out);
// Asks a running compute to stop; it then fails with WASINN_TIMEOUT. Callable from any thread.
void cancel(wasinn_context &ctx) noexcept;

}  // namespace wasinn_ov
