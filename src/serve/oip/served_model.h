// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ServedModel: one model the OIP server answers for, by name and version, whatever its kind: its
// metadata and configuration (from what its scheduler describes), readiness (the repository
// extension's load and unload), the request's checks against its declared inputs and outputs,
// the answer's outputs, and Triton's statistics of it. How a request computes is its
// Scheduler's (scheduler.h: a registered model's graph, or a pipeline), which it owns.
// Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/named_io.h"
#include "oip/infer_request.h"
#include "oip/oip_types.h"
#include "serve/oip/dynamic_batcher.h"
#include "serve/oip/model_description.h"
#include "serve/oip/model_stats.h"
#include "serve/oip/scheduler.h"

namespace wasinn::oip_server {

// What infer computed: the tensors, and the outputs to send, as views of them.
struct InferAnswer {
  std::vector<NamedTensor> tensors;
  std::vector<oip::ResponseOutput> outputs;
};

class ServedModel final : private SchedulerHost {
 public:
  // The model's scheduler, made for it (a scheduler keeps the host, which outlives it).
  using MakeScheduler = std::function<std::unique_ptr<Scheduler>(SchedulerHost& model)>;
  ServedModel(std::string name, std::string version, const MakeScheduler& make_scheduler);

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }

  // Readies the scheduler (a graph is loaded once; the registry shares it) and marks the model
  // ready; the error is also the state's reason.
  Status load();
  // Not ready: requests get 503/UNAVAILABLE, what the scheduler kept for them (idle contexts) is
  // freed. A graph itself stays in the process's model registry (named models live as long as
  // the process), so a later load is immediate.
  void unload();
  bool ready() const;
  std::string state_reason() const;

  oip::ModelMeta metadata() const;
  ModelConfigInfo config() const;
  ModelStats stats() const;

  // invalid_argument, naming the model's inputs, for an input name the model does not take: for
  // the decoders, which check a request's names before its data (InputNameCheck).
  Status check_input_name(std::string_view name) const;

  // Checks the request against the model (input names, datatypes, shapes; requested outputs)
  // and computes through the scheduler. invalid_argument for a request that does not fit the
  // model; other codes as the core's. queue_ns: how long the request waited for a worker
  // (ModelSet::run), for the statistics. batch: the request's place from join_batch: its compute
  // is then a batch's (DynamicBatcher).
  Result<InferAnswer> infer(const oip::InferRequest& request, uint64_t queue_ns = 0,
                            DynamicBatcher::Ticket* batch = nullptr);

  // The request's place in the model's batch queue, joined on the transport's thread before it
  // waits for a worker, so that requests gather while the workers are busy. Empty when the model
  // does not batch or the request cannot share a compute (knobs among its parameters, a shape
  // DynamicBatcher::join refuses, a request infer will refuse): it then computes alone.
  DynamicBatcher::Ticket join_batch(const oip::InferRequest& request);

 private:
  Status check_ready() const override;
  ModelStatsRecorder& stats_recorder() override { return stats_; }
  Status check_inputs(const oip::InferRequest& request) const;
  // The request's outputs (all, or those it names) from what the compute gave.
  Result<InferAnswer> select_outputs(const oip::InferRequest& request, std::vector<NamedTensor> tensors) const;

  const std::string name_, version_;
  mutable std::mutex mu_;
  bool ready_ = false;
  std::string reason_;
  ModelStatsRecorder stats_;
  const std::unique_ptr<Scheduler> scheduler_;  // last: made once the rest is there
};

// The model's check_input_name as the decoders take it (both transports').
oip::InputNameCheck input_name_check(const ServedModel& model);

}  // namespace wasinn::oip_server
