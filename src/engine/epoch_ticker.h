// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// EpochTicker: advances a Wasmtime engine's epoch every tick, so that stores given a deadline
// (--timeout, -W timeout=) are interrupted once it passes.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/wasmtime_ptr.h"

namespace wasinn {

class EpochTicker {
 public:
  static constexpr auto kTick = std::chrono::milliseconds(10);
  // A store's epoch deadline for timeout_ms from now (rounded up to whole ticks).
  static uint64_t ticks_for(uint64_t timeout_ms) {
    const uint64_t tick = kTick.count();
    return (timeout_ms + tick - 1) / tick;
  }
  // Caps each linear memory of the store (memory.grow fails past it); 0: no cap.
  static void limit_memory(wasmtime_store_t* store, uint64_t max_memory_bytes) {
    if (max_memory_bytes == 0) return;
    wasmtime_store_limiter(store, static_cast<int64_t>(std::min<uint64_t>(max_memory_bytes, INT64_MAX)), -1, -1, -1,
                           -1);
  }
  explicit EpochTicker(const wasm_engine_t* engine)
      : thread_([this, engine] {
          std::unique_lock lock(mu_);
          while (!cv_.wait_for(lock, kTick, [this] { return stop_; })) wasmtime_engine_increment_epoch(engine);
        }) {}
  ~EpochTicker() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  EpochTicker(const EpochTicker&) = delete;
  EpochTicker& operator=(const EpochTicker&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace wasinn
