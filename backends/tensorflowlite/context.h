// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One inference session of a graph: its own LiteRT compiled model (an interpreter is not safe
// to run from two threads), the host buffers LiteRT reads inputs from and writes outputs to,
// and the shapes those buffers currently have. Used by one thread at a time, except cancel().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "handles.h"
#include "litert_status.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflowlite {

class TfliteGraph;
struct TfliteIo;

// A host buffer wrapped as a LiteRT tensor buffer of the current shape.
struct Slot {
  HostMemory memory;
  size_t capacity = 0;
  TensorBufferPtr buffer;      // null until the first set_input / compute
  std::vector<uint32_t> dims;  // the shape `buffer` describes
  size_t bytes = 0;            // product(dims) * element size
};

class TfliteContext {
 public:
  static Error create(TfliteGraph& graph, std::unique_ptr<TfliteContext>& out);

  WASINN_SDK_CONTEXT()
  // Sets a flag LiteRT polls between operations; compute then returns TIMEOUT.
  void cancel() noexcept { cancel_requested_.store(true); }

 private:
  static bool check_cancelled(void* self);
  Error reshape_slot(Slot& slot, const TfliteIo& io, const std::vector<uint32_t>& dims, size_t bytes, size_t need,
                     const std::string& label);
  Error prepare_outputs();

  TfliteGraph* graph_ = nullptr;  // released after all its contexts
  // Declared first so it is destroyed last: LiteRT may hold on to the buffers of the last run.
  std::vector<HostMemory> retired_;             // replaced memory, freed after the next run
  std::vector<Slot> inputs_;                    // graph input order
  std::vector<Slot> outputs_;                   // graph output order
  CompiledModelPtr compiled_;                   // destroyed before the buffers above
  std::vector<LiteRtTensorBuffer> run_inputs_;  // signature order, views of the slots
  std::vector<LiteRtTensorBuffer> run_outputs_;
  std::vector<LiteRtLayout> output_layouts_;  // scratch for compute, sized once
  bool outputs_stale_ = true;                 // an input shape changed since the output buffers were made
  bool has_outputs_ = false;
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace wasinn::tensorflowlite
