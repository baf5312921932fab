// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One execution context of a Piper voice: the text (and, with json_input, the options) of the
// last set_input, and the audio of the last compute. Used by one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "options.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::piper {

class PiperGraph;

class PiperContext {
 public:
  explicit PiperContext(const PiperGraph& graph) : graph_(&graph) {}

  WASINN_SDK_CONTEXT()

 private:
  const PiperGraph* graph_;  // outlives the context (the host releases contexts first)
  std::optional<Utterance> utterance_;
  std::optional<std::vector<uint8_t>> output_;  // the last compute's WAV or raw samples
  uint32_t out_dim_ = 0;
};

}  // namespace wasinn::piper
