// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ModelSet: the models an OIP server answers for (every model registered in the process's
// NnEnvironment: --nn-preload, -S nn-graph, --nn-remote, the config file, --model-repository),
// found by name and version, and the worker pool every inference runs on: `workers` threads of
// the server's own compute, admitted by serve/admission.h's policy as `wasinn serve`'s requests
// are (`max_queue` wait; past that 503/UNAVAILABLE at once). Computes never run on the
// transports' threads: civetweb's have 100 KiB stacks (fixed when Debian built it), too small
// for a framework's compute. A worker waiting for rows another worker's batch computes gives its
// place to a waiter, on a spare thread (DynamicBatcher's WaitListener), so `workers` jobs still
// run. Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <thread>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/nn_environment.h"
#include "serve/admission.h"
#include "serve/oip/pipeline.h"
#include "serve/oip/served_model.h"
#include "serve/oip/triton_config.h"

namespace wasinn::oip_server {

// A --model-repository model's version, graph config and, from its config.pbtxt, the inputs and
// outputs the model must have (checked once it loads).
struct RepositoryEntry {
  std::string version;
  std::string config;
  std::optional<TritonIo> triton_io;
};

struct ModelSetOptions {
  size_t workers = 1;
  size_t max_queue = 64;
  // Versions, graph configs and declared inputs and outputs of --model-repository's models, by
  // name; others are version "1" with no config.
  std::map<std::string, RepositoryEntry> repository;
  // Pipelines served as models of their own, by name (none may share a registered model's).
  std::map<std::string, std::shared_ptr<Pipeline>> pipelines;
  // Dynamic batching by model name (--dynamic-batching, a repository's config.json); others: none.
  std::map<std::string, BatchingOptions> batching;
};

class ModelSet final : private WaitListener {
 public:
  ModelSet(std::shared_ptr<NnEnvironment> env, ModelSetOptions options);
  ~ModelSet();  // finishes the queued jobs, then joins the workers

  // Loads every model; the first that fails is the error (a remote one is only a warning,
  // left unavailable: its server may come up later, and a load makes it ready then).
  Status load_all();

  // The model by name and version ("" any): not_found (404) when there is none, busy (503)
  // when it is not ready.
  Result<std::shared_ptr<ServedModel>> find(std::string_view name, std::string_view version, bool need_ready) const;
  std::vector<std::shared_ptr<ServedModel>> all() const;
  bool all_ready() const;

  Status load(std::string_view name);
  Status unload(std::string_view name);

  // Runs `job` on a worker, handing it how long it waited for one (ns), and returns once it has
  // run; false, without running it, when every worker is busy and the queue is full. `job` must
  // not throw.
  bool run(const std::function<void(uint64_t queue_ns)>& job);

  struct Gauges {
    uint64_t running = 0, queued = 0, rejected = 0;
  };
  Gauges gauges() const;

 private:
  std::shared_ptr<NnEnvironment> env_;
  ModelSetOptions options_;
  void work();
  // Hands a job that holds a place to a thread.
  void start(std::function<void()> job);
  void waiting() override;
  void resumed() override;
  // Threads for the ready jobs when too few are idle; mu_ held.
  void start_threads_locked();

  std::map<std::string, std::shared_ptr<ServedModel>, std::less<>> models_;
  Admission admission_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> ready_;  // admitted, waiting for a thread
  size_t running_ = 0;                       // jobs started and not finished
  size_t idle_ = 0;                          // threads waiting for a job (or just started)
  bool stopping_ = false;
  std::vector<std::thread> workers_;  // last: started once the rest is there; grows under mu_
};

}  // namespace wasinn::oip_server
