// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One inference session of a graph: its own ov::InferRequest on the graph's shared compiled model.
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

#include "ov_exception.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::openvino {

class OvGraph;

class OvContext {
 public:
  static Error create(OvGraph& graph, std::unique_ptr<OvContext>& out);

  WASINN_SDK_CONTEXT()
  // Asks a running compute to stop; it then fails with WASINN_TIMEOUT. Callable from any thread.
  void cancel() noexcept;

 private:
  OvGraph* graph_ = nullptr;  // released after its contexts
  ov::InferRequest request_;
  std::vector<bool> input_set_;  // per input: set since the context was made
  ov::Shape scratch_shape_;      // reused by set_input, so a repeated shape allocates nothing
  // Per output: the tensor of the last compute a returned view points into (held so the view
  // stays valid whatever the request does with its own reference) and its dims as u32.
  std::vector<ov::Tensor> held_outputs_;
  std::vector<std::vector<uint32_t>> output_dims_;
  bool has_outputs_ = false;
  // Set by cancel() so compute can tell "stopped because we asked" (TIMEOUT) from a failure.
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace wasinn::openvino
