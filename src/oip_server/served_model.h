// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ServedModel: one model the OIP server answers for, by name and version: its metadata (from
// the plugin's I/O description), readiness (the repository extension's load and unload), the
// inference itself and Triton's statistics of it.
//
// A request computes on an ExecutionContext of its own: a runner (an NnSession holding the
// shared graph and one context: the core's compute_named, with its named-input rules, limits,
// compute budget and metrics) is taken from an idle pool or made, and put back after. A request
// whose parameters set the model's knobs gets a fresh runner that is not put back, so no setting
// outlives its request. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/named_io.h"
#include "core/nn_environment.h"
#include "core/nn_session.h"
#include "oip/infer_request.h"
#include "oip_server/dynamic_batcher.h"
#include "oip_server/model_description.h"
#include "oip_server/model_stats.h"
#include "oip/oip_types.h"
#include "oip_server/pipeline.h"

namespace wasinn::oip_server {

// What infer computed: the tensors, and the outputs to send, as views of them.
struct InferAnswer {
  std::vector<NamedTensor> tensors;
  std::vector<oip::ResponseOutput> outputs;
};

class ServedModel {
 public:
  ServedModel(std::shared_ptr<NnEnvironment> env, std::string name, std::string version, std::string config,
              size_t max_idle);
  // A pipeline served as a model: described by it, computed by it.
  ServedModel(std::shared_ptr<NnEnvironment> env, std::string name, std::string version,
              std::shared_ptr<Pipeline> pipeline);

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }

  // Loads the graph (once; the registry shares it) and marks the model ready.
  Status load();
  // Not ready: requests get 503/UNAVAILABLE, idle contexts are freed. The graph itself stays
  // in the process's model registry (named models live as long as the process), so a later
  // load is immediate.
  void unload();
  bool ready() const;
  std::string state_reason() const;

  oip::ModelMeta metadata() const;
  ModelConfigInfo config() const;
  ModelStats stats() const;

  // Checks the request against the model (input names, datatypes, shapes; requested outputs)
  // and computes. binary_default: outputs are binary unless the request says otherwise.
  // invalid_argument for a request that does not fit the model; other codes as the core's.
  // queue_ns: how long the request waited for a worker (ModelSet::admit), for the statistics.
  // batch: the request's place from join_batch: its compute is then a batch's (DynamicBatcher).
  // invalid_argument, naming the model's inputs, for an input name the model does not take: for
  // the decoders, which check a request's names before its data (InputNameCheck).
  Status check_input_name(std::string_view name) const;

  Result<InferAnswer> infer(const oip::InferRequest& request, uint64_t queue_ns = 0,
                            DynamicBatcher::Ticket* batch = nullptr);

  // Dynamic batching (docs/oip-server.md): set before load(), which refuses it for a model
  // without a dynamic dimension 0 on every input and output.
  void set_batching(BatchingOptions options);
  // The request's place in the model's batch queue, joined on the transport's thread before it
  // waits for a worker, so that requests gather while the workers are busy. Empty when the model
  // does not batch or the request cannot share a compute (knobs among its parameters, a shape
  // DynamicBatcher::join refuses, a request infer will refuse): it then computes alone.
  DynamicBatcher::Ticket join_batch(const oip::InferRequest& request);

 private:
  struct Runner {
    std::unique_ptr<NnSession> session;
    uint32_t graph = 0, context = 0;
    uint64_t generation = 0;  // the load it belongs to: runners of an unloaded model are dropped
  };
  Result<Runner> take_runner(bool fresh);
  void give_back(Runner runner);
  Status check_inputs(const oip::InferRequest& request) const;
  // The request's outputs (all, or those it names) from what the compute gave.
  Result<InferAnswer> select_outputs(const oip::InferRequest& request, std::vector<NamedTensor> tensors) const;
  std::shared_ptr<const Graph> runner_graph() const;
  Result<std::vector<NamedTensor>> take_batch(DynamicBatcher::Ticket& ticket, RequestTiming& timing);

  std::shared_ptr<NnEnvironment> env_;
  const std::shared_ptr<Pipeline> pipeline_;  // null: a registered model's graph
  const std::string name_, version_, config_;
  const size_t max_idle_;
  mutable std::mutex mu_;
  std::shared_ptr<const Graph> graph_;  // null until loaded
  std::shared_ptr<const ModelDescription> described_;  // null until known (a graph: loaded)
  bool ready_ = false;
  std::string reason_;
  uint64_t generation_ = 0;
  std::vector<Runner> idle_;
  ModelStatsRecorder stats_;
  std::unique_ptr<DynamicBatcher> batcher_;  // null: no batching
};

// The model's check_input_name as the decoders take it (both transports').
oip::InputNameCheck input_name_check(const ServedModel& model);

}  // namespace wasinn::oip_server
