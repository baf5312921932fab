// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "core/compute_watchdog.h"

#include <utility>

#include "core/graph.h"

namespace wasinn {

namespace {
constexpr auto kCancelRepeat = std::chrono::milliseconds(5);
}

ComputeWatchdog::Watch::Watch(Watch&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)), id_(other.id_), deadline_(other.deadline_) {}

ComputeWatchdog::Watch::~Watch() {
  if (owner_) owner_->unregister(id_);
}

ComputeWatchdog::~ComputeWatchdog() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

ComputeWatchdog::Watch ComputeWatchdog::watch(ExecutionContext& ctx, std::chrono::milliseconds budget) {
  uint64_t id;
  const bool bounded = budget.count() > 0;
  const auto deadline = bounded ? Clock::now() + budget : Clock::time_point::max();
  {
    std::lock_guard lock(mu_);
    if (bounded) start_locked();
    id = next_id_++;
    entries_.emplace(id, Entry{deadline, &ctx, deadline});
  }
  if (bounded) cv_.notify_all();
  // Unbounded watches are registered too, for hurry(); only a budget makes overran() true.
  return Watch(this, id, deadline);
}

void ComputeWatchdog::hurry(const ExecutionContext& ctx) {
  {
    std::lock_guard lock(mu_);
    bool found = false;
    for (auto& [id, e] : entries_) {
      if (e.ctx != &ctx) continue;
      e.next = Clock::now();
      found = true;
    }
    if (!found) return;
    start_locked();
  }
  cv_.notify_all();
}

void ComputeWatchdog::start_locked() {
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
}

void ComputeWatchdog::unregister(uint64_t id) {
  std::lock_guard lock(mu_);
  entries_.erase(id);
}

void ComputeWatchdog::run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    auto wake = Clock::time_point::max();
    const auto now = Clock::now();
    for (auto& [id, e] : entries_) {
      if (e.next <= now) {
        // Under the lock, so the Watch (and with it the context's use) cannot end meanwhile.
        if (now >= e.deadline) {
          e.ctx->cancel();
          e.next = now + kCancelRepeat;
        } else {
          // Hurried: repeated while the context's holder is cancelling, then back to its deadline.
          e.next = e.ctx->repeat_cancel() ? now + kCancelRepeat : e.deadline;
        }
      }
      wake = std::min(wake, e.next);
    }
    if (wake == Clock::time_point::max()) {
      cv_.wait(lock);
    } else {
      cv_.wait_until(lock, wake);
    }
  }
}

}  // namespace wasinn
