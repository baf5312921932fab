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
  if (budget.count() <= 0) return Watch();
  uint64_t id;
  const auto deadline = Clock::now() + budget;
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    id = next_id_++;
    entries_.emplace(id, Entry{deadline, &ctx});
  }
  cv_.notify_all();
  return Watch(this, id, deadline);
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
        e.ctx->cancel();
        e.next = now + kCancelRepeat;
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
