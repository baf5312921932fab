// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Scheduler: how a served model's request becomes a compute, the part that differs between the
// kinds of model (Triton's shape: one interface, an implementation per kind, not a model class
// that branches on its kind): GraphScheduler (a registered model's graph on a pool of runners,
// with dynamic batching as its option) and PipelineScheduler (a wasm pipeline served as a
// model). ServedModel owns one and keeps what every kind shares: readiness, statistics, the
// request's checks against the description, the answer's outputs. A scheduler is thread-safe:
// compute runs on many workers at once, beside load and unload.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/named_io.h"
#include "oip/infer_request.h"
#include "serve/oip/dynamic_batcher.h"
#include "serve/oip/model_description.h"
#include "serve/oip/model_stats.h"

namespace wasinn::oip_server {

// What a scheduler asks of the model it computes for: ServedModel, which owns the scheduler and
// outlives it.
class SchedulerHost {
 public:
  // busy (503), naming the model and why, unless it is ready: checked as a compute starts, so an
  // unloaded model starts none.
  virtual Status check_ready() const = 0;
  // The model's statistics: a scheduler counts there the executions it computes for several
  // requests at once (ServedModel counts the rest).
  virtual ModelStatsRecorder& stats_recorder() = 0;

 protected:
  ~SchedulerHost() = default;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // Readies the compute (a graph is loaded); the error says why it cannot be. The model is
  // ready once this succeeds.
  virtual Status load() = 0;
  // The model is no longer ready: what its computes kept for the next request is dropped.
  virtual void unload() = 0;

  // What the model declares; null until it is known (a graph not yet loaded).
  virtual std::shared_ptr<const ModelDescription> description() const = 0;
  // The model's dynamic batching; not enabled() when it does not batch.
  virtual BatchingOptions batching() const { return {}; }

  // invalid_argument, naming the model's inputs, for an input name it does not take; {} when it
  // cannot tell yet.
  virtual Status check_input_name(std::string_view name) const = 0;
  // The checks only this kind makes, before ServedModel's own against the description.
  virtual Status check_request(const oip::InferRequest&) const { return {}; }

  // The request's place in the model's batch queue (ServedModel::join_batch has checked it);
  // empty when it computes alone.
  virtual DynamicBatcher::Ticket join_batch(const oip::InferRequest&, std::span<const NamedInput>) { return {}; }

  // Computes the request's inputs (views of `request`, checked), alone or, with a ticket from
  // join_batch, in its batch. Sets timing's input_ns (from timing.started), compute_ns and what
  // concerns batches; ServedModel counts the request.
  virtual Result<std::vector<NamedTensor>> compute(const oip::InferRequest& request, std::span<const NamedInput> inputs,
                                                   DynamicBatcher::Ticket* batch, RequestTiming& timing) = 0;

  // The bytes the answer sends of the outputs, for the model's own metrics where it keeps any.
  virtual void count_output_bytes(uint64_t) {}
};

}  // namespace wasinn::oip_server
