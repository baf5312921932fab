// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ModelStats: Triton's statistics extension for one served model, and ModelStatsRecorder, which
// counts them: requests as ServedModel::infer ends them, executions as they compute (a batch's
// once, for all its requests). Each model owns its recorder; thread-safe, every count under one
// lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>

namespace wasinn::oip_server {

// Triton's statistics extension, as far as wasinn counts: one inference per request, one
// execution per compute (with dynamic batching, one compute serves several requests).
// perf_analyzer needs what Triton guarantees: every request that reached the model counts one
// queue entry (it finds the model's version by that count), and each computed request counts
// once in compute_input, compute_infer and compute_output alike.
struct ModelStats {
  uint64_t success_count = 0, success_ns = 0, fail_count = 0, fail_ns = 0;
  uint64_t queue_count = 0, queue_ns = 0;  // waiting for a worker
  uint64_t compute_count = 0;
  uint64_t input_ns = 0;           // checks, a context, the inputs decoded: arrival to compute
  uint64_t compute_ns = 0;         // set_input + compute + the outputs copied (the core's compute_named)
  uint64_t output_ns = 0;          // the answer's outputs chosen
  uint64_t last_inference_ms = 0;  // since the epoch; 0: none yet
  // Computes, and their times by batch size (rows for a batching model, else 1): batch_stats.
  struct Batch {
    uint64_t count = 0, input_ns = 0, compute_ns = 0, output_ns = 0;
  };
  uint64_t execution_count = 0;
  std::map<uint64_t, Batch> batch_stats;
};

// One request's times, filled as it goes: ServedModel the ends, its scheduler the compute.
struct RequestTiming {
  std::chrono::steady_clock::time_point started;  // infer began: input_ns runs from here to the compute
  uint64_t queue_ns = 0, input_ns = 0, compute_ns = 0, output_ns = 0;
  bool computed = false;
  bool batched = false;        // its execution was counted with its batch (count_execution)
  uint64_t batch_wait_ns = 0;  // waiting for a batch: queue time, as Triton counts its batcher's delay
  uint64_t batch_size = 1;
};

class ModelStatsRecorder {
 public:
  // A request ended, ok or not, `ns` after infer began; a computed one not batched is also its
  // own execution.
  void count(bool ok, uint64_t ns, const RequestTiming& t);
  // One execution of `rows`: a batch computed for several requests.
  void count_execution(uint64_t rows, uint64_t input_ns, uint64_t compute_ns, uint64_t output_ns);
  ModelStats snapshot() const;

 private:
  void count_execution_locked(uint64_t rows, uint64_t input_ns, uint64_t compute_ns, uint64_t output_ns);

  mutable std::mutex mu_;
  ModelStats stats_;
};

}  // namespace wasinn::oip_server
