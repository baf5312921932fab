// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// PipelineScheduler: the Scheduler of a wasm pipeline served as a model (--pipeline): described
// by the pipeline's declared inputs and outputs, computed by its infer on the request's worker.
// Nothing to load: the pipeline was compiled and described when it was opened. No core rule
// checks a pipeline's inputs before its guest sees them, so this scheduler does (check_request).
// Shares the pipeline; thread-safe, as the pipeline is.
#pragma once

#include <memory>
#include <string>

#include "serve/oip/pipeline.h"
#include "serve/oip/scheduler.h"

namespace wasinn::oip_server {

class PipelineScheduler final : public Scheduler {
 public:
  PipelineScheduler(std::string name, std::shared_ptr<Pipeline> pipeline);

  Status load() override { return {}; }
  void unload() override {}
  std::shared_ptr<const ModelDescription> description() const override { return described_; }
  Status check_input_name(std::string_view name) const override;
  // Every declared input given once, with its declared datatype, and nothing else.
  Status check_request(const oip::InferRequest& request) const override;
  Result<std::vector<NamedTensor>> compute(const oip::InferRequest& request, std::span<const NamedInput> inputs,
                                           DynamicBatcher::Ticket* batch, RequestTiming& timing) override;

 private:
  const std::string name_;
  const std::shared_ptr<Pipeline> pipeline_;
  const std::shared_ptr<const ModelDescription> described_;
};

}  // namespace wasinn::oip_server
