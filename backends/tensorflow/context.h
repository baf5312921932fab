// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One inference session of a graph: its input tensors and every output of its last compute.
// compute runs the session once and keeps all outputs, so reading several never re-runs it.
// Used by one thread at a time. No cancel: TF_SessionRun offers no way to stop a run from
// another thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "handles.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::tensorflow {

class TfGraph;

class TfContext {
 public:
  static Error create(TfGraph& graph, std::unique_ptr<TfContext>& out);

  WASINN_SDK_CONTEXT()

 private:
  void drop_outputs();

  TfGraph* graph_ = nullptr;                       // released after all its contexts
  std::vector<TensorPtr> inputs_;                  // graph input order; null until set
  std::vector<std::vector<uint32_t>> input_dims_;  // the shape of each input tensor
  std::vector<TF_Tensor*> input_values_;           // views of inputs_, for TF_SessionRun
  std::vector<TensorPtr> outputs_;                 // of the last compute
  std::vector<TF_Tensor*> output_values_;          // TF_SessionRun's out-array, reused
  std::vector<std::vector<uint32_t>> output_dims_;
  bool has_outputs_ = false;
  StatusPtr status_;  // reused by every run
};

}  // namespace wasinn::tensorflow
