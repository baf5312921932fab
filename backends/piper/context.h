// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// One execution context of a Piper voice: the text (and, with json_input, the options) of the
// last set_input, the properties set on it, the audio of the last compute, and the ORT run options through which
// cancel() stops a running compute (the host's compute deadline). Used by one thread at a time, except cancel().
// With the option "stream" on, each compute synthesizes the next sentence alone and output 0 is
// its int16 samples (an empty output marks the end): a WIT guest's wasi:nn has no
// compute_single, and a speech server wants the first sentence out before the last is made.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "graph.h"
#include "options.h"
#include "wasinn/plugin_sdk.hpp"

namespace wasinn::piper {

class PiperContext {
 public:
  explicit PiperContext(const PiperGraph& graph) : graph_(&graph) {}

  WASINN_SDK_CONTEXT()
  // A knob (options.h's parse_property; the graph checked it): this context's next computes.
  Error set_property(std::string_view name, std::string_view value);
  // Any thread, during compute: ORT stops the sentence it runs, compute returns TIMEOUT.
  void cancel() noexcept;

 private:
  const PiperGraph* graph_;  // outlives the context (the host releases contexts first)
  std::optional<Utterance> utterance_;
  SynthesisOptions properties_;                 // set_property's: over the run config, under a JSON input's
  std::optional<std::vector<uint8_t>> output_;  // the last compute's WAV or raw samples
  // The stream in progress: its sentences' phonemes, the next to speak, its scales, its samples so far.
  Error compute_step(const SynthesisOptions& over);
  bool streaming_ = false;
  std::vector<std::string> sentences_;
  size_t next_ = 0;
  Scales stream_scales_{};
  size_t streamed_samples_ = 0;
  uint32_t out_dim_ = 0;
  Ort::RunOptions run_options_;
  // Set by cancel() so compute can tell "ORT stopped because we asked" from a real failure.
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace wasinn::piper
