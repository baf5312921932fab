// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ComputeWatchdog: enforces a time budget on running computes by cancelling them. One
// background thread per watchdog, started on first use; thread-safe. A Watch registers one
// compute for its lifetime; past the deadline the watchdog calls ExecutionContext::cancel()
// every few milliseconds until the Watch ends (a cancel that lands before the backend starts
// its run would otherwise be lost). hurry() does the same at once for a compute cancelled by its
// caller (wasinn:nn-async), whatever its budget.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace wasinn {

class ExecutionContext;

class ComputeWatchdog {
 public:
  using Clock = std::chrono::steady_clock;

  class Watch {
   public:
    Watch() = default;
    Watch(ComputeWatchdog* owner, uint64_t id, Clock::time_point deadline)
        : owner_(owner), id_(id), deadline_(deadline) {}
    Watch(Watch&& other) noexcept;
    Watch& operator=(Watch&&) = delete;
    ~Watch();
    // Whether a compute that ended at `finished` ran past its budget. Decided by the clock, not
    // by whether the watchdog's thread got to cancel it: on a loaded machine that thread may not
    // run before the compute ends, and a late result must still be a timeout.
    bool overran(Clock::time_point finished) const { return owner_ && finished > deadline_; }

   private:
    ComputeWatchdog* owner_ = nullptr;
    uint64_t id_ = 0;
    Clock::time_point deadline_;
  };

  ComputeWatchdog() = default;
  ~ComputeWatchdog();
  ComputeWatchdog(const ComputeWatchdog&) = delete;
  ComputeWatchdog& operator=(const ComputeWatchdog&) = delete;

  // Watches `ctx` for `budget` (zero: no budget, only hurry()). ctx must outlive the Watch.
  Watch watch(ExecutionContext& ctx, std::chrono::milliseconds budget);
  // Repeats the plugin's cancel on `ctx`'s computes under watch while ctx stays cancelling.
  void hurry(const ExecutionContext& ctx);

 private:
  struct Entry {
    Clock::time_point next;  // deadline, then the time of the next repeated cancel
    ExecutionContext* ctx;
    Clock::time_point deadline;  // max: no budget
  };
  void start_locked();
  void run();
  void unregister(uint64_t id);

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, Entry> entries_;
  uint64_t next_id_ = 1;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace wasinn
