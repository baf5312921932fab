// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The libtorch side of a loaded graph: the TorchScript module, its forward method and what
// forward's schema says of each argument. Includes libtorch's jit headers (10-20 s per
// translation unit), so only graph.cpp and context.cpp include it; graph.h and context.h name
// it only, which keeps entry.cpp and backend.cpp quick to compile.
#pragma once

#include <torch/csrc/jit/api/module.h>

#include <optional>
#include <string>
#include <vector>

#include "scalar_args.h"

namespace wasinn::pytorch {

// One argument of forward (self excluded), in schema order: input index i is argument i.
struct InputArg {
  std::string type_name;                // TorchScript annotation, e.g. "Tensor", "Optional[int]"
  ArgKind kind = ArgKind::unsupported;  // Optional[...] unwrapped; all but unsupported settable
  std::optional<c10::IValue> fallback;  // the schema's default, used when the input is not set
};

// Immutable after load and shared by all the graph's contexts, which run forward concurrently:
// TorchScript methods are safe to call from several threads, so nothing here is locked.
struct TorchModule {
  torch::jit::Module module;
  std::optional<torch::jit::Method> forward;
  c10::Device device{c10::kCPU};
  std::vector<InputArg> args;  // parallel to the graph's io(input)
};

}  // namespace wasinn::pytorch
