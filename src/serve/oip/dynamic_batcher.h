// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DynamicBatcher: Triton's dynamic batching for one model (docs/oip-server.md, "Dynamic
// batching"). A request joins the model's queue from the transport's thread (join: checks and
// views, no compute), so requests gather while every worker is busy. On a worker, take() either
// finds the request's rows already computed by another worker's batch, or gathers a batch
// itself: the oldest waiting request and the later ones with the same inputs (names, datatypes,
// every dimension but the first), up to max_batch_size rows, after waiting up to
// max_queue_delay_us from the oldest's arrival for more; it concatenates them along dimension 0,
// computes once (the Compute given at construction, on that worker) and splits every output back
// by each request's rows. One worker gathers at a time; a worker whose rows are in another's
// batch gathers and computes the next one meanwhile, so batches compute side by side.
// Thread-safe. The batcher owns its queue; a request owns its Ticket, which must not outlive the
// batcher, and the inputs it joined with must outlive the Ticket.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/graph.h"
#include "core/named_io.h"

namespace wasinn::oip_server {

// A worker pool's hook on its own threads (ModelSet): take() tells it when the calling worker
// waits for rows another worker's batch is computing, so the pool can start another job meanwhile
// instead of leaving a core idle until that batch ends. Set per thread; none: nobody is told.
class WaitListener {
 public:
  virtual void waiting() = 0;  // the thread computes nothing until resumed()
  virtual void resumed() = 0;

 protected:
  ~WaitListener() = default;
};
void set_thread_wait_listener(WaitListener* listener);

struct BatchingOptions {
  uint32_t max_batch_size = 0;      // rows in one compute; 0: no batching
  uint64_t max_queue_delay_us = 0;  // how long the oldest request waits for more; 0: only those already waiting
  uint64_t max_input_bytes = 0;     // one concatenated input at most (--max-tensor-bytes); 0: no bound
  bool enabled() const { return max_batch_size > 0; }
};

// The bounds --dynamic-batching and a repository's config.json are checked against.
inline constexpr uint32_t kMaxBatchSize = 65536;
inline constexpr uint64_t kMaxQueueDelayUs = 10'000'000;

// invalid_argument unless every input and output of the graph has a known rank and a dynamic
// (-1) dimension 0: batching concatenates requests along it, which a model without a batch
// dimension cannot take. The message names the first tensor that is not so, and why.
Status check_batch_dimension(const Graph& graph, const BatchingOptions& options);

// One compute of a batch, for the statistics (Triton's execution_count and batch_stats).
struct BatchExecution {
  uint32_t rows = 0;  // every request's rows together: Triton's batch size
  size_t requests = 0;
  uint64_t input_ns = 0, compute_ns = 0, output_ns = 0;  // concatenating, computing, splitting
  bool ok = false;
};

// What a request gets back: its rows of every output, and the compute it shared.
struct BatchedOutputs {
  std::vector<NamedTensor> tensors;
  BatchExecution execution;
};

class DynamicBatcher {
 public:
  // The model's compute of concatenated inputs (on the worker that gathered them).
  using Compute = std::function<Result<std::vector<NamedTensor>>(std::span<const NamedInput> inputs)>;
  // Called once per batch computed, ok or not (any worker).
  using Executed = std::function<void(const BatchExecution&)>;

  DynamicBatcher(BatchingOptions options, Compute compute, Executed executed);
  DynamicBatcher(const DynamicBatcher&) = delete;
  DynamicBatcher& operator=(const DynamicBatcher&) = delete;

  const BatchingOptions& options() const { return options_; }

  struct Item;
  // A request's place in the queue, from join to take. Dropped without a take (the pool refused
  // the request, or it failed before its compute), it leaves the queue, or, when a batch has
  // already taken its rows, waits for that compute to finish reading them.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept;
    Ticket& operator=(Ticket&& other) noexcept;
    ~Ticket();
    explicit operator bool() const { return item_ != nullptr; }

   private:
    friend class DynamicBatcher;
    Ticket(DynamicBatcher* batcher, std::shared_ptr<Item> item) : batcher_(batcher), item_(std::move(item)) {}
    void leave();
    DynamicBatcher* batcher_ = nullptr;
    std::shared_ptr<Item> item_;
  };

  // Queues a request's inputs (their names and bytes are viewed, not copied). An empty Ticket
  // when they cannot share a compute: no input, an input of rank 0, inputs whose dimension 0
  // differ or is 0, more rows than max_batch_size or an input over max_input_bytes, or bytes
  // that do not fill their shape. The request then computes alone (which reports a bad one).
  Ticket join(std::span<const NamedInput> inputs);

  // On a worker: the ticket's rows of every output, computed in a batch (by this worker or
  // another); the batch's error for every request in it. Empties the ticket.
  Result<BatchedOutputs> take(Ticket& ticket);

  size_t queued() const;  // requests waiting, not yet in a batch

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<std::shared_ptr<Item>> gather(std::unique_lock<std::mutex>& lock);
  void run(const std::vector<std::shared_ptr<Item>>& batch);
  void leave(Item& item);

  const BatchingOptions options_;
  const Compute compute_;
  const Executed executed_;
  mutable std::mutex mu_;
  std::condition_variable cv_;  // an item joined, left or was computed; a gatherer finished gathering
  std::deque<std::shared_ptr<Item>> queue_;
  bool gathering_ = false;
};

}  // namespace wasinn::oip_server
