// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RunnerPool: a registered model's runners, so that a request computes on an ExecutionContext of
// its own. A runner is an NnSession holding the shared graph and one context: the core's
// compute_named, with its named-input rules, limits, compute budget and metrics. take() hands
// out an idle one or makes one, give_back() keeps up to max_idle; a fresh runner (for a request
// that sets the model's knobs) is not given back, so no setting outlives its request. The pool
// owns its idle runners; a runner taken is the caller's until given back. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/nn_environment.h"
#include "core/nn_session.h"
#include "serve/oip/scheduler.h"

namespace wasinn::oip_server {

class RunnerPool {
 public:
  struct Runner {
    std::unique_ptr<NnSession> session;
    uint32_t graph = 0, context = 0;
    uint64_t generation = 0;  // the load it belongs to: runners of an unloaded model are dropped
  };

  // `model`: asked whether it is ready before a runner is handed out or kept.
  RunnerPool(const SchedulerHost& model, std::shared_ptr<NnEnvironment> env, std::string name, std::string config,
             size_t max_idle);

  // busy when the model is not ready; else the load's errors.
  Result<Runner> take(bool fresh);
  void give_back(Runner runner);
  // The model was loaded or unloaded: idle runners are dropped, and those out now are when given back.
  void retire_all();

 private:
  const SchedulerHost& model_;
  const std::shared_ptr<NnEnvironment> env_;
  const std::string name_, config_;
  const size_t max_idle_;
  std::mutex mu_;
  uint64_t generation_ = 0;
  std::vector<Runner> idle_;
};

}  // namespace wasinn::oip_server
