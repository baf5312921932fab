// The graph and context objects behind the opaque plugin handles. Includes libtorch's jit
// headers: only torch_graph.cpp and torch_context.cpp may include this file.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/jit/api/module.h>

#include <optional>
#include <string>
#include <vector>

#include "torch_error.h"
#include "wasinn/backend_plugin.h"

namespace wasinn_torch {

// One argument of forward (self excluded), in schema order: input index i is argument i.
struct InputDesc {
  std::string name;
  std::string type_name;            // TorchScript annotation, e.g. "Tensor", "Optional[Tensor]"
  bool takes_tensor = false;        // Tensor or Optional[Tensor]: settable by a guest
  std::optional<c10::IValue> fallback;  // the schema's default, used when the input is not set
};

// An output known from forward's declared return type: one for Tensor, one per element of a
// tuple (named for a NamedTuple). Lists and dicts have no static count; see io_count.
struct OutputDesc {
  std::string name;
};

// One output of the last compute, flattened from forward's result.
struct OutputSlot {
  at::Tensor tensor;       // contiguous, on the CPU; undefined when `problem` is set
  std::string name;        // dict key or NamedTuple field, else ""
  std::string problem;     // why this output cannot be returned, e.g. "a TorchScript int"
  int32_t type = 0;        // wasinn_tensor_type of tensor
  std::vector<uint32_t> dims;
};

std::string input_label(const std::vector<InputDesc> &inputs, size_t index);

}  // namespace wasinn_torch

// Immutable after load and shared by all its contexts, which run forward concurrently:
// TorchScript methods are safe to call from several threads, so nothing here is locked.
struct wasinn_graph {
  torch::jit::Module module;
  std::optional<torch::jit::Method> forward;
  c10::Device device{c10::kCPU};
  std::vector<wasinn_torch::InputDesc> inputs;
  std::vector<wasinn_torch::OutputDesc> outputs;
};

// Used by one thread at a time (the host guarantees it).
struct wasinn_context {
  const wasinn_graph *graph = nullptr;  // not owned; released after all its contexts
  std::vector<at::Tensor> inputs;       // undefined: not set
  std::vector<c10::IValue> stack;       // compute's interpreter stack, kept for its capacity
  std::vector<wasinn_torch::OutputSlot> outputs;  // grows only; output_count are live
  size_t output_count = 0;
  bool has_outputs = false;
};
