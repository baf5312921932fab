// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One inference session of a remote model: owned copies of its inputs, the outputs of its last
// compute, and the Call through which it reaches the server (cancel() may come from any thread).
#pragma once

#include <memory>
#include <vector>

#include "transport.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::remote {

using sdk::Error;

class RemoteGraph;

class RemoteContext {
 public:
  explicit RemoteContext(RemoteGraph& graph);

  WASINN_SDK_CONTEXT()
  void cancel() noexcept;

 private:
  struct Slot {
    bool set = false;
    std::vector<uint8_t> data;
    std::vector<int64_t> shape;
  };
  RemoteGraph& graph_;
  std::unique_ptr<Call> call_;
  std::vector<Slot> inputs_;
  std::vector<OutputTensor> outputs_;        // by declared index
  std::vector<std::vector<uint32_t>> dims_;  // the views' dims
  bool has_outputs_ = false;
};

}  // namespace wasinn::remote
