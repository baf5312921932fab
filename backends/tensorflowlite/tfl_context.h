// One inference session of a graph: its own LiteRT compiled model (an interpreter is not safe
// to run from two threads), the host buffers LiteRT reads inputs from and writes outputs to,
// and the shapes those buffers currently have.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "tfl_error.h"
#include "tfl_handles.h"

struct wasinn_graph;

namespace wasinn_tfl {

// A host buffer wrapped as a LiteRT tensor buffer of the current shape.
struct Slot {
  HostMemory memory;
  size_t capacity = 0;
  TensorBufferPtr buffer;      // null until the first set_input / compute
  std::vector<uint32_t> dims;  // the shape `buffer` describes
  size_t bytes = 0;            // product(dims) * element size
};

}  // namespace wasinn_tfl

struct wasinn_context {
  wasinn_graph *graph = nullptr;  // not owned; outlives its contexts
  // Declared first so it is destroyed last: LiteRT may hold on to the buffers of the last run.
  std::vector<wasinn_tfl::HostMemory> retired;  // replaced memory, freed after the next run
  std::vector<wasinn_tfl::Slot> inputs;         // graph input order
  std::vector<wasinn_tfl::Slot> outputs;        // graph output order
  wasinn_tfl::CompiledModelPtr compiled;        // destroyed before the buffers above
  std::vector<LiteRtTensorBuffer> run_inputs;   // signature order, views of the slots
  std::vector<LiteRtTensorBuffer> run_outputs;
  std::vector<LiteRtLayout> output_layouts;     // scratch for compute, sized once
  bool outputs_stale = true;  // an input shape changed since the output buffers were made
  bool has_outputs = false;
  std::atomic<bool> cancel_requested{false};
};

namespace wasinn_tfl {

Error create_context(wasinn_graph *graph, std::unique_ptr<wasinn_context> &out);
Error set_input(wasinn_context &ctx, const wasinn_tensor_id *id, const wasinn_tensor *tensor);
Error compute(wasinn_context &ctx);
Error get_output(wasinn_context &ctx, const wasinn_tensor_id *id, wasinn_tensor &out);
void cancel(wasinn_context &ctx);

}  // namespace wasinn_tfl
