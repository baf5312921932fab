// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "serve/oip/model_stats.h"

namespace wasinn::oip_server {

void ModelStatsRecorder::count(bool ok, uint64_t ns, const RequestTiming& t) {
  std::lock_guard lock(mu_);
  (ok ? stats_.success_count : stats_.fail_count) += 1;
  (ok ? stats_.success_ns : stats_.fail_ns) += ns + t.queue_ns;
  stats_.queue_count += 1;
  stats_.queue_ns += t.queue_ns + t.batch_wait_ns;
  if (t.computed) {
    stats_.compute_count += 1;
    stats_.input_ns += t.input_ns;
    stats_.compute_ns += t.compute_ns;
    stats_.output_ns += t.output_ns;
    if (!t.batched) count_execution_locked(t.batch_size, t.input_ns, t.compute_ns, t.output_ns);
  }
  stats_.last_inference_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

void ModelStatsRecorder::count_execution(uint64_t rows, uint64_t input_ns, uint64_t compute_ns, uint64_t output_ns) {
  std::lock_guard lock(mu_);
  count_execution_locked(rows, input_ns, compute_ns, output_ns);
}

void ModelStatsRecorder::count_execution_locked(uint64_t rows, uint64_t input_ns, uint64_t compute_ns,
                                                uint64_t output_ns) {
  stats_.execution_count += 1;
  auto& b = stats_.batch_stats[rows];
  b.count += 1;
  b.input_ns += input_ns;
  b.compute_ns += compute_ns;
  b.output_ns += output_ns;
}

ModelStats ModelStatsRecorder::snapshot() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace wasinn::oip_server
