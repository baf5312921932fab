// One inference session of a graph: owned copies of its inputs, the outputs of its last run and
// the OrtRunOptions through which cancel() stops a running compute.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "ort_api.h"
#include "ort_graph.h"

namespace wasinn_ort {

// Host memory for one input, 64-byte aligned so ORT's vectorised kernels read it at full speed.
struct AlignedFree {
  void operator()(std::byte *p) const { ::operator delete[](p, std::align_val_t{64}); }
};
using AlignedBytes = std::unique_ptr<std::byte[], AlignedFree>;

struct InputSlot {
  AlignedBytes buffer;
  size_t capacity = 0;        // bytes allocated in buffer
  std::vector<int64_t> dims;  // shape of `value`
  ValuePtr value;             // tensor over buffer; null until the input is set
};

}  // namespace wasinn_ort

struct wasinn_context {
  wasinn_graph *graph = nullptr;  // not owned; released after all its contexts
  std::vector<wasinn_ort::InputSlot> inputs;
  // Run() wants parallel arrays; these alias inputs[i].value and the owned outputs.
  std::vector<const OrtValue *> input_values;
  std::vector<OrtValue *> outputs;  // owned, released by clear_outputs()
  // The uint32 dims that get_output views point into, one vector per output.
  std::vector<std::vector<uint32_t>> output_dims;
  bool has_outputs = false;

  wasinn_ort::RunOptionsPtr run_options;
  // Set by cancel() so compute can tell "ORT stopped because we asked" (TIMEOUT) from a real
  // failure; ORT reports both as a plain error status.
  std::atomic<bool> cancel_requested{false};

  wasinn_context() = default;
  wasinn_context(const wasinn_context &) = delete;
  wasinn_context &operator=(const wasinn_context &) = delete;
  ~wasinn_context() { clear_outputs(); }

  void clear_outputs();
};

namespace wasinn_ort {

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out);
Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor);
Error compute(wasinn_context &ctx);
Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out);
void cancel(wasinn_context &ctx);

}  // namespace wasinn_ort
