// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One inference session of a graph: its input tensors, the interpreter stack it reuses, and the
// outputs of its last forward, flattened. Used by one thread at a time (the host guarantees it).
// No cancel: libtorch cannot interrupt a running forward; no streaming either.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "wasinn/plugin_sdk.hpp"

namespace wasinn::pytorch {

using sdk::Error;

class TorchGraph;

class TorchContext {
 public:
  static Error create(const TorchGraph& graph, std::unique_ptr<TorchContext>& out);
  TorchContext();
  ~TorchContext();
  TorchContext(const TorchContext&) = delete;
  TorchContext& operator=(const TorchContext&) = delete;

  WASINN_SDK_CONTEXT()

 private:
  // The libtorch objects (input tensors, interpreter stack, output tensors), defined in
  // context.cpp so this header needs none of libtorch's.
  struct Tensors;

  const TorchGraph* graph_ = nullptr;  // released after all its contexts
  std::unique_ptr<Tensors> tensors_;
  // The names of the last forward's outputs (dict keys, NamedTuple fields, else ""): output ids
  // resolve against the first output_count_. Grows only, so a steady loop does not allocate.
  std::vector<sdk::IoDesc> outputs_;
  size_t output_count_ = 0;
  bool has_outputs_ = false;
};

}  // namespace wasinn::pytorch
