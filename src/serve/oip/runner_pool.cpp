// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/runner_pool.h"

namespace wasinn::oip_server {

RunnerPool::RunnerPool(const SchedulerHost& model, std::shared_ptr<NnEnvironment> env, std::string name,
                       std::string config, size_t max_idle)
    : model_(model), env_(std::move(env)), name_(std::move(name)), config_(std::move(config)), max_idle_(max_idle) {}

Result<RunnerPool::Runner> RunnerPool::take(bool fresh) {
  if (Status ready = model_.check_ready(); !ready) return ready.take_error();
  uint64_t generation;
  {
    std::lock_guard lock(mu_);
    generation = generation_;
    if (!fresh && !idle_.empty()) {
      Runner r = std::move(idle_.back());
      idle_.pop_back();
      return r;
    }
  }
  Runner r{std::make_unique<NnSession>(env_), 0, 0, generation};
  auto graph = r.session->load_by_name(name_, config_);
  if (!graph) return graph.take_error();
  r.graph = *graph;
  auto context = r.session->init_execution_context(r.graph);
  if (!context) return context.take_error();
  r.context = *context;
  return r;
}

void RunnerPool::give_back(Runner runner) {
  std::lock_guard lock(mu_);
  // The model's readiness too: it may have been unloaded after this runner's generation was read.
  if (runner.generation == generation_ && idle_.size() < max_idle_ && model_.check_ready())
    idle_.push_back(std::move(runner));
}

void RunnerPool::retire_all() {
  std::vector<Runner> dropped;  // freed after the lock is released
  std::lock_guard lock(mu_);
  ++generation_;
  dropped.swap(idle_);
}

}  // namespace wasinn::oip_server
