// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One inference session of a graph: owned copies of its inputs, the outputs of its last run and
// the OrtRunOptions through which cancel() stops a running compute. Used by one thread at a time,
// except cancel().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "input_buffers.h"
#include "ort_api.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::onnxruntime {

class OrtGraph;

struct InputSlot {
  InputBuffer buffer;
  std::vector<int64_t> dims;  // shape of `value`
  ValuePtr value;             // tensor over buffer; null until the input is set
};

class OrtContext {
 public:
  static Error create(OrtGraph& graph, std::unique_ptr<OrtContext>& out);
  OrtContext() = default;
  OrtContext(const OrtContext&) = delete;
  OrtContext& operator=(const OrtContext&) = delete;
  // Its input buffers go to the graph's spares, for the graph's next context.
  ~OrtContext();

  WASINN_SDK_CONTEXT()
  void cancel() noexcept;

 private:
  void clear_outputs();

  OrtGraph* graph_ = nullptr;  // released after all its contexts
  std::vector<InputSlot> inputs_;
  // Run() wants parallel arrays; these alias inputs_[i].value and the owned outputs.
  std::vector<const OrtValue*> input_values_;
  std::vector<OrtValue*> outputs_;  // owned, released by clear_outputs()
  // The uint32 dims that get_output views point into, one vector per output.
  std::vector<std::vector<uint32_t>> output_dims_;
  bool has_outputs_ = false;

  RunOptionsPtr run_options_;
  // Set by cancel() so compute can tell "ORT stopped because we asked" (TIMEOUT) from a real
  // failure; ORT reports both as a plain error status.
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace wasinn::onnxruntime
