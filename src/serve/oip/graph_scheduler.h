// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GraphScheduler: the Scheduler of a model in the environment's registry (--nn-preload, -S
// nn-graph, --nn-remote, the config file, --model-repository). load() loads its graph (once: the
// registry shares it, and keeps it past an unload, so a later load is immediate) and describes
// it from the plugin's I/O description. A request computes alone on a runner of its RunnerPool,
// a fresh one when its parameters set the model's knobs; with dynamic batching, one that joined
// the batch queue (DynamicBatcher) computes with others on one runner. Owns its pool and its
// batcher; thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/nn_environment.h"
#include "serve/oip/dynamic_batcher.h"
#include "serve/oip/runner_pool.h"
#include "serve/oip/scheduler.h"

namespace wasinn::oip_server {

class GraphScheduler final : public Scheduler {
 public:
  // max_idle: idle runners kept. batching: not enabled() for none; load() refuses it for a graph
  // without a dynamic dimension 0 on every input and output.
  GraphScheduler(SchedulerHost& model, std::shared_ptr<NnEnvironment> env, std::string name, std::string config,
                 size_t max_idle, BatchingOptions batching);

  Status load() override;
  void unload() override;
  std::shared_ptr<const ModelDescription> description() const override;
  BatchingOptions batching() const override;
  Status check_input_name(std::string_view name) const override;
  // Empty also when the request cannot share a compute: the model is not ready, knobs among its
  // parameters, a shape DynamicBatcher::join refuses.
  DynamicBatcher::Ticket join_batch(const oip::InferRequest& request, std::span<const NamedInput> inputs) override;
  Result<std::vector<NamedTensor>> compute(const oip::InferRequest& request, std::span<const NamedInput> inputs,
                                           DynamicBatcher::Ticket* batch, RequestTiming& timing) override;
  // Counted as a guest's get-output is (compute_named itself does not).
  void count_output_bytes(uint64_t bytes) override;

 private:
  // The request's parameters that name a settable knob of the graph: set on a context of its
  // own. Other parameters (the protocol's own, a client's tags) are not the model's business.
  std::vector<std::pair<std::string, std::string>> knobs_of(const oip::InferRequest& request) const;
  Result<std::vector<NamedTensor>> take_batch(DynamicBatcher::Ticket& ticket, RequestTiming& timing);
  std::shared_ptr<const Graph> loaded_graph() const;

  SchedulerHost& model_;
  const std::shared_ptr<NnEnvironment> env_;
  const std::string name_, config_;
  RunnerPool pool_;
  mutable std::mutex mu_;
  std::shared_ptr<const Graph> graph_;  // null until loaded
  std::shared_ptr<const ModelDescription> described_;
  std::unique_ptr<DynamicBatcher> batcher_;  // null: no batching
};

}  // namespace wasinn::oip_server
